#!/usr/bin/env bash
# Set up rtbench on a fresh Debian/Ubuntu machine: the C toolchain and CMake
# (apt, when run as root), and the Python package in ./.venv.
# Idempotent: run it again after pulling.
#
# Every package is named here, with what it is for: apt installs without
# recommends, so nothing may come only as another package's recommendation
# (gcc-aarch64-linux-gnu only recommends the AArch64 C library it links with).
set -euo pipefail
cd "$(dirname "$0")/.."
need_apt=(cmake gcc make libc6-dev python3-venv)
# The emulated board target (rtbench run --target mps2-an385): QEMU and the
# Cortex-M cross toolchain with newlib (RTBENCH_EMBEDDED=1, or for the tests),
# and what the cycle model's QEMU plugin is built with on first use
# (src/rtbench/targets/cycles.py): glib's headers, found by pkg-config (QEMU
# ships no plugin header; the plugin's glib symbols are QEMU's own); and
# gdb-multiarch, which loads a real board through its GDB server (--gdb).
embedded=(qemu-system-arm gcc-arm-none-eabi binutils-arm-none-eabi libnewlib-arm-none-eabi gdb-multiarch
          libglib2.0-dev pkg-config)
[ "${RTBENCH_EMBEDDED:-0}" = 1 ] && need_apt+=("${embedded[@]}")
# Tests also need the board target's packages (the FreeRTOS image is built
# and run under QEMU), a headless browser with its WebDriver and a font (the
# HTML sheet is opened in Chromium), the AArch64 cross compiler with its C
# library and binutils (the Linux port is cross-built and disassembled for
# AArch64: scripts/cross-check-aarch64.sh), and what the Zephyr kernel's
# build runs (Ninja, the device-tree compiler, gperf; its Python packages
# are pyproject.toml's `zephyr` extra, part of `test`).
aarch64=(gcc-aarch64-linux-gnu libc6-dev-arm64-cross binutils-aarch64-linux-gnu)
browser=(chromium chromium-driver fonts-dejavu-core)
zephyr=(ninja-build device-tree-compiler gperf)
# strace: the qualify test watches cyclictest's own opens (it must write no
# system setting: tests/test_qualify.py).
checks=(strace)
# --kernel zephyr (RTBENCH_ZEPHYR=1): the board's packages, Zephyr's build
# tools and, below, the `zephyr` extra.
[ "${RTBENCH_ZEPHYR:-0}" = 1 ] && need_apt+=("${embedded[@]}" "${zephyr[@]}")
[ "${RTBENCH_TEST_DEPS:-0}" = 1 ] && need_apt+=("${embedded[@]}" "${browser[@]}"
                                              "${aarch64[@]}" "${zephyr[@]}" "${checks[@]}")
# Standard programs `rtbench run` runs beside its own metrics when they are
# installed (docs/reports.md, "Standard programs and peers"): installed as
# root, never required (without them their records say "not installed").
[ "$(id -u)" = 0 ] && need_apt+=(rt-tests sysbench stress-ng)
missing=()
for p in "${need_apt[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing+=("$p")
done

# apt-get that waits for another apt or dpkg (a new cloud machine runs its
# unattended upgrades at first boot) instead of failing on its lock.
APT_LOCK_WAIT=${APT_LOCK_WAIT:-900}  # seconds
apt_get() {
  apt-get -o DPkg::Lock::Timeout="$APT_LOCK_WAIT" "$@"
}
# `apt-get update` takes the package lists' lock, which DPkg::Lock::Timeout
# does not cover on every apt: while another apt holds it, try again.
apt_update() {
  local waited=0 out
  while ! out=$(apt_get update -qq 2>&1); do
    case "$out" in
      *"Could not get lock"*|*"Unable to lock"*|*"is held by process"*)
        [ "$waited" -ge "$APT_LOCK_WAIT" ] && { echo "$out" >&2; return 1; }
        [ "$waited" = 0 ] && echo "setup: another apt is running; waiting for its lock" >&2
        sleep 5; waited=$((waited + 5));;
      *) echo "$out" >&2; return 1;;
    esac
  done
}

if [ ${#missing[@]} -gt 0 ]; then
  if [ "$(id -u)" = 0 ]; then
    export DEBIAN_FRONTEND=noninteractive
    echo "setup: installing ${missing[*]}" >&2
    apt_update
    apt_get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
  else
    echo "setup: please install: ${missing[*]} (apt-get, as root)" >&2
    exit 1
  fi
fi
[ -x .venv/bin/python ] || python3 -m venv .venv
extra=""
[ "${RTBENCH_ZEPHYR:-0}" = 1 ] && extra="[zephyr]"
[ "${RTBENCH_TEST_DEPS:-0}" = 1 ] && extra="[test]"  # holds the zephyr extra
.venv/bin/python -m pip install -q --upgrade pip >/dev/null
.venv/bin/python -m pip install -q -e ".${extra}"
echo "setup: done (.venv/bin/rtbench)"
