#!/usr/bin/env bash
# The whole test suite: Rust unit and black-box tests (real server, real MCP
# clients, the extension in headless Chromium), then a build of the benchmarks.
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
cargo test
cargo bench --no-run
