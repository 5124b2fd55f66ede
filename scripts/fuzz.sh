#!/usr/bin/env bash
# Runs every cargo-fuzz target in fuzz/ for a fixed number of runs, starting from the
# committed seeds (fuzz/seeds/<target>) and whatever fuzz/corpus/<target> has gathered.
#   scripts/fuzz.sh            # 50,000 runs each: what ./test.sh (and so CI) runs
#   scripts/fuzz.sh 20000000   # longer, by hand
# A crash stops the script with libFuzzer's report and the input in fuzz/artifacts/<target>/;
# make it a regression case in tests/reliability_fuzz.rs.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
runs="${1:-50000}"
if ! cargo fuzz --version >/dev/null 2>&1; then
  echo "fuzz: cargo-fuzz is missing; scripts/setup.sh installs it" >&2
  exit 1
fi
# cargo-fuzz passes flags (-Zsanitizer and friends) that only nightly rustc takes; this lets
# the machine's stable toolchain take them too. A nightly toolchain works the same.
export RUSTC_BOOTSTRAP=1
cargo fuzz build -O
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
for target in $(cargo fuzz list); do
  mkdir -p "corpus/$target"
  echo "fuzz: $target, $runs runs"
  if ! cargo fuzz run "$target" -O "corpus/$target" "seeds/$target" -- \
    -runs="$runs" -max_total_time=600 -print_final_stats=1 >"$log" 2>&1; then
    tail -n 60 "$log"
    echo "fuzz: $target failed; the input is in fuzz/artifacts/$target/" >&2
    exit 1
  fi
  grep -E "^(stat::number_of_executed_units|stat::peak_rss_mb|Done )" "$log" || true
done
