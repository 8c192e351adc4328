#!/bin/sh
# Fetches the packages of the kinds devset.json lacks (kinds-packages.txt: EPUB books, ReportLab's examples,
# word-processor documents)
# with `apt-get download` and unpacks them into WORKDIR/kinds/root; installs the tools that make the scans
# and the ReportLab PDFs and LibreOffice for the word-processor PDFs (kinds-packages.txt, `#tool` lines) unless
# --no-install. Then build kinds.json (--only wordproc: that kind alone, the other entries kept):
#   sh bench/recognition/realset/fetch-kinds.sh [WORKDIR] [--no-install]
#   node dist/bench/recognition/realset/kinds.js --root WORKDIR/root --work WORKDIR/kinds
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-$here/work}
if [ "${2:-}" != "--no-install" ]; then
  tools=$(sed -n 's/^#tool \([^ ]*\).*/\1/p' "$here/kinds-packages.txt")
  # shellcheck disable=SC2086
  apt-get install -y $tools
fi
sh "$here/fetch.sh" "$work/kinds" "$here/kinds-packages.txt"
