#!/usr/bin/env bash
# Installs what the test suite needs beyond the Rust toolchain, when missing:
# Debian's Chromium (the extension's end-to-end test), the extension's npm
# packages and those of the Vite and webpack apps the source-map e2e tests serve, cargo-fuzz
# (scripts/fuzz.sh), openssl (a self-signed certificate for the https dev
# server of the source-map e2e), and for the reliability tests that run as root
# (RELIABILITY.md) `chattr` (e2fsprogs) and `mount`/`umount` (mount).
# Idempotent: quick when everything is already there.
set -euo pipefail
cd "$(dirname "$0")/.."

as_root() { if [ "$(id -u)" -eq 0 ]; then "$@"; else sudo "$@"; fi; }

apt_packages=()
command -v chromium >/dev/null 2>&1 || apt_packages+=(chromium)
command -v node >/dev/null 2>&1 || apt_packages+=(nodejs npm)
command -v cc >/dev/null 2>&1 || apt_packages+=(build-essential) # SQLite and ring are built from C
command -v sqlite3 >/dev/null 2>&1 || apt_packages+=(sqlite3)
command -v openssl >/dev/null 2>&1 || apt_packages+=(openssl)
command -v chattr >/dev/null 2>&1 || apt_packages+=(e2fsprogs)
{ command -v mount && command -v umount; } >/dev/null 2>&1 || apt_packages+=(mount)
if [ ${#apt_packages[@]} -gt 0 ]; then
  echo "setup: installing ${apt_packages[*]} (Debian packages)"
  as_root apt-get update -qq
  DEBIAN_FRONTEND=noninteractive as_root apt-get install -y -qq "${apt_packages[@]}" >/dev/null
fi

# Playwright and Vite need Node.js 20.19 or newer; Debian 12's own nodejs is 18.
node_version="$(node --version 2>/dev/null || echo none)"
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 20 || (a === 20 && b >= 19) ? 0 : 1)' 2>/dev/null; then
  echo "setup: Node.js 20.19 or newer is needed (found $node_version): install it from nodejs.org or NodeSource, then run this again" >&2
  exit 1
fi

if [ -f extension/package-lock.json ]; then
  stamp=extension/node_modules/.package-lock.json
  if [ ! -f "$stamp" ] || [ extension/package-lock.json -nt "$stamp" ]; then
    echo "setup: npm ci in extension/"
    npm ci --prefix extension --no-audit --no-fund --loglevel=error
  fi
fi

# The Vite, webpack, Rsbuild and Parcel apps the dev-server e2e tests serve (extension/test/e2e/vite.mjs,
# webpack.mjs, rsbuild.mjs, parcel.mjs), and the MCP conformance suite tests/mcp_conformance.rs runs
# (it brings its own Node.js 22).
for app in extension/test/e2e/fixture/vite-app extension/test/e2e/fixture/webpack-app extension/test/e2e/fixture/rsbuild-app extension/test/e2e/fixture/parcel-app tests/fixtures/mcp-conformance; do
  if [ -f "$app/package-lock.json" ]; then
    stamp="$app/node_modules/.package-lock.json"
    if [ ! -f "$stamp" ] || [ "$app/package-lock.json" -nt "$stamp" ]; then
      echo "setup: npm ci in $app/"
      npm ci --prefix "$app" --no-audit --no-fund --loglevel=error
    fi
  fi
done

if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "setup: cargo install cargo-fuzz"
  cargo install cargo-fuzz --locked --quiet
fi
