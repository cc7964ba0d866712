#!/usr/bin/env bash
# tools/goal_bin_check.sh: checks fennelsim's reader of LogGOPSim's binary
# GOAL against LogGOPSim's own txt2bin. For each GOAL file given (plain or
# .gz), it converts the text with txt2bin and with tests/goal_bin_writer.py,
# asserts that both wrote the same bytes, and that `fennelsim run --model
# loggops --timeline -` gives the same per-task times from the .bin as from
# the text (task names aside: a .bin keeps no labels). CI cannot run it
# (LogGOPSim is not installed there); a session changing the reader can.
#
# Usage: tools/goal_bin_check.sh TXT2BIN [FENNELSIM] GOAL_FILE...
#   TXT2BIN    LogGOPSim's txt2bin (built as tools/loggopsim_diff.sh builds it)
#   FENNELSIM  the fennelsim binary (default build/fennelsim; give it when
#              the first GOAL file could be mistaken for it)
# Prints one line per file and "N files, M differ" at the end; exit 1 when
# any differs.
set -euo pipefail
txt2bin=${1:?usage: tools/goal_bin_check.sh TXT2BIN [FENNELSIM] GOAL_FILE...}
shift
fennelsim=build/fennelsim
if [ $# -gt 0 ] && [ -x "$1" ] && [[ "$1" != *.goal* ]]; then fennelsim=$1; shift; fi
writer=$(dirname "$0")/../tests/goal_bin_writer.py
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# The timeline without its first column (the task names), the makespan
# and the per-rank finish times.
times() {
  "$fennelsim" run "$1" --model loggops --timeline - |
    awk -F, 'NF == 9 { sub(/^[^,]*,/, ""); print; next } /^(makespan|finish)/'
}

files=0 differ=0
for goal in "$@"; do
  files=$((files + 1))
  name=$(basename "$goal" .gz)
  if [[ "$goal" == *.gz ]]; then zcat "$goal" > "$work/$name"; else cp "$goal" "$work/$name"; fi
  text="$work/$name" real="$work/$name.txt2bin.bin" ours="$work/$name.writer.bin"
  "$txt2bin" -i "$text" -o "$real" > /dev/null
  python3 "$writer" "$text" "$ours"
  verdict=ok
  cmp -s "$real" "$ours" || verdict="writer differs from txt2bin"
  [ "$verdict" = ok ] && ! diff -q <(times "$text") <(times "$real") > /dev/null &&
    verdict="run differs between text and .bin"
  [ "$verdict" = ok ] || differ=$((differ + 1))
  echo "$name: $verdict"
done
echo "$files files, $differ differ"
[ "$differ" -eq 0 ]
