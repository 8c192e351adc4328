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
mkdir -p "$work/kinds/debs" "$work/kinds/root"
if [ "${2:-}" != "--no-install" ]; then
  tools=$(sed -n 's/^#tool \([^ ]*\).*/\1/p' "$here/kinds-packages.txt")
  # shellcheck disable=SC2086
  apt-get install -y $tools
fi
cd "$work/kinds/debs"
grep -v '^#' "$here/kinds-packages.txt" | while read -r pkg ver; do
  [ -n "$pkg" ] || continue
  ls "${pkg}_"*.deb >/dev/null 2>&1 || apt-get download "$pkg=$ver"
done
for d in *.deb; do dpkg-deb -x "$d" "$work/kinds/root"; done
echo "unpacked into $work/kinds/root"
