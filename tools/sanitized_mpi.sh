#!/usr/bin/env bash
# tools/sanitized_mpi.sh [DIR]: the code that runs inside MPI programs (the
# tracer, libfenneltrace.so, preloaded into an application; fennelprobe)
# under AddressSanitizer and UndefinedBehaviorSanitizer, which the
# sanitizer test tree leaves out (it is built without MPI). Builds just
# those targets in DIR (default build-sanitize-mpi), records
# tests/mpi/trace_program.c under `mpirun --oversubscribe -n 4` with the
# tracer preloaded after the sanitizer runtimes, runs `fennelprobe --quick`
# on one node and on two pretended ones, and fails on any report. Leak
# detection is off: Open MPI's own allocations would drown it.
set -euo pipefail
dir=${1:-build-sanitize-mpi}
cd "$(dirname "$0")/.."
[ -f "$dir/build.ninja" ] ||
  meson setup "$dir" -Dbuildtype=debug -Db_sanitize=address,undefined -Db_lundef=false -Dmpi=enabled
ninja -C "$dir" tools/tracer/libfenneltrace.so tools/tracer/trace_program tools/probe/fennelprobe
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
launch=(mpirun --oversubscribe -n 4)
[ "$(id -u)" -ne 0 ] || launch+=(--allow-run-as-root)
export ASAN_OPTIONS=detect_leaks=0:abort_on_error=1:verify_asan_link_order=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
runtimes="$(gcc -print-file-name=libasan.so) $(gcc -print-file-name=libubsan.so)"

check() { # check WHAT LOG: the run succeeded (set -e) and reported nothing
  if grep -q 'ERROR: AddressSanitizer\|runtime error' "$2"; then
    cat "$2"; echo "FAILED: $1 under the sanitizers" >&2; exit 1
  fi
  echo "ok: $1 under AddressSanitizer and UndefinedBehaviorSanitizer"
}

FENNELTRACE_DIR=$work/run "${launch[@]}" -x FENNELTRACE_DIR -x ASAN_OPTIONS -x UBSAN_OPTIONS \
  -x LD_PRELOAD="$runtimes $PWD/$dir/tools/tracer/libfenneltrace.so" \
  "$dir/tools/tracer/trace_program" "$work/results.txt" > "$work/trace.log" 2>&1 ||
  { cat "$work/trace.log"; echo "FAILED: trace_program under the tracer" >&2; exit 1; }
[ "$(ls "$work/run" | tr '\n' ' ')" = "rank-0.fstrace.gz rank-1.fstrace.gz rank-2.fstrace.gz rank-3.fstrace.gz " ] ||
  { ls "$work/run"; echo "FAILED: the tracer's files" >&2; exit 1; }
check "the tracer (4 ranks of trace_program)" "$work/trace.log"

(cd "$work" && "${launch[@]}" -x ASAN_OPTIONS -x UBSAN_OPTIONS "$OLDPWD/$dir/tools/probe/fennelprobe" \
  --quick -o p2p.csv --collectives coll.csv) > "$work/probe.log" 2>&1 ||
  { cat "$work/probe.log"; echo "FAILED: fennelprobe --quick" >&2; exit 1; }
check "fennelprobe --quick" "$work/probe.log"
(cd "$work" && "${launch[@]}" -x ASAN_OPTIONS -x UBSAN_OPTIONS "$OLDPWD/$dir/tools/probe/fennelprobe" \
  --quick --ranks-per-node 2 -o two.csv) > "$work/probe2.log" 2>&1 ||
  { cat "$work/probe2.log"; echo "FAILED: fennelprobe --quick --ranks-per-node 2" >&2; exit 1; }
check "fennelprobe --quick --ranks-per-node 2" "$work/probe2.log"
