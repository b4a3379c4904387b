#!/usr/bin/env bash
# All of rtbench's tests: the C unit tests (ctest), the freestanding build of
# the portable core, and the Python tests (pytest, which include an
# end-to-end `rtbench run --quick` on this machine).
set -euo pipefail
cd "$(dirname "$0")/.."
py=python3
[ -x .venv/bin/python ] && py=.venv/bin/python

echo "== C unit tests (ctest)"
cmake -S harness -B build/harness-tests -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build/harness-tests -j "$(nproc)" >/dev/null
ctest --test-dir build/harness-tests --output-on-failure

echo "== Freestanding build of core + scenarios"
bash scripts/freestanding-check.sh

echo "== Python tests (pytest)"
"$py" -m pytest -q tests
