#!/usr/bin/env bash
# Runs every check and test: formatting, lints, the UI's type check and unit tests, the Rust unit
# and integration tests, the fuzz targets' build, and the end-to-end tests in a real window under
# Xvfb. Installs what is missing first (see setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/setup.sh

# A clean clone's run gains nothing from incremental compilation and would keep 2 GB of its
# caches in target/ (8.3 GB in all with them; one CI run ran out of disk).
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
LOG=$(mktemp)

say "Formatting (cargo fmt --check)"
cargo fmt --all --check

say "Minimum Rust version (rust-version against every locked package)"
cargo metadata --locked --format-version 1 | node .ci/msrv.mjs

say "UI type check, lints (ESLint), formatting (Prettier) and unit tests"
(cd ui && npm run --silent typecheck && npm run --silent lint && npm run --silent format:check && npm test --silent) 2>&1 | tee -a "$LOG"

say "Lints (clippy -D warnings)"
cargo clippy --workspace --all-targets --locked -- -D warnings

# Tests that touch API keys use a real Secret Service: gnome-keyring in a private D-Bus session,
# with its keyring files in a throwaway folder so a developer's own keyring is never touched.
KEYRING_HOME=$(mktemp -d)
trap 'rm -rf "$LOG" "$KEYRING_HOME"' EXIT
with_keyring() {
  XDG_DATA_HOME="$KEYRING_HOME" dbus-run-session -- sh -c \
    'printf tollgate | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"' sh "$@"
}

say "Rust unit and integration tests (keychain: gnome-keyring)"
rm -f target/chaos-report.txt
# system-tests: the keychain and MCP tests, which plain `cargo test` leaves out (ignored).
with_keyring cargo test --workspace --exclude tollgate-e2e --locked --features tollgate-engine/system-tests 2>&1 | tee -a "$LOG"

# The chaos soak's figures (tests/suite/chaos.rs): complete, recovered, failed, shortened.
if [ -f target/chaos-report.txt ]; then
  say "Chaos soak"
  cat target/chaos-report.txt
fi

say "Fuzz targets build"
CARGO_TARGET_DIR=target/fuzz-check cargo check --locked --manifest-path src-tauri/crates/engine/fuzz/Cargo.toml

say "End-to-end tests (the real app under Xvfb)"
cargo build -p tollgate --locked
with_keyring xvfb-run -a -s "-screen 0 1280x860x24" cargo test -p tollgate-e2e --locked 2>&1 | tee -a "$LOG"
say "All checks passed. Screenshots: target/e2e-screenshots/"
# One closing line for the whole run: cargo's per-binary results plus vitest's total.
sed 's/\x1b\[[0-9;]*m//g' "$LOG" | awk '
  /^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
  /^ *Tests +[0-9]+ passed/ { p += $2 }
  END { printf "Total: %d passed, %d failed\n", p, f }'
