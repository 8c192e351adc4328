#!/bin/sh
# Rebuilds the real development set's files from Debian packages (issue 28): downloads the packages in
# packages.txt with `apt-get download` (the only network access) and unpacks them with `dpkg-deb -x` into
# WORKDIR/root (default bench/recognition/realset/work, ignored by git). devset.json names each document
# by package, version, path and sha256; the bench checks the hashes.
#   sh bench/recognition/realset/fetch.sh [WORKDIR] [PACKAGE-LIST]
# PACKAGE-LIST (default packages.txt): lines "package version", '#' lines ignored (fetch-kinds.sh passes its own).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
work=${1:-$here/work}
list=${2:-$here/packages.txt}
mkdir -p "$work/debs" "$work/root"
# Absolute paths: the loop below runs inside $work/debs.
work=$(cd "$work" && pwd)
list=$(cd "$(dirname "$list")" && pwd)/$(basename "$list")
cd "$work/debs"
grep -v '^#' "$list" | while read -r pkg ver; do
  [ -n "$pkg" ] || continue
  ls "${pkg}_"*.deb >/dev/null 2>&1 || apt-get download "$pkg=$ver"
done
for d in *.deb; do dpkg-deb -x "$d" "$work/root"; done
echo "unpacked into $work/root"
