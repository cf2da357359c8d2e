#!/usr/bin/env bash
# Runs every fuzz target (cargo fuzz / libFuzzer, AddressSanitizer) for a fixed budget each.
#   ./scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]     (default: 60 s, every target)
# Saved crashers are replayed first (fuzz/regressions/<target>/); a new crasher fails the script
# and is left in fuzz/artifacts/<target>/: minimise it, fix the bug, and commit the input under
# fuzz/regressions/<target>/. Not part of scripts/test.sh: the instrumented build of the engine
# takes ~15 minutes on 2 cores. RELIABILITY.md has the latest figures.
set -euo pipefail
cd "$(dirname "$0")/../fuzz"
budget="${1:-60}"
shift || true
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=(parse_note query mcp_input hook_input c_abi)

command -v cargo-fuzz >/dev/null 2>&1 || cargo install cargo-fuzz --locked
# cargo fuzz needs nightly compiler flags: the nightly toolchain when installed, else the stable
# compiler with its unstable flags unlocked (its sanitizer runtimes ship with the std library).
if rustup toolchain list 2>/dev/null | grep -q '^nightly'; then
  fuzz=(cargo +nightly fuzz)
else
  export RUSTC_BOOTSTRAP=1
  fuzz=(cargo fuzz)
fi

"${fuzz[@]}" build -O --sanitizer address
for t in "${targets[@]}"; do
  if compgen -G "regressions/$t/*" >/dev/null; then
    echo "==> $t: replaying saved crashers"
    "${fuzz[@]}" run -O --sanitizer address "$t" regressions/"$t"/* -- -runs=0
  fi
  echo "==> $t: fuzzing for ${budget}s"
  mkdir -p "corpus/$t"
  # New inputs go to corpus/<target> (not committed); seeds/<target> holds committed examples.
  "${fuzz[@]}" run -O --sanitizer address "$t" "corpus/$t" "seeds/$t" -- \
    -max_total_time="$budget" -max_len=65536 -rss_limit_mb=4096 -timeout=30 -print_final_stats=1 2>&1 \
    | grep -E "^(stat::|==|INFO: Loaded|Done|#[0-9]+ +DONE)|ERROR|SUMMARY|panicked|Test unit written" || true
  if compgen -G "artifacts/$t/crash-*" >/dev/null || compgen -G "artifacts/$t/oom-*" >/dev/null \
     || compgen -G "artifacts/$t/timeout-*" >/dev/null; then
    echo "FAIL: $t found a crasher: $(ls artifacts/$t)" >&2
    exit 1
  fi
done
echo "all fuzz targets ran clean for ${budget}s each"
