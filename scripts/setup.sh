#!/usr/bin/env bash
# Set up rtbench on a fresh Debian/Ubuntu machine: the C toolchain and CMake
# (apt, when run as root), and the Python package in ./.venv.
# Idempotent: run it again after pulling.
set -euo pipefail
cd "$(dirname "$0")/.."
need_apt=(cmake gcc make libc6-dev python3-venv)
# The emulated board target (rtbench run --target mps2-an385): QEMU and the
# Cortex-M cross toolchain with newlib (RTBENCH_EMBEDDED=1, or for the tests).
embedded=(qemu-system-arm gcc-arm-none-eabi binutils-arm-none-eabi libnewlib-arm-none-eabi)
[ "${RTBENCH_EMBEDDED:-0}" = 1 ] && need_apt+=("${embedded[@]}")
# Tests also need the board target's packages (the FreeRTOS image is built
# and run under QEMU), a headless browser with its WebDriver (the HTML
# sheet is opened in Chromium) and the AArch64 cross compiler (the Linux
# port is cross-built for AArch64: scripts/cross-check-aarch64.sh).
[ "${RTBENCH_TEST_DEPS:-0}" = 1 ] && need_apt+=("${embedded[@]}"
                                              chromium chromium-driver fonts-dejavu-core
                                              gcc-aarch64-linux-gnu)
# Standard programs `rtbench run` runs beside its own metrics when they are
# installed (docs/reports.md, "Standard programs and peers"): installed as
# root, never required (without them their records say "not installed").
[ "$(id -u)" = 0 ] && need_apt+=(rt-tests sysbench stress-ng)
missing=()
for p in "${need_apt[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq
    apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: please install: ${missing[*]} (apt-get, as root)" >&2
    exit 1
  fi
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
extra=""
[ "${RTBENCH_TEST_DEPS:-0}" = 1 ] && extra="[test]"
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e ".${extra}"
echo "setup: done (.venv/bin/rtbench)"
