#!/usr/bin/env bash
# study_mpi_test.sh FENNELSIM MPIRUN SOURCE_ROOT: a study split over
# `mpirun --oversubscribe -n 3` prints exactly what one process prints (the
# JSON statistics, once the wall-clock members are removed) and writes the
# same samples CSV and histogram SVG byte for byte; a failure on some
# processes stops them all; shards merged by `fennelsim merge` give the
# same statistics too. `study_mpi_test.sh --skip`: reports the test as
# skipped (exit 77), for builds without MPI.
set -euo pipefail
if [ "${1:-}" = "--skip" ]; then
  echo "skipped: fennelsim was built without MPI (meson -Dmpi=disabled, or no Open MPI found;"
  echo "tools/setup.sh installs openmpi-bin and libopenmpi-dev)"
  exit 77
fi
fennelsim=$1 mpirun=$2 root=$3
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
launch=("$mpirun" --oversubscribe -n 3)
[ "$(id -u)" -ne 0 ] || launch+=(--allow-run-as-root)
failures=0

# The wall-clock members (wall_s, load_s, samples_per_s, ...: names ending in
# _s) and the thread count differ from run to run; all else must not.
strip_wall() { sed -E 's/"[a-z_]*_s": [-+.0-9eE]+(, )?//g; s/"threads": [0-9]+(, )?//g; s/, \}/}/g'; }

check() { # check WHAT EXPECTED_FILE ACTUAL_FILE
  if cmp -s "$2" "$3"; then
    echo "ok: $1"
  else
    echo "FAILED: $1"; diff "$2" "$3" | head -20; failures=$((failures + 1))
  fi
}

"$fennelsim" gen allreduce-rd --ranks 8 --size 8B -o "$work/rd.dag"
for seeds in 2 30; do # the last leaves the 30-seed single.csv for the shards below
  study=("$work/rd.dag" --model pipelined --noise net=lognormal:sigma=0.2 --seeds "$seeds" --seed 7
         --format json)
  "$fennelsim" run "${study[@]}" --samples "$work/single.csv" --histogram "$work/single.svg" \
    > "$work/single.json"
  "${launch[@]}" "$fennelsim" run "${study[@]}" --samples "$work/mpi.csv" --histogram "$work/mpi.svg" \
    > "$work/mpi.json"
  strip_wall < "$work/single.json" > "$work/single.stats"
  strip_wall < "$work/mpi.json" > "$work/mpi.stats"
  check "$seeds seeds: mpirun -n 3 prints the statistics of one process" \
    "$work/single.stats" "$work/mpi.stats"
  check "$seeds seeds: mpirun -n 3 writes the samples of one process" \
    "$work/single.csv" "$work/mpi.csv"
  check "$seeds seeds: mpirun -n 3 draws the histogram of one process" \
    "$work/single.svg" "$work/mpi.svg"
  [ "$(wc -l < "$work/mpi.csv")" -eq $((seeds + 1)) ] || { echo "FAILED: rows"; failures=$((failures + 1)); }
done

# A failure on some processes (a deadlock at every seed; process 2 has none of
# the 2 seeds): no process waits forever, no report, process 0 counts them.
if "${launch[@]}" "$fennelsim" run "$root/tests/goal/unmatched.goal" --model loggops --seeds 2 \
     > "$work/failed.out" 2> "$work/failed.err"; then
  echo "FAILED: a deadlocked study under mpirun exited with 0"; failures=$((failures + 1))
elif [ -s "$work/failed.out" ] || ! grep -q "^fennelsim: the study failed on 2 of 3 MPI processes$" \
       "$work/failed.err" || [ "$(grep -c "^fennelsim: seed [12]: deadlock" "$work/failed.err")" -ne 2 ]; then
  echo "FAILED: a deadlocked study under mpirun"; cat "$work/failed.out" "$work/failed.err"
  failures=$((failures + 1))
else
  echo "ok: a study failing on 2 of 3 processes stops with an error"
fi

# Three shards, merged: the whole study again.
study=("$work/rd.dag" --model pipelined --noise net=lognormal:sigma=0.2 --seeds 30 --seed 7)
"$fennelsim" run "${study[@]}" --shard 0/3 --samples "$work/part0.csv" > /dev/null
"$fennelsim" run "${study[@]}" --shard 1/3 --samples "$work/part1.csv" > /dev/null
"$fennelsim" run "${study[@]}" --shard 2/3 --samples "$work/part2.csv" > /dev/null
"$fennelsim" merge "$work/part2.csv" "$work/part0.csv" "$work/part1.csv" --format json \
  --samples "$work/merged.csv" > "$work/merged.json"
"$fennelsim" merge "$work/single.csv" --format json > "$work/whole.json"
check "3 shards merged: the samples of the whole study" "$work/single.csv" "$work/merged.csv"
sed -E 's/^\{"merged": \[[^]]*\], //' "$work/merged.json" > "$work/merged.stats"
sed -E 's/^\{"merged": \[[^]]*\], //' "$work/whole.json" > "$work/whole.stats"
check "3 shards merged: the statistics of the whole study" "$work/whole.stats" "$work/merged.stats"

[ "$failures" -eq 0 ] || { echo "$failures checks failed"; exit 1; }
