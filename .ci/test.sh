#!/usr/bin/env bash
# Runs every check and test: formatting, lints, the UI's type check and unit tests, the Rust unit
# and integration tests, the fuzz targets' build, and the end-to-end tests in a real window under
# Xvfb. Installs what is missing first (see setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/setup.sh

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
LOG=$(mktemp)
trap 'rm -f "$LOG"' EXIT

say "Formatting (cargo fmt --check)"
cargo fmt --all --check

say "UI type check and unit tests"
(cd ui && npm run --silent typecheck && npm test --silent) 2>&1 | tee -a "$LOG"

say "Lints (clippy -D warnings)"
cargo clippy --workspace --all-targets --locked -- -D warnings

say "Rust unit and integration tests"
cargo test --workspace --exclude tollgate-e2e --locked 2>&1 | tee -a "$LOG"

say "Fuzz targets build"
CARGO_TARGET_DIR=target/fuzz-check cargo check --locked --manifest-path src-tauri/crates/engine/fuzz/Cargo.toml

say "End-to-end tests (the real app under Xvfb)"
cargo build -p tollgate --locked
xvfb-run -a -s "-screen 0 1280x860x24" dbus-run-session -- cargo test -p tollgate-e2e --locked 2>&1 | tee -a "$LOG"
say "All checks passed. Screenshots: target/e2e-screenshots/"
# One closing line for the whole run: cargo's per-binary results plus vitest's total.
sed 's/\x1b\[[0-9;]*m//g' "$LOG" | awk '
  /^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
  /^ *Tests +[0-9]+ passed/ { p += $2 }
  END { printf "Total: %d passed, %d failed\n", p, f }'
