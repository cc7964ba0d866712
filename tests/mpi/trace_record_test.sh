#!/usr/bin/env bash
# trace_record_test.sh LIBFENNELTRACE TRACE_PROGRAM MPIRUN [FENNELSIM]: the
# tracer records `mpirun --oversubscribe -n 4` of tests/mpi/trace_program.c
# (LD_PRELOAD, FENNELTRACE_DIR): four gzip files rank-N.fstrace.gz and no
# temporary one left, each starting with the header of docs/TRACES.md, ending
# with finalize and holding every kind of call the program makes; the
# program writes its ping-pong alpha and beta and per-rank wall times. A run
# whose trace directory cannot be made still succeeds (the tracer only
# warns). With FENNELSIM, the recorded run is replayed (see below).
# `trace_record_test.sh --skip`: reports the test as skipped (exit
# 77), for builds without MPI.
set -euo pipefail
if [ "${1:-}" = "--skip" ]; then
  echo "skipped: built without MPI (meson -Dmpi=disabled, or no Open MPI found;"
  echo "tools/setup.sh installs openmpi-bin and libopenmpi-dev)"
  exit 77
fi
library=$1 program=$2 mpirun=$3 fennelsim=${4:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
launch=("$mpirun" --oversubscribe -n 4)
[ "$(id -u)" -ne 0 ] || launch+=(--allow-run-as-root)
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

traces=$work/traces
if ! "${launch[@]}" -x LD_PRELOAD="$library" -x FENNELTRACE_DIR="$traces" "$program" "$work/results.txt" \
     > "$work/run.out" 2>&1; then
  cat "$work/run.out"
  echo "FAILED: the traced run"; exit 1
fi
echo "ok: mpirun -n 4 trace_program under the tracer"

# the program's own measurements
for key in alpha_ns beta_ps_per_byte wall_ns_rank0 wall_ns_rank1 wall_ns_rank2 wall_ns_rank3; do
  grep -Eq "^$key [0-9]+(\.[0-9]+)?$" "$work/results.txt" || fail "results.txt has no '$key N'"
done
cat "$work/results.txt"

# the files: four, whole, gzip, nothing else
[ "$(ls "$traces" | wc -l)" -eq 4 ] || fail "expected 4 files in the trace directory: $(ls "$traces")"
kinds="init finalize send ssend recv isend issend ibsend irsend irecv sendrecv sendrecv_replace probe iprobe
       wait waitall waitany waitsome test testall barrier bcast reduce allreduce gather scatter allgather alltoall
       reduce_scatter reduce_scatter_block scan exscan gatherv scatterv allgatherv alltoallv comm_split comm_dup comm_free comm"
for rank in 0 1 2 3; do
  file=$traces/rank-$rank.fstrace.gz
  if [ ! -f "$file" ] || ! gzip -t "$file" 2> /dev/null; then
    fail "$file: missing or not gzip"; continue
  fi
  gzip -dc "$file" > "$work/rank-$rank.txt"
  head -5 "$work/rank-$rank.txt" > "$work/head"
  sed -n 1p "$work/head" | grep -qx "# fennelsim-trace 1" || fail "rank $rank: line 1"
  sed -n 2p "$work/head" | grep -qx "rank $rank 4" || fail "rank $rank: line 2 is not 'rank $rank 4'"
  sed -n 3p "$work/head" | grep -Eqx "host [^ ]+" || fail "rank $rank: line 3 is not 'host NAME'"
  sed -n 4p "$work/head" | grep -Eqx "clock_offset_ns -?[0-9]+" || fail "rank $rank: line 4"
  [ "$rank" -ne 0 ] || sed -n 4p "$work/head" | grep -qx "clock_offset_ns 0" || fail "rank 0: offset not 0"
  sed -n 5p "$work/head" | grep -Eqx "init 0 [0-9]+" || fail "rank $rank: line 5 is not 'init 0 END'"
  tail -1 "$work/rank-$rank.txt" | grep -Eqx "finalize [0-9]+ [0-9]+" || fail "rank $rank: no finalize at the end"
  for kind in $kinds; do
    grep -q "^$kind " "$work/rank-$rank.txt" || fail "rank $rank: no '$kind' line"
  done
done
[ "$failures" -ne 0 ] || echo "ok: 4 gzip traces with the header, finalize, and every kind of call"

# statuses of completed wildcard receives are recorded
grep -Eq "^waitany .* status=[0-9]+:[0-9]+:21$" "$work/rank-0.txt" || fail "rank 0: no status= on a waitany"
grep -Eq "^recv .* peer=-1 tag=-1 .* source=1 stag=31$" "$work/rank-0.txt" || fail "rank 0: the wildcard recv"

# Persistent requests and nonblocking collectives (trace_program.c steps 5
# and 6, 3 times each). Per rank: every MPI_Start of the persistent ring
# send is an isend line to the right (3 starts x 3), received by ordinary
# recvs from the left; every start of the persistent receive an irecv line
# from the right, its status recorded by the waitall; the Startall of the
# two writes them back to back (the irecv starts where the isend ended);
# Ssend/Bsend/Rsend_init started are issend, ibsend, irsend lines. The
# nonblocking collectives are their collective's line with req=. Every
# request made is completed by a wait or test except the freed isend (tag
# 55), and none is one the tracer did not make (-2: before, every wait on a
# nonblocking collective's request).
completion='
function take(list, i, n, k, ids) { n = split(list, ids, ","); for (k = 1; k <= n; k++) done[ids[k]] = 1 }
function key(name, i) {
  for (i = 4; i <= NF; i++) if (index($i, name "=") == 1) return substr($i, length(name) + 2)
  return ""
}
$1 ~ /^(wait|test|waitall|testall|waitany|testany|waitsome|testsome)$/ {
  if ($1 ~ /^test/ && key("flag") == "0") next
  if ($1 == "wait" || $1 == "test") take(key("req"))
  else if ($1 ~ /all$/) take(key("reqs"))
  else if ($1 ~ /any$/) { split(key("reqs"), ids, ","); if (key("index") + 0 >= 0) done[ids[key("index") + 1]] = 1 }
  else take(key("done"))
  n = split(key("status"), entries, ",")
  for (k = 1; k <= n; k++) { split(entries[k], part, ":"); status[part[1]] = part[2] ":" part[3] }
  next
}
key("req") != "" { made[key("req")] = $1 (key("tag") == "" ? "" : " tag=" key("tag")) }
END {
  for (id in made) if (!(id in done)) print "not completed: " made[id]
  for (id in made) if (made[id] == "irecv tag=51") print "irecv tag=51 status " status[id]
}'
for rank in 0 1 2 3; do
  file=$work/rank-$rank.txt right=$(( (rank + 1) % 4 )) left=$(( (rank + 3) % 4 ))
  lines() { grep -Ec "$1" "$file" || true; }
  expect_lines() { # COUNT REGEX WHAT
    [ "$(lines "$2")" -eq "$1" ] || fail "rank $rank: $(lines "$2") $3 lines, expected $1"
  }
  expect_lines 9 "^isend [0-9]+ [0-9]+ peer=$right tag=50 comm=0 bytes=4 req=[0-9]+$" "persistent-send isend"
  expect_lines 9 "^recv [0-9]+ [0-9]+ peer=$left tag=50 comm=0 bytes=4 source=$left stag=50$" "ordinary recv"
  expect_lines 9 "^irecv [0-9]+ [0-9]+ peer=$right tag=51 comm=0 bytes=4 req=[0-9]+$" "persistent-recv irecv"
  expect_lines 9 "^send [0-9]+ [0-9]+ peer=$left tag=51 comm=0 bytes=4$" "ordinary send"
  expect_lines 3 "^issend [0-9]+ [0-9]+ peer=$right tag=52 comm=0 bytes=4 req=[0-9]+$" "issend"
  expect_lines 3 "^ibsend [0-9]+ [0-9]+ peer=$right tag=53 comm=0 bytes=4 req=[0-9]+$" "ibsend"
  expect_lines 3 "^irsend [0-9]+ [0-9]+ peer=$right tag=54 comm=0 bytes=4 req=[0-9]+$" "irsend"
  expect_lines 3 "^allreduce [0-9]+ [0-9]+ comm=0 bytes=4 rbytes=4 req=[0-9]+$" "iallreduce"
  expect_lines 3 "^barrier [0-9]+ [0-9]+ comm=0 req=[0-9]+$" "ibarrier"
  received=$([ "$rank" -eq 3 ] && echo 0 || echo 4) # the root, 3, receives nothing
  expect_lines 3 "^bcast [0-9]+ [0-9]+ comm=0 root=3 bytes=4 rbytes=$received req=[0-9]+$" "ibcast"
  for kind in reduce gather scatter allgather alltoall reduce_scatter reduce_scatter_block scan exscan gatherv scatterv \
              allgatherv alltoallv; do
    expect_lines 3 "^$kind [0-9]+ [0-9]+ comm=0 .* req=[0-9]+$" "i$kind"
  done
  startall=$(awk '$1 == "isend" && / tag=50 / { end = $3; next } $1 == "irecv" && / tag=51 / && $2 == end { n++ } { end = -1 }
                  END { print n + 0 }' "$file")
  [ "$startall" -ge 6 ] || fail "rank $rank: $startall Startall isend/irecv pairs back to back, expected 6 or more"
  awk "$completion" "$file" | sort | uniq -c | sed 's/^ *//' > "$work/completion"
  printf '9 irecv tag=51 status %s:51\n3 not completed: isend tag=55\n' "$right" | diff - "$work/completion" > /dev/null ||
    fail "rank $rank: requests completed: $(cat "$work/completion")"
  ! grep -Eq "(req=|reqs=([0-9-]+,)*)-2( |,|$)" "$file" || fail "rank $rank: a request the tracer did not make (-2)"
done
[ "$failures" -ne 0 ] || echo "ok: persistent requests and nonblocking collectives recorded as isend/irecv and req= lines"

# a trace directory that cannot be made: the program still runs, no trace
if "${launch[@]}" -x LD_PRELOAD="$library" -x FENNELTRACE_DIR=/proc/no/such/dir "$program" "$work/again.txt" \
     > "$work/again.out" 2>&1 && grep -q "fenneltrace: rank 0: cannot write" "$work/again.out"; then
  echo "ok: an unwritable trace directory only warns"
else
  cat "$work/again.out"; fail "a run with an unwritable trace directory"
fi

# Replay: the recorded run under hockney with the alpha and beta the program
# measured by ping-pong, against its measured times (reported, not asserted:
# 4 ranks share 2 cores on CI, and time-sharing counts as MPI time), then
# "what if": a network twice as fast, recursive multiplying for the
# allreduce, a CPU twice as fast, round-robin mapping under taulop; and the
# replayed program written as .dag replays the same.
if [ -n "$fennelsim" ]; then
  alpha=$(awk '$1 == "alpha_ns" { print $2 }' "$work/results.txt")
  beta=$(awk '$1 == "beta_ps_per_byte" { printf "%.6f", $2 / 1000 }' "$work/results.txt")
  makespan() { sed -n 's/.*"makespan_ns": \([0-9.]*\),.*/\1/p' "$1"; }
  replay() { # replay NAME ARGS...: runs fennelsim on the trace, json into $work/NAME.json
    local name=$1; shift
    # a deadlock (messages that never match) exits 1: it fails here
    if "$fennelsim" run "$traces" "$@" --format json > "$work/$name.json" 2> "$work/$name.err"; then
      echo "ok: replay $name: makespan $(makespan "$work/$name.json") ns"
    else
      cat "$work/$name.err"; fail "replay $name ($*)"
    fi
  }
  replay measured --model hockney --param "alpha=${alpha}ns" --param "beta=${beta}ns"
  "$fennelsim" run "$traces" --model hockney --param "alpha=${alpha}ns" --param "beta=${beta}ns" |
    sed -n '/^replay:/,$p'
  for rank in 0 1 2 3; do
    measured=$(awk -v k="wall_ns_rank$rank" '$1 == k { print $2 }' "$work/results.txt")
    simulated=$(sed 's/.*"ranks": \[//' "$work/measured.json" | tr '{' '\n' |
                sed -n "s/^\"rank\": $rank, .*\"simulated_ns\": \([0-9.]*\),.*/\1/p")
    awk -v r="$rank" -v m="$measured" -v s="$simulated" \
      'BEGIN { printf "rank %d: measured by the program %.0f ns, replayed %.0f ns (%+.1f%%)\n", r, m, s, 100 * (s - m) / m }'
  done
  replay faster-network --model hockney --param "alpha=$(awk -v a="$alpha" 'BEGIN { print a / 2 }')ns" \
    --param "beta=$(awk -v b="$beta" 'BEGIN { printf "%.6f", b / 2 }')ns"
  awk -v a="$(makespan "$work/faster-network.json")" -v b="$(makespan "$work/measured.json")" 'BEGIN { exit !(a <= b) }' ||
    fail "a network twice as fast made the replay slower"
  replay allreduce-rm --model hockney --param "alpha=${alpha}ns" --param "beta=${beta}ns" --algo allreduce=rm:auto
  grep -q '"algorithms": \[[^]]*"allreduce=allreduce-rm' "$work/allreduce-rm.json" || fail "--algo allreduce=rm:auto not used"
  replay faster-cpu --model hockney --param "alpha=${alpha}ns" --param "beta=${beta}ns" --compute-scale 0.5
  replay round-robin --model "$(cd "$(dirname "$0")/../.." && pwd)/models/metropolis-taulop.xml" \
    --nodes 2 --cores 2 --mapping rr
  "$fennelsim" convert "$traces" "$work/replayed.dag.gz" 2> "$work/convert.err" || { cat "$work/convert.err"; fail "convert"; }
  if "$fennelsim" run "$work/replayed.dag.gz" --model hockney --param "alpha=${alpha}ns" --param "beta=${beta}ns" \
       --format json > "$work/dag.json"; then
    [ "$(makespan "$work/dag.json")" = "$(makespan "$work/measured.json")" ] ||
      fail "the converted .dag replays differently: $(makespan "$work/dag.json") ns"
  else
    fail "run of the converted .dag"
  fi
fi

[ "$failures" -eq 0 ] || { echo "$failures checks failed"; exit 1; }
