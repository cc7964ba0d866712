#!/usr/bin/env bash
# probe_test.sh FENNELPROBE MPIRUN [FENNELSIM]: `mpirun --oversubscribe -n 4
# fennelprobe --quick -o p2p.csv --collectives coll.csv` on this machine
# finishes within 60 s and writes the two CSVs of docs/PROBE.md: the header
# and column lines, every experiment of src/fit/probe_data.h with the rows
# the options ask for, well-formed numbers with min <= median and min <=
# mean, nothing but the two files; the same rows (not times) on a rerun;
# usage and output errors with their exact messages; one rank measures what
# one rank can. `probe_test.sh --skip`: reports the test as skipped (exit
# 77), for builds without MPI.
set -euo pipefail
if [ "${1:-}" = "--skip" ]; then
  echo "skipped: built without MPI (meson -Dmpi=disabled, or no Open MPI found;"
  echo "tools/setup.sh installs openmpi-bin and libopenmpi-dev)"
  exit 77
fi
probe=$1 mpirun=$2 fennelsim=${3:-}
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
launch=("$mpirun" --oversubscribe)
[ "$(id -u)" -ne 0 ] || launch+=(--allow-run-as-root)
failures=0
fail() { echo "FAILED: $*"; failures=$((failures + 1)); }

# ---- the quick run ----
mkdir "$work/out"
start=$(date +%s%N)
if ! (cd "$work/out" && "${launch[@]}" -n 4 "$probe" --quick -o p2p.csv --collectives coll.csv) \
     > "$work/run.out" 2> "$work/run.err"; then
  cat "$work/run.out" "$work/run.err"
  echo "FAILED: the quick run"; exit 1
fi
elapsed_ms=$(( ($(date +%s%N) - start) / 1000000 ))
echo "ok: mpirun -n 4 fennelprobe --quick in $elapsed_ms ms"
[ "$elapsed_ms" -lt 60000 ] || fail "the quick run took $elapsed_ms ms (>= 60 s)"
cat "$work/run.err"
[ "$(ls "$work/out" | tr '\n' ' ')" = "coll.csv coll.csv.meta p2p.csv p2p.csv.meta " ] ||
  fail "files left: $(ls "$work/out")"
# the CSVs are plain (pandas reads them without options): no '#' line, the
# column line first; their metadata lines are in FILE.meta. The checks below
# read the two put together as the '#' form (stdout's, and files before
# issue 16), which fit and validate read too.
legacy() { sed 's/^/# /' "$1.meta"; cat "$1"; }
for file in "$work/out/p2p.csv" "$work/out/coll.csv"; do
  grep -q '^#' "$file" && fail "$file: a '#' line"
done
legacy "$work/out/p2p.csv" > "$work/p2p-view.csv"
legacy "$work/out/coll.csv" > "$work/coll-view.csv"
p2p=$work/p2p-view.csv coll=$work/coll-view.csv

# the header, the comments, the column line
sed -n 1p "$p2p" | grep -Eqx '# fennelprobe 1 ranks=4 nodes=[0-9]+ cores=[0-9]+ host=[^ ]+ date=[0-9T:Z-]+' ||
  fail "p2p line 1: $(sed -n 1p "$p2p")"
sed -n 1p "$coll" | grep -Eqx '# fennelprobe-collectives 1 ranks=4 nodes=[0-9]+ cores=[0-9]+ host=[^ ]+' ||
  fail "coll line 1: $(sed -n 1p "$coll")"
for file in "$p2p" "$coll"; do
  grep -q '^# options: ci=0.025 min_reps=5 max_reps=50 warmup=2 pairs=all$' "$file" || fail "$file: no options line"
  grep -Eq '^# node 0 host=[^ ]+ ranks=0' "$file" || fail "$file: no '# node 0' line"
done
columns='experiment,placement,bytes,reply_bytes,stride,block,count,rank_a,rank_b,rank_c,repetitions,min_ns,median_ns,mean_ns,ci95_ns'
[ "$(grep -v '^#' "$p2p" | head -1)" = "$columns" ] || fail "p2p: the column line"
[ "$(grep -v '^#' "$coll" | head -1)" = "collective,algorithm,ranks,bytes,repetitions,min_ns,median_ns,mean_ns,ci95_ns" ] ||
  fail "coll: the column line"
grep -v '^#' "$p2p" | tail -n +2 > "$work/rows"
grep -v '^#' "$coll" | tail -n +2 > "$work/coll-rows"
cp "$p2p" "$work/p2p-4.csv"; cp "$coll" "$work/coll-4.csv" # for fit and validate (later runs overwrite)

