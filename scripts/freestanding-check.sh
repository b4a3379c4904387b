#!/usr/bin/env bash
# Prove the portable core and the scenarios need no C library: compile them
# with arm-none-eabi-gcc -ffreestanding -nostdlib -Werror against the stub
# port, link with libgcc only (compiler support: 64-bit division, soft
# float), fail on any undefined symbol, and report the text/data size.
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
h="$here/harness"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
cc=${ARM_CC:-arm-none-eabi-gcc}
flags=(-std=c11 -mcpu=cortex-m4 -mthumb -Os -ffreestanding -nostdlib
       -ffunction-sections -fdata-sections -Wall -Wextra -Werror
       -I"$h/include" -I"$h/core" -I"$h/scenarios" -I"$h/ports/stub/include")
objs=()
for src in "$h"/core/*.c "$h"/scenarios/*.c "$h"/ports/stub/*.c; do
  obj="$out/$(basename "$(dirname "$src")")_$(basename "${src%.c}").o"
  "$cc" "${flags[@]}" -c "$src" -o "$obj"
  objs+=("$obj")
done
"$cc" "${flags[@]}" -Wl,--gc-sections -Wl,-e,rtb_stub_main -Wl,--no-undefined \
  "${objs[@]}" -lgcc -o "$out/rtbench-stub.elf"
echo "freestanding build: OK (arm-none-eabi, Cortex-M4, -Os, no libc)"
arm-none-eabi-size "$out/rtbench-stub.elf"
