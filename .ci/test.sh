#!/usr/bin/env bash
# Runs every check and test: formatting, lints, the UI's type check and unit tests, the Rust unit
# and integration tests, the fuzz targets' bodies, and the end-to-end tests in a real window under
# Xvfb. Installs what is missing first (see setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

# Each stage's time, printed at the end (docs/PERFORMANCE.md keeps the figures).
STAGES=()
STAGE=""
STAGE_START=$(date +%s)
RUN_START=$STAGE_START
say() {
  local now
  now=$(date +%s)
  if [ -n "$STAGE" ]; then STAGES+=("$(printf '%6d s  %s' $((now - STAGE_START)) "$STAGE")"); fi
  STAGE="$*"
  STAGE_START=$now
  if [ -n "$STAGE" ]; then printf '\033[1m==> %s\033[0m\n' "$STAGE"; fi
}

say "Setting up (system packages, Rust, npm packages, the UI build: setup.sh)"
bash .ci/setup.sh

# A clean clone's run gains nothing from incremental compilation and would keep 2 GB of its
# caches in target/ (8.3 GB in all with them; one CI run ran out of disk).
export CARGO_INCREMENTAL="${CARGO_INCREMENTAL:-0}"

LOG=$(mktemp)

say "Formatting (cargo fmt --check)"
cargo fmt --all --check

say "Minimum Rust version (rust-version against every locked package)"
cargo metadata --locked --format-version 1 | node .ci/msrv.mjs

# Tests that touch API keys use a real Secret Service: gnome-keyring in a private D-Bus session,
# with its keyring files in a throwaway folder so a developer's own keyring is never touched.
KEYRING_HOME=$(mktemp -d)
trap 'rm -rf "$LOG" "$KEYRING_HOME"' EXIT
with_keyring() {
  XDG_DATA_HOME="$KEYRING_HOME" dbus-run-session -- sh -c \
    'printf tollgate | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"' sh "$@"
}

# One build for everything below: the unit and integration tests, the fuzz targets' bodies, the
# benches (built, not run here), the end-to-end tests and the app binary they drive (built
# because the app crate has tests of its own). Every cargo command from here selects the whole
# workspace: selecting fewer packages (`-p`, `--exclude`) changes the features cargo unifies and
# compiles hundreds of crates again. cargo's list of what it built (JSON on standard output)
# tells the next stage which binaries to run.
#
# Clippy lints in the same build: clippy-driver compiles the workspace's own crates as rustc
# would, with clippy's lints (`-D warnings`: a warning fails the build), exactly as `cargo clippy
# --all-targets -- -D warnings` checks them. A separate `cargo clippy` would check every one of
# the ~700 dependencies a second time, which took 250–310 s of a cold run. `--timings` writes the
# build's schedule (target/cargo-timings/cargo-timing.html): what each crate waited for, and the
# critical path of a cold build (docs/PERFORMANCE.md).
say "Building every test and the app (one debug build, linted by clippy -D warnings)"
mkdir -p target
ARTIFACTS=target/test-artifacts.json
RUSTC_WORKSPACE_WRAPPER="$(rustup which clippy-driver)" CLIPPY_ARGS="-D__CLIPPY_HACKERY__warnings__CLIPPY_HACKERY__" \
  cargo test --workspace --all-targets --locked --no-run --timings --message-format=json-render-diagnostics >"$ARTIFACTS"

# Every test binary of that build, in two lanes side by side: the end-to-end binary in one, the
# others one after another in the other (test-lanes.mjs; cargo would run them one at a time).
# The keychain tests (gnome-keyring) and the end-to-end tests (Xvfb) need both wrappers.
# --include-ignored runs the keychain and MCP tests, which plain `cargo test` leaves out; the
# speed figures and the installed-package test have commands of their own (tests/speed.sh,
# .ci/install-test.sh). The UI's type check, lints (ESLint), formatting (Prettier) and unit tests
# run in the second lane after its binaries: the window lane is the longer by minutes.
say "Rust unit, integration and end-to-end tests, fuzz targets on seeds; the UI's type check, lints, formatting and unit tests"
rm -f target/chaos-report.txt
UI_CHECKS="cd ui && npm run --silent typecheck && npm run --silent lint && npm run --silent format:check && npm test --silent"
with_keyring xvfb-run -a -s "-screen 0 1280x860x24" \
  node .ci/test-lanes.mjs --then "$UI_CHECKS" "$ARTIFACTS" --include-ignored --skip suite::speed:: --skip suite::installed:: 2>&1 | tee -a "$LOG"

# The chaos soak's figures (tests/suite/chaos.rs): complete, recovered, failed, shortened.
if [ -f target/chaos-report.txt ]; then
  cat target/chaos-report.txt
fi
say ""
printf '\033[1m==> All checks passed in %d s. Screenshots: target/e2e-screenshots/\033[0m\n' $(($(date +%s) - RUN_START))
printf '%s\n' "${STAGES[@]}"
# One closing line for the whole run: cargo's per-binary results plus vitest's total.
sed 's/\x1b\[[0-9;]*m//g' "$LOG" | awk '
  /^test result:/ { for (i = 1; i <= NF; i++) { if ($(i+1) ~ /^passed/) p += $i; if ($(i+1) ~ /^failed/) f += $i } }
  /^ *Tests +[0-9]+ passed/ { p += $2 }
  END { printf "Total: %d passed, %d failed\n", p, f }'
