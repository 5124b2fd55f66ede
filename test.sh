#!/usr/bin/env bash
# The whole test suite: Rust unit and black-box tests (real server, real MCP
# clients, the extension in headless Chromium), a build of the benchmarks, and a
# short run of every cargo-fuzz target (scripts/fuzz.sh; RELIABILITY.md).
set -euo pipefail
cd "$(dirname "$0")"
scripts/setup.sh
cargo test
cargo build --benches   # the benches compile, in the dev profile the tests just built (cargo bench runs them optimised)
scripts/fuzz.sh
