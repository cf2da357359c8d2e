#!/usr/bin/env bash
# Runs the engine's tests (the encoder's kernels included) built for Linux on ARM
# (aarch64-unknown-linux-gnu) under qemu-user on this x86_64 machine: correctness only. Speed
# measured under emulation means nothing, so no figure from here is claimed.
#
# Installs what it needs when missing: the target's standard library (rustup), Debian's
# cross linker (gcc-aarch64-linux-gnu) and qemu-user. Extra arguments go to the test binary
# (a test-name filter, say).
#
# qemu-user emulates the CPU named by QEMU_CPU, here `max` by default (every extension qemu
# knows, the dot product among them), so the encoder's `sdot` kernel runs and the kernel test
# insists on it (MINDEX_TEST_KERNELS=dotprod). `QEMU_CPU=cortex-a72 MINDEX_TEST_KERNELS=
# scripts/test-aarch64.sh` runs a CPU without it (the portable loop alone).
set -euo pipefail
cd "$(dirname "$0")/.."
target=aarch64-unknown-linux-gnu
rustup target list --installed | grep -qx "$target" || rustup target add "$target"
need=()
command -v aarch64-linux-gnu-gcc >/dev/null || need+=(gcc-aarch64-linux-gnu)
command -v qemu-aarch64 >/dev/null || need+=(qemu-user)
if [ "${#need[@]}" -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && apt-get install -y -qq "${need[@]}"
  else
    sudo sh -c "apt-get update -qq && apt-get install -y -qq ${need[*]}"
  fi
fi
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_LINKER=aarch64-linux-gnu-gcc
export CARGO_TARGET_AARCH64_UNKNOWN_LINUX_GNU_RUNNER="qemu-aarch64 -L /usr/aarch64-linux-gnu"
export QEMU_CPU="${QEMU_CPU-max}"
export MINDEX_TEST_KERNELS="${MINDEX_TEST_KERNELS-dotprod}"
# The model-backed tests need the real model (scripts/setup-model.sh); without it they say so
# and pass over it, as on x86_64.
cargo test --release -p mindex --lib --target "$target" -- "$@"
