#!/usr/bin/env bash
# Checks that the workspace compiles, lint-clean, for the machines users have beyond this one:
# macOS on Apple Silicon, Windows (x86_64, MSVC) and Linux on ARM (`cargo clippy --target`,
# which type-checks every crate without linking, so no cross linker or SDK is needed).
# The targets' standard libraries are installed with rustup when missing.
#
#   scripts/check-platforms.sh                  # the three targets
#   scripts/check-platforms.sh x86_64-pc-windows-msvc   # only the ones named
#
# The Python binding (mindex-py) is left out: its wheel is built natively on each platform by
# the release workflow (.github/workflows/release.yml).
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
  cargo clippy --release --workspace --exclude mindex-py --all-targets --target "$t" -- -D warnings
done
echo "checked: ${targets[*]}"