# numbers: integers, times with 1 to 3 decimals, 5..50 repetitions, min <= median, min <= mean
awk -F, -v columns=15 -v first_time=12 '
  { bad = NF != columns
    for (i = 3; i < first_time; i++) if ($i !~ /^-?[0-9]+$/) bad = 1
    for (i = first_time; i <= NF; i++) if ($i !~ /^[0-9]+\.[0-9]([0-9]([0-9])?)?$/) bad = 1
    if ($11 < 5 || $11 > 50 || $12 + 0 > $13 + 0 || $12 + 0 > $14 + 0) bad = 1
    if (bad) { print "bad row " NR ": " $0; status = 1 } }
  END { exit status }' "$work/rows" || fail "p2p: malformed rows"
awk -F, '
  { bad = NF != 9 || $2 != "" || $3 != 4 || $4 !~ /^[0-9]+$/
    for (i = 6; i <= 9; i++) if ($i !~ /^[0-9]+\.[0-9]([0-9]([0-9])?)?$/) bad = 1
    if ($5 < 5 || $5 > 50 || $6 + 0 > $7 + 0 || $6 + 0 > $8 + 0) bad = 1
    if (bad) { print "bad row " NR ": " $0; status = 1 } }
  END { exit status }' "$work/coll-rows" || fail "coll: malformed rows"

# every experiment, with the rows the options ask for (4 ranks on 1 or 2 nodes)
count() { awk -F, "$1" "$work/rows" | wc -l; }
expect() { # expect WHAT N AWK-CONDITION
  local got; got=$(count "$3")
  [ "$got" -eq "$2" ] || fail "$1: $got rows, expected $2"
}
for e in memcpy roundtrip ssend send_call train multicast one_to_two ring; do
  grep -q "^$e," "$work/rows" || fail "no $e row"
done
cores=$(sed -n '1s/.* cores=\([0-9]*\) .*/\1/p' "$p2p")
expect "memcpy" 4 '$1 == "memcpy" && $8 == 0 && $9 == -1'
expect "send-to-self" 4 '$1 == "roundtrip" && $8 == 0 && $9 == 0 && $5 == 0 && $3 == $4'
expect "roundtrips M/M over the 6 pairs" 24 '$1 == "roundtrip" && $8 < $9 && $5 == 0 && $3 == $4'
expect "roundtrips M/0 over the 6 pairs" 18 '$1 == "roundtrip" && $8 < $9 && $4 == 0 && $3 > 0'
expect "strided send-to-self (1 KiB, 64 KiB)" 2 '$1 == "roundtrip" && $8 == $9 && $5 == 16 && $6 == 8'
for length in 1 2 4 8 16; do
  [ "$(count "\$1 == \"train\" && \$7 == $length")" -ge 4 ] || fail "no train of $length"
done
for width in 1 2 3; do
  expect "multicast of width $width" 4 "\$1 == \"multicast\" && \$7 == $width"
done
expect "one_to_two: 4 triplets x 3 roots x 3 sizes" 36 '$1 == "one_to_two" && $4 == 0 && $10 >= 0'
for tau in $(seq 1 "$cores"); do
  expect "ring shm of tau $tau" 4 "\$1 == \"ring\" && \$2 == \"shm\" && \$3 == \$4 && \$7 == $tau"
done
if grep -q 'nodes=1 ' "$p2p"; then
  grep -qx '# ring net: skipped, it needs 2 nodes (found 1)' "$p2p" || fail "no comment for the missing ring net"
fi
for c in bcast reduce allreduce gather scatter allgather alltoall; do
  [ "$(awk -F, -v c="$c" '$1 == c { printf "%s ", $4 }' "$work/coll-rows")" = "8 1024 65536 " ] ||
    fail "coll: $c is not at 8, 1024 and 65536 B"
done
grep -q '^barrier,,4,0,' "$work/coll-rows" || fail "coll: no barrier"
[ "$failures" -ne 0 ] || echo "ok: $(wc -l < "$work/rows") point-to-point rows, $(wc -l < "$work/coll-rows") collective rows"

# the same rows in the same order with other repetition counts
(cd "$work/out" && "${launch[@]}" -n 4 "$probe" --quick --min-reps 1 --max-reps 2 --warmup 0 -o again.csv) \
  > /dev/null 2>&1 || fail "the rerun"
