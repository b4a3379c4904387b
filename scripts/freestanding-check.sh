#!/usr/bin/env bash
# Prove the portable core and the scenarios need no C library: build the
# stub port (ports/stub: only the required half of the porting layer, every
# optional service the core's weak default) with CMake and the arm-none-eabi
# toolchain, -ffreestanding -nostdlib -Werror, linked with libgcc only and
# --no-undefined, for a Cortex-M4 and for a Cortex-M0 (ARMv6-M: no atomic
# read-modify-write instructions, so no __atomic_* library calls allowed).
# Reports the text/data/bss of each.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for cpu in cortex-m4 cortex-m0; do
  cmake -S "$here/harness" -B "$out/$cpu" -DRTB_PORT=stub -DRTB_CPU="$cpu" \
        -DCMAKE_BUILD_TYPE=MinSizeRel >"$out/$cpu.log" 2>&1 || { cat "$out/$cpu.log"; exit 1; }
  cmake --build "$out/$cpu" --parallel "$(nproc)" >>"$out/$cpu.log" 2>&1 || { cat "$out/$cpu.log"; exit 1; }
  echo "freestanding build: OK (arm-none-eabi, $cpu, -Os, no libc)"
  arm-none-eabi-size "$out/$cpu/rtbench-stub.elf"
done
