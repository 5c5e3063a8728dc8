#!/usr/bin/env bash
# Builds Tollgate (installing what is missing first) and runs it.
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/setup.sh
printf '\033[1m==> %s\033[0m\n' "Building Tollgate (release)"
cargo build -p tollgate --release --locked
if [ -z "${DISPLAY:-}" ] && [ -z "${WAYLAND_DISPLAY:-}" ]; then
  echo "No display: run this from a desktop session (or under xvfb-run to try it headless)." >&2
  exit 1
fi
exec target/release/tollgate "$@"