keys() { grep -v '^#' "$1" | cut -d, -f1-10; }
[ "$(keys "$p2p")" = "$(keys "$work/out/again.csv")" ] || fail "a rerun measured other rows"

# two nodes pretended (--ranks-per-node 2): net rows, the ring across nodes
(cd "$work/out" && "${launch[@]}" -n 4 "$probe" --quick --ranks-per-node 2 --max-reps 5 -o two.csv) \
  > "$work/two.out" 2>&1 || { cat "$work/two.out"; fail "--ranks-per-node 2"; }
legacy "$work/out/two.csv" > "$work/two-view.csv"
two=$work/two-view.csv
sed -n 1p "$two" | grep -q ' ranks=4 nodes=2 cores=2 ' || fail "two nodes: line 1: $(sed -n 1p "$two")"
grep -q '^# options: .* ranks_per_node=2$' "$two" || fail "two nodes: the options line"
grep -qx '# node 1 host=[^ ]* ranks=2-3' "$two" || fail "two nodes: no '# node 1' line"
for tau in 1 2; do
  [ "$(awk -F, -v tau="$tau" '$1 == "ring" && $2 == "net" && $3 == $4 && $7 == tau && $8 == 0 && $9 == 2' "$two" | wc -l)" -eq 4 ] ||
    fail "two nodes: no ring net of tau $tau"
done
for e in ssend send_call train; do
  grep -q "^$e,net,.*,0,2,-1," "$two" || fail "two nodes: no $e between ranks 0 and 2"
  grep -q "^$e,shm,.*,0,1,-1," "$two" || fail "two nodes: no $e between ranks 0 and 1"
done
grep -q '^roundtrip,net,65536,65536,0,0,1,1,3,-1,' "$two" || fail "two nodes: no roundtrip net 1-3"
grep -q '^roundtrip,net,65536,65536,16,8,1,0,2,-1,' "$two" || fail "two nodes: no strided roundtrip net"
grep -q '^multicast,shm,8,0,0,0,1,0,' "$two" && grep -q '^multicast,net,8,0,0,0,2,0,' "$two" ||
  fail "two nodes: multicast placements"
grep -q '^# ring net' "$two" && fail "two nodes: the ring net was skipped"

# one rank (a singleton): what needs no partner, and comments for the rest;
# stdout by default
if "$probe" --quick --collectives "$work/one-coll.csv" > "$work/one.csv" 2> "$work/one.err"; then
  [ "$(grep -v '^#' "$work/one.csv" | tail -n +2 | cut -d, -f1 | sort -u | tr '\n' ' ')" = "memcpy ring roundtrip " ] ||
    fail "one rank: experiments $(grep -v '^#' "$work/one.csv" | cut -d, -f1 | sort -u | tr '\n' ' ')"
  grep -qx '# roundtrip between ranks, ssend, send_call, train, multicast: skipped, they need 2 ranks' "$work/one.csv" ||
    fail "one rank: no comment for the skipped experiments"
  grep -qx '# one_to_two: skipped, it needs 3 ranks' "$work/one.csv" || fail "one rank: no one_to_two comment"
  grep -q '^allreduce,,1,65536,' "$work/one-coll.csv" || fail "one rank: no allreduce"
else
  cat "$work/one.err"; fail "the run on one rank"
fi

# --experiments none: the collectives alone
(cd "$work/out" && rm -f coll.csv && "${launch[@]}" -n 2 "$probe" --quick --experiments none --collectives coll.csv \
  > "$work/none.out" 2> "$work/none.err") || fail "--experiments none"
[ -s "$work/out/coll.csv" ] || fail "--experiments none: no collectives file"
[ ! -s "$work/none.out" ] || fail "--experiments none: wrote point-to-point rows to stdout"

