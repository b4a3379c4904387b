#!/usr/bin/env bash
# All of rtbench's tests: the C unit tests (ctest), the freestanding build of
# the portable core, and the Python tests (pytest, which include an
# end-to-end `rtbench run --quick` on this machine and the whole FreeRTOS and
# ThreadX catalogues on QEMU's emulated board). Installs what the tests need
# first (scripts/setup.sh with RTBENCH_TEST_DEPS=1: idempotent, a no-op when
# all is there).
set -euo pipefail
cd "$(dirname "$0")/.."
RTBENCH_TEST_DEPS=1 bash scripts/setup.sh
py=.venv/bin/python
# The kernel sources the board tests build (test material beside the work
# tree, never part of rtbench), unless the caller names their own.
if [ -z "${RTBENCH_FREERTOS_SRC:-}" ] && [ -d ../shared/third_party/FreeRTOS-Kernel ]; then
  export RTBENCH_FREERTOS_SRC=$(cd ../shared/third_party/FreeRTOS-Kernel && pwd)
fi
if [ -z "${RTBENCH_THREADX_SRC:-}" ] && [ -d ../shared/third_party/threadx ]; then
  export RTBENCH_THREADX_SRC=$(cd ../shared/third_party/threadx && pwd)
fi

echo "== C unit tests (ctest)"
cmake -S harness -B build/harness-tests -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/harness-tests -j "$(nproc)" >/dev/null
ctest --test-dir build/harness-tests --output-on-failure

echo "== Freestanding build of core + scenarios"
bash scripts/freestanding-check.sh

echo "== Python tests (pytest)"
"$py" -m pytest -q tests
