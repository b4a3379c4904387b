#!/usr/bin/env bash
# The figures in docs/ are generated, never typed: this runs the board
# shoot-out (every kernel rtbench knows, in both kernel profiles, the key
# rows) with fixed arguments into a scratch database and writes each table
# between its markers (rtbench.compare.docfigures). Under QEMU -icount every
# figure is the same on every machine; tests/test_doc_figures.py runs the
# same command and fails when the committed docs differ.
#
#   scripts/doc-figures.sh            # rewrite the docs' generated blocks
#   scripts/doc-figures.sh --check    # exit 1 if one differs
#
# Needs every kernel's sources (`python -m rtbench.kernels env-sources` lists
# their variables; scripts/test.sh sets them).
set -euo pipefail
cd "$(dirname "$0")/.."
mode=${1:---write}
py=${PYTHON:-.venv/bin/python}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
ids=$("$py" -m rtbench.compare.docfigures --db /dev/null --ids)
kernels=$("$py" -m rtbench.kernels names | paste -sd, -)
"$py" -m rtbench run --target mps2-an385 --kernel "$kernels" \
    --only "$ids" --samples 1000 --warmup 100 --db "$tmp/figures.db" --out "$tmp/out" >/dev/null
"$py" -m rtbench.compare.docfigures --db "$tmp/figures.db" "$mode" docs/profiles.md docs/boards.md