# errors: usage (status 2) and an output that cannot be written (status 1),
# run as singletons (a failing mpirun takes 2 s to wind down), and once under
# mpirun, where every rank stops alike
expect_error() { # expect_error STATUS MESSAGE ARGS...
  local status=$1 message=$2; shift 2
  local got=0
  "$probe" "$@" > "$work/error.out" 2> "$work/error.err" || got=$?
  [ "$got" -eq "$status" ] || fail "fennelprobe $*: status $got, expected $status"
  grep -qxF "$message" "$work/error.err" || { cat "$work/error.err"; fail "fennelprobe $*: no message '$message'"; }
}
expect_error 2 "fennelprobe: --ci: expected a fraction between 0 and 1 (0.025), got '2'" --ci 2
expect_error 2 "fennelprobe: --sizes: expected a comma-separated list of up to 64 sizes from 0 to 1GiB (0,8,1KiB), got '8,x'" --sizes 8,x
expect_error 2 "fennelprobe: --sizes: expected a comma-separated list of up to 64 sizes from 0 to 1GiB (0,8,1KiB), got '2GiB'" --sizes 2GiB
expect_error 2 "fennelprobe: --max-size: expected a size from 0 to 1GiB (4MiB), got '-1'" --max-size -1
expect_error 2 "fennelprobe: --experiments: expected none or names from memcpy, roundtrip, ssend, send_call, train, multicast, one_to_two, ring, got 'roundtrip,pingpong'" --experiments roundtrip,pingpong
expect_error 2 "fennelprobe: --pairs: expected all or first, got 'some'" --pairs some
expect_error 2 "fennelprobe: --min-reps: expected a whole number from 1 to 100000, got '0'" --min-reps 0
expect_error 2 "fennelprobe: --max-reps: expected at least --min-reps, got '10'" --max-reps 10
expect_error 2 "fennelprobe: --warmup: expected a whole number from 0 to 1000, got 'x'" --warmup x
expect_error 2 "fennelprobe: --bogus: expected an option of --help" --bogus
expect_error 2 "fennelprobe: -o: expected a value after it" -o
expect_error 1 "fennelprobe: $work/no/such/dir/p2p.csv: cannot create: No such file or directory" \
  --quick -o "$work/no/such/dir/p2p.csv"
"$probe" --help | grep -q '^usage: mpirun -n P fennelprobe' || fail "--help"
status=0
"${launch[@]}" -n 3 "$probe" --pairs some > "$work/error.out" 2> "$work/error.err" || status=$?
[ "$status" -eq 2 ] && [ "$(grep -c '^fennelprobe: --pairs' "$work/error.err")" -eq 1 ] ||
  fail "mpirun -n 3 fennelprobe --pairs some: status $status, $(cat "$work/error.err")"
[ "$failures" -ne 0 ] || echo "ok: the error messages"

# fit and validate: every model fitted to this machine's quick run (the fit
# itself must succeed and write a model file `fennelsim run` takes), then the
# collectives predicted under the hockney and loggops fits and compared with
# their measured times: the table is printed, its accuracy not asserted (a
# shared CI machine, 4 ranks on 2 cores)
"$fennelsim" gen allreduce-rd --ranks 4 --size 1KiB -o "$work/allreduce.dag" || fail "gen allreduce-rd"
for model in hockney hetero-hockney pipelined loggops taulop lognp lmo; do
  if ! "$fennelsim" fit "$work/p2p-4.csv" --model "$model" -o "$work/$model.xml" > "$work/fit-$model.txt" 2>&1; then
    cat "$work/fit-$model.txt"; fail "fennelsim fit --model $model"; continue
  fi
  grep -q "^model: *$model$" "$work/fit-$model.txt" || fail "fit $model: no model line"
  makespan=$("$fennelsim" run "$work/allreduce.dag" --model "$work/$model.xml" | sed -n 's/^makespan *//p')
  [ -n "$makespan" ] || fail "run under the fitted $model.xml"
  echo "ok: fit --model $model: allreduce-rd 4 ranks 1 KiB under $model.xml: $makespan"
done
sed -n '/^parameters:/,/^notes:/p' "$work/fit-hockney.txt" "$work/fit-loggops.txt"
for model in hockney loggops; do
  if "$fennelsim" validate "$work/coll-4.csv" --model "$work/$model.xml" --median -o "$work/validate-$model.csv" \
       > "$work/validate-$model.txt" 2>&1; then
    rows=$(grep -cE '^(barrier|bcast|reduce|allreduce|gather|scatter|allgather|alltoall) ' "$work/validate-$model.txt")
    best=$(grep -c ' best$' "$work/validate-$model.txt")
    [ "$best" -eq "$(wc -l < "$work/coll-rows")" ] || fail "validate $model: $best best lines for $(wc -l < "$work/coll-rows") rows"
    echo "ok: validate --model $model.xml --median: $rows predictions, the best algorithm of each measured row:"
    grep ' best$' "$work/validate-$model.txt"
    grep -A20 '^summary' "$work/validate-$model.txt" || true
  else
    cat "$work/validate-$model.txt"; fail "fennelsim validate --model $model.xml"
  fi
done

[ "$failures" -eq 0 ] || { echo "$failures checks failed"; exit 1; }
