#!/usr/bin/env bash
# All of rtbench's tests: the C unit tests (ctest), the freestanding build of
# the portable core, the Linux port cross-built for AArch64, and the Python tests (pytest, which include an
# end-to-end `rtbench run --quick` on this machine and every kernel's whole
# catalogue on QEMU's emulated board). Installs what the tests need
# first (scripts/setup.sh with RTBENCH_TEST_DEPS=1: idempotent, a no-op when
# all is there).
#
#   scripts/test.sh          everything (CI)
#   scripts/test.sh --fast   everything but the tests that build and run board
#                            images, drive Chromium or a labgrid lab (pytest
#                            markers board, browser, lab: tests/conftest.py)
set -euo pipefail
cd "$(dirname "$0")/.."
fast=0
case "${1:-}" in
  --fast) fast=1 ;;
  "") ;;
  *) echo "usage: scripts/test.sh [--fast]" >&2; exit 2 ;;
esac
RTBENCH_TEST_DEPS=1 bash scripts/setup.sh
py=.venv/bin/python
# The kernel and peer sources the board tests build (test material beside
# the work tree, never part of rtbench), unless the caller names their own:
# ../shared/third_party beside this checkout, else beside the checkout this
# one was cloned from (a clone made elsewhere, e.g. `git clone . /tmp/x`).
third_party=""
origin=$(git config --get remote.origin.url 2>/dev/null || true)
for cand in ../shared/third_party "${origin:+$origin/../shared/third_party}"; do
  if [ -n "$cand" ] && [ -d "$cand" ]; then third_party=$(cd "$cand" && pwd); break; fi
done
use_source() {  # VARIABLE FOLDER: export VARIABLE=$third_party/FOLDER unless set
  if [ -z "${!1:-}" ] && [ -n "$third_party" ] && [ -d "$third_party/$2" ]; then
    export "$1=$third_party/$2"
  fi
}
# Each kernel's trees, as its descriptor names them (rtbench.kernels: the
# venv exists, setup.sh made it above); then the peers'.
while read -r var folder; do use_source "$var" "$folder"; done \
  < <("$py" -m rtbench.kernels env-sources)
use_source RTBENCH_RTOS_BENCHMARK_SRC rtos-benchmark

echo "== C unit tests (ctest)"
cmake -S harness -B build/harness-tests -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/harness-tests -j "$(nproc)" >/dev/null
ctest --test-dir build/harness-tests --output-on-failure

echo "== Freestanding build of core + scenarios"
bash scripts/freestanding-check.sh

echo "== Cross build of the Linux port for AArch64"
bash scripts/cross-check-aarch64.sh

echo "== Python tests (pytest)"
# Three sets: the tests on this host, on one worker per CPU (at most 4;
# pytest-xdist, a module per worker so its fixtures are made once); then the
# board tests on the workers (the longest modules first: tests/conftest.py;
# builds and board runs shared between the workers) while the tests that
# compare the whole machine's IPC objects before and after run alone beside
# them (pytest marker serial). A host test's Chromium, cyclictest or harness
# would look like their leak; a board test makes no IPC object (QEMU, the
# cross compilers). Alone they took 2.5 minutes on one CPU, the other idle
# (145 s of CPU in 167 s); beside the board tests, about a minute less in
# all. All run even when one fails, so every failure is seen.
workers=$(nproc); [ "$workers" -gt 4 ] && workers=4
only=""
[ "$fast" = 1 ] && only="not board and not browser and not lab and "
rc=0
xdist=(-n "$workers" --dist loadscope --no-loadscope-reorder)
# One folder for the builds and board runs of all three sessions
# (tests/conftest.py shared_temp), removed at the end.
RTBENCH_TEST_SHARED=$(mktemp -d "${TMPDIR:-/tmp}/rtbench-tests-XXXXXX")
export RTBENCH_TEST_SHARED
serial_log=$(mktemp)
board_pid=""
trap 'rm -rf "$serial_log" "$RTBENCH_TEST_SHARED"; [ -z "$board_pid" ] || kill "$board_pid" 2>/dev/null || true' EXIT
"$py" -m pytest -q "${xdist[@]}" -m "${only}not serial and not board" \
  --durations=25 tests || rc=$?  # the slowest, so a slow test is seen
if [ "$fast" != 1 ]; then
  "$py" -m pytest -q "${xdist[@]}" -m "board and not serial" --durations=25 tests &
  board_pid=$!
fi
"$py" -m pytest -q -m "${only}serial" --durations=10 tests >"$serial_log" 2>&1 || rc=$?
if [ -n "$board_pid" ]; then
  wait "$board_pid" || rc=$?
  board_pid=""
fi
echo "== the serial tests (run beside the board tests)"
cat "$serial_log"
if [ "$rc" != 0 ]; then
  echo "test.sh: the Python tests failed" >&2
  exit "$rc"
fi
