#!/usr/bin/env bash
# Checks that the workspace compiles, lint-clean, for the machines users have beyond this one:
# macOS on Apple Silicon, Windows (x86_64, MSVC) and Linux on ARM (`cargo clippy --target`,
# which type-checks every library and binary without linking, so no cross linker or SDK is
# needed; the tests are Linux-only, like the machine they run on).
# The targets' standard libraries are installed with rustup when missing.
#
#   scripts/check-platforms.sh                  # the three targets
#   scripts/check-platforms.sh x86_64-pc-windows-msvc   # only the ones named
#
# Left out: the Python binding (mindex-py), whose wheel is built natively on each platform by the
# release workflow (.github/workflows/release.yml), and the benches (Linux measuring tools).
set -euo pipefail
cd "$(dirname "$0")/.."
if [ "$#" -gt 0 ]; then
  targets=("$@")
else
  targets=(aarch64-apple-darwin x86_64-pc-windows-msvc aarch64-unknown-linux-gnu)
fi
installed="$(rustup target list --installed)"
for t in "${targets[@]}"; do
  grep -qx "$t" <<<"$installed" || rustup target add "$t"
done
for t in "${targets[@]}"; do
  echo "==> cargo clippy --target $t"
  cargo clippy --release --workspace --exclude mindex-py --exclude mindex-benches --lib --bins --target "$t" -- -D warnings
done
echo "checked: ${targets[*]}"
