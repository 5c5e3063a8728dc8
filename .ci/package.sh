#!/usr/bin/env bash
# Builds Tollgate's installable packages with the Tauri CLI (pinned in ui/package.json): a .deb
# and an .rpm by default, in target/release/bundle/. The AppImage bundler downloads linuxdeploy
# while it builds, so it needs a network that reaches GitHub: ask for it with
# TOLLGATE_BUNDLES=deb,rpm,appimage there. Installs what is missing first (see setup.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
bash .ci/setup.sh
printf '\033[1m==> %s\033[0m\n' "Building the packages (${TOLLGATE_BUNDLES:-deb,rpm}; release build)"
(cd ui && npm run --silent tauri -- build --ci --bundles "${TOLLGATE_BUNDLES:-deb,rpm}")
find target/release/bundle -maxdepth 2 -type f \( -name '*.deb' -o -name '*.rpm' -o -name '*.AppImage' \) -print
