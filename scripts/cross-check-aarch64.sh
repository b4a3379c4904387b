#!/usr/bin/env bash
# Prove the Linux port builds for AArch64, not only for the x86-64 it runs
# on here: the harness (ports/posix) cross-built with CMake and Debian's
# aarch64-linux-gnu-gcc, -Werror, and its core-clock chain checked in the
# binary (rtb_port_add_chain: RTB_ADD_CHAIN_UNROLL = 1000 dependent
# `add xN, xN, xM`: register adds, which no core folds). Nothing is run: no
# AArch64 machine or emulator here.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cmake -S "$here/harness" -B "$out" -DCMAKE_SYSTEM_NAME=Linux -DCMAKE_SYSTEM_PROCESSOR=aarch64 \
      -DCMAKE_C_COMPILER=aarch64-linux-gnu-gcc -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_C_FLAGS=-Werror >"$out/log" 2>&1 || { cat "$out/log"; exit 1; }
cmake --build "$out" --target rtbench-harness --parallel "$(nproc)" >>"$out/log" 2>&1 || { cat "$out/log"; exit 1; }
adds=$(aarch64-linux-gnu-objdump -d --disassemble=rtb_port_add_chain "$out/rtbench-harness" |
       grep -cE $'\tadd\tx[0-9]+, x[0-9]+, x[0-9]+$' || true)
if [ "$adds" -lt 1000 ]; then
  echo "cross build (aarch64): rtb_port_add_chain has $adds register adds, want 1000" >&2
  exit 1
fi
echo "cross build: OK (aarch64-linux-gnu, posix port, -Werror; the core-clock chain: $adds adds)"
