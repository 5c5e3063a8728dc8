#!/usr/bin/env bash
# Installs the .deb that .ci/package.sh built (building it first when it is missing or older than
# the sources), runs the installed /usr/bin/tollgate through WebDriver under Xvfb — a Demo turn,
# and an MCP server found only on the login shell's PATH (tests/tests/suite/installed.rs) — then
# uninstalls it. Needs root (it installs a package). Too slow for CI: the release build alone
# takes most of half an hour on two cores.
set -euo pipefail
cd "$(dirname "$0")/.."
say() { printf '\033[1m==> %s\033[0m\n' "$*"; }
if [ "$(id -u)" != 0 ]; then
  echo "The install test installs a package: run it as root." >&2
  exit 1
fi
deb=$(ls -t target/release/bundle/deb/*.deb 2>/dev/null | head -n1 || true)
if [ -z "$deb" ] || [ -n "$(find src-tauri ui/src ui/index.html icons -newer "$deb" -type f -not -path '*/gen/*' -print -quit)" ]; then
  TOLLGATE_BUNDLES=deb bash .ci/package.sh
  deb=$(ls -t target/release/bundle/deb/*.deb | head -n1)
else
  bash .ci/setup.sh
fi
say "Installing $deb"
dpkg-deb --info "$deb" | sed -n '/Package:/,/Description:/p'
export DEBIAN_FRONTEND=noninteractive
apt-get install -y -qq "./$deb" >/dev/null
trap 'say "Removing the package"; apt-get remove -y -qq tollgate >/dev/null' EXIT
test -x /usr/bin/tollgate
grep -q '^Exec=tollgate' /usr/share/applications/Tollgate.desktop
test -f /usr/share/icons/hicolor/128x128/apps/tollgate.png

say "Running the installed app (tests/tests/suite/installed.rs)"
KEYRING_HOME=$(mktemp -d)
XDG_DATA_HOME="$KEYRING_HOME" dbus-run-session -- sh -c \
  'printf tollgate | gnome-keyring-daemon --unlock --components=secrets >/dev/null && exec "$@"' sh \
  xvfb-run -a -s "-screen 0 1280x860x24" \
  env TOLLGATE_E2E_APP=/usr/bin/tollgate \
  cargo test -p tollgate-e2e --locked --test all suite::installed:: -- --ignored
rm -rf "$KEYRING_HOME"
