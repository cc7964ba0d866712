#!/usr/bin/env bash
# tools/install_check.sh [WORK]: installs fennelsim into a temporary prefix
# (`meson setup --prefix` + `meson install`) and runs examples from an empty
# directory outside the tree, with only the installed files: schedules,
# model files, the bundled trace and GOAL files come from the installed data
# directory, never from the source tree. WORK (default: a fresh temporary
# directory, removed at the end) holds build/, prefix/ and the scratch
# directory; a WORK kept from an earlier run is rebuilt incrementally.
# Prints "install check: N passed" or the failures; exit status 1 on any.
set -euo pipefail
cd "$(dirname "$0")/.."
if [ $# -ge 1 ]; then
  mkdir -p "$1"
  work=$(cd "$1" && pwd)
else
  work=$(mktemp -d)
  trap 'rm -rf "$work"' EXIT
fi
prefix=$work/prefix
[ -f "$work/build/build.ninja" ] ||
  meson setup "$work/build" --prefix="$prefix" -Dtests=disabled >"$work/setup.log"
meson compile -C "$work/build" >"$work/compile.log"
rm -rf "$prefix"
meson install -C "$work/build" --quiet >"$work/install.log"

export PATH="$prefix/bin:$PATH"
unset FENNELSIM_PATH
data=$prefix/share/fennelsim
rm -rf "$work/scratch" && mkdir "$work/scratch" && cd "$work/scratch"
passed=0 failed=0

# check NAME EXPECTED_STATUS EXPECTED_STDOUT_PREFIX -- COMMAND...: runs
# COMMAND, compares its exit status and the start of its output.
check() {
  local name=$1 want_status=$2 want_out=$3
  shift 4
  local status=0
  "$@" >out.txt 2>err.txt || status=$?
  if [ "$status" = "$want_status" ] && [ "$(head -c ${#want_out} out.txt)" = "$want_out" ]; then
    passed=$((passed + 1))
  else
    failed=$((failed + 1))
    echo "install check FAILED: $name: exit $status (want $want_status): $*" >&2
    head -5 out.txt err.txt >&2
  fi
}

[ "$(command -v fennelsim)" = "$prefix/bin/fennelsim" ] ||
  { echo "install check: fennelsim is not $prefix/bin/fennelsim" >&2; exit 1; }
check metropolis 0 "input      $data/schedules/allreduce-rd-8.dag (8 ranks" -- \
  fennelsim run allreduce-rd-8.dag --model metropolis-taulop
check sweep3d 0 "input      $data/traces/sweep3d-2x2 (4 ranks" -- \
  fennelsim run sweep3d-2x2 --model loggops
check gen 0 "" -- fennelsim gen allreduce-rd --ranks 8 --size 8B -o rd.dag
check generated 0 "input      rd.dag (8 ranks, 56 tasks" -- fennelsim run rd.dag
check goal 0 "input      $data/schedules/bcast-binomial-4.goal (4 ranks" -- \
  fennelsim run bcast-binomial-4.goal --model loggops
check platform 0 "input      $data/schedules/allreduce-rd-8.dag" -- \
  fennelsim run allreduce-rd-8.dag --model metropolis-taulop --platform platform-4x8-seq.xml
check model-file 0 "input      rd.dag" -- fennelsim run rd.dag --model metropolis-taulop.xml
# A missing name lists the installed data directory and not the source tree.
check missing 2 "" -- fennelsim run nope.dag
want="fennelsim: cannot find 'nope.dag' (looked in ., $data and their models/, schedules/, traces/)"
if [ "$(cat err.txt)" = "$want" ]; then passed=$((passed + 1)); else
  failed=$((failed + 1)); echo "install check FAILED: missing: got '$(cat err.txt)', want '$want'" >&2; fi
# FENNELSIM_PATH comes before the data directory.
mkdir -p mine/schedules && cp rd.dag mine/schedules/allreduce-rd-8.dag
check fennelsim-path 0 "input      mine/schedules/allreduce-rd-8.dag" -- \
  env FENNELSIM_PATH=mine fennelsim run allreduce-rd-8.dag
# The man pages render, without a warning of groff; the MPI programs are
# installed when built.
check man 0 "" -- man -l "$prefix/share/man/man1/fennelsim.1"
for page in "$prefix"/share/man/man*/*; do
  if [ -z "$(groff -man -Tutf8 -ww -z "$page" 2>&1)" ]; then passed=$((passed + 1)); else
    failed=$((failed + 1)); echo "install check FAILED: groff warns about $page:" >&2
    groff -man -Tutf8 -ww -z "$page" >&2 || true; fi
done
if [ -x "$work/build/tools/probe/fennelprobe" ]; then
  check fennelprobe-installed 0 "" -- test -x "$prefix/bin/fennelprobe"
  check fennelprobe-man 0 "" -- man -l "$prefix/share/man/man1/fennelprobe.1"
  check tracer-installed 0 "$prefix/" -- find "$prefix" -name libfenneltrace.so
fi
echo "install check: $passed passed, $failed failed"
[ "$failed" = 0 ]
