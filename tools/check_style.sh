#!/usr/bin/env bash
# tools/check_style.sh [ROOT]: checks the C files of src/ tests/ fuzz/ tools/
# against the project's style. Two rules:
#  1. each file is what clang-format makes of it with the root's .clang-format;
#  2. a project header is included by its path from src/ ("core/engine.h",
#     also a file's own header): in src/ every #include "X" must name src/X;
#     in tests/ fuzz/ tools/ an include names either a file next to the
#     including one (test_support.h) or src/X.
# Prints each offence (FILE: why, FILE:LINE: the include) and exits 1 when
# there is any, 2 when clang-format is missing, 0 when the tree is clean.
# CLANG_FORMAT names the program (default clang-format).
set -euo pipefail
root=$(cd "${1:-$(dirname "$0")/..}" && pwd)
cd "$root"
clang_format=${CLANG_FORMAT:-clang-format}
command -v "$clang_format" >/dev/null || { echo "check_style: $clang_format not found" >&2; exit 2; }
[ -f .clang-format ] || { echo "check_style: no .clang-format in $root" >&2; exit 2; }

# tests/layers/ holds fixture trees of tools/check_layers.py (their includes are
# paths of the fixture's own src/), so it is left out.
mapfile -d '' files < <(find src tests fuzz tools -path tests/layers -prune -o -name '*.[ch]' -print0 | sort -z)
offences=0

# Rule 1: clang-format would leave the file as it is (one run over all files;
# each offence it reports starts with the file's name).
while IFS= read -r f; do
  echo "$f: not clang-format clean (clang-format -i $f)"
  offences=$((offences + 1))
done < <("$clang_format" --style=file --dry-run -Werror "${files[@]}" 2>&1 >/dev/null |
           sed -n 's/^\([^:]*\.[ch]\):[0-9]*:[0-9]*: error: .*/\1/p' | uniq)

# Rule 2: #include "X" by its path from src/ (one awk over all files; the
# tree's file list first, so it knows which paths exist).
while IFS= read -r offence; do
  echo "$offence"
  offences=$((offences + 1))
done < <(find src tests fuzz tools -path tests/layers -prune -o -type f -print | awk '
  function normal(path,   n, i, part, out, depth) { # "tests/../tools/x.c" -> "tools/x.c"
    n = split(path, part, "/"); depth = 0
    for (i = 1; i <= n; i++)
      if (part[i] == "..") depth--; else if (part[i] != ".") out[++depth] = part[i]
    path = out[1]; for (i = 2; i <= depth; i++) path = path "/" out[i]
    return path
  }
  FNR == NR { exists[$0] = 1; next }
  FNR == 1 { dir = FILENAME; sub(/\/[^\/]*$/, "", dir) }
  /^[ \t]*#[ \t]*include[ \t]*"/ {
    x = $0; sub(/^[^"]*"/, "", x); sub(/".*/, "", x)
    from_src = x ~ /\// && (("src/" x) in exists)
    if (FILENAME ~ /^src\// ? from_src : from_src || (normal(dir "/" x) in exists)) next
    if (FILENAME ~ /^src\// && x !~ /\// && ((dir "/" x) in exists)) {
      folder = dir; sub(/^src\//, "", folder)
      printf "%s:%d: #include \"%s\" should be \"%s/%s\"\n", FILENAME, FNR, x, folder, x
    } else {
      printf "%s:%d: #include \"%s\" is not a path from src/ (nor a file next to it)\n", FILENAME, FNR, x
    }
  }' - "${files[@]}")

if [ "$offences" -gt 0 ]; then
  echo "check_style: $offences offences in ${#files[@]} files"
  exit 1
fi
echo "check_style: ${#files[@]} files clean"
