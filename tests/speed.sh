#!/usr/bin/env bash
# Measures the desktop app's speed figures (start-up, idle memory, a 5,000-message chat) on a
# release build under Xvfb with a private keyring, and prints them. Not part of the test command:
# figures are reported, not asserted.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/setup.sh
cargo build --release -p tollgate --locked
KEYRING_HOME=$(mktemp -d)
trap 'rm -rf "$KEYRING_HOME"' EXIT
XDG_DATA_HOME="$KEYRING_HOME" dbus-run-session -- sh -c \
  'printf tollgate | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"' sh \
  xvfb-run -a -s "-screen 0 1280x860x24" \
  cargo test --release -p tollgate-e2e --locked --test all suite::speed:: -- --ignored --nocapture 2>&1 | grep -E "^SPEED|panicked|error" || true
