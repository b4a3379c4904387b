#!/usr/bin/env bash
# The README's screenshot: the first screen of a stored run's HTML data sheet
# (its first page: badges, key figures, worst cases, warnings) in headless
# Chromium, palette-reduced to stay small.
#   usage: scripts/screenshot.sh [RUN] [--db PATH]
set -euo pipefail
cd "$(dirname "$0")/.."
run=${1:-latest}
shift || true
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
.venv/bin/rtbench report "$run" --format html -o "$tmp/sheet.html" "$@"
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --window-size=1280,1000 \
  --screenshot="$tmp/shot.png" "file://$tmp/sheet.html" 2>/dev/null
.venv/bin/python - "$tmp/shot.png" docs/datasheet.png <<'PY'
import sys
from PIL import Image
img = Image.open(sys.argv[1]).convert("RGB")
img = img.resize((img.width * 3 // 4, img.height * 3 // 4), Image.LANCZOS)
img.quantize(colors=64, method=Image.Quantize.MEDIANCUT).save(sys.argv[2], optimize=True)
PY
ls -l docs/datasheet.png
