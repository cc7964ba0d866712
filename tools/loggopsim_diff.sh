#!/usr/bin/env bash
# tools/loggopsim_diff.sh: runs LogGOPSim and fennelsim's loggops model on
# the same GOAL schedules (schedgen's patterns x ranks x sizes x parameter
# sets) and prints every case whose per-rank finish times differ. This is
# how tests/goal/matrix (the GOAL files and LogGOPSim's times) was made; CI
# does not need it, a session checking the model against LogGOPSim does.
#
# Usage: tools/loggopsim_diff.sh LOGGOPSIM_CHECKOUT [FENNELSIM] [OUT_DIR]
#   LOGGOPSIM_CHECKOUT  a clone of github.com/spcl/LogGOPSim
#   FENNELSIM           the fennelsim binary (default build/fennelsim)
#   OUT_DIR             where the tools, the GOAL files (goal/NAME.goal.gz)
#                       and the table (loggopsim.txt) go (default a new
#                       temporary directory)
# Needs g++, gengetopt, re2c and libgraphviz-dev (Debian names). LogGOPSim is
# built from a copy with two local changes: its newly ready operations are
# sorted stably (std::stable_sort: its std::sort reorders 17 or more ready
# operations), and every host's time is printed (not only the maximum above
# 16 hosts). Table lines: FILE PARAMS T0 T1 ... (ns, rank order); PARAMS
# names a set below. Cases with 0-byte messages are marked `zero`: LogGOPSim
# charges them (0-1)G, an unsigned wrap (fennelsim charges nothing).
set -euo pipefail
checkout=${1:?usage: tools/loggopsim_diff.sh LOGGOPSIM_CHECKOUT [FENNELSIM] [OUT_DIR]}
fennelsim=${2:-build/fennelsim}
out=${3:-$(mktemp -d)}
mkdir -p "$out/src" "$out/bin" "$out/goal"

# parameter sets: name, LogGOPSim flags, fennelsim --param values
sets=(
  "defaults|-L 2500 -o 1500 -g 1000 -G 6 -O 0 -S 65535|L=2500 o=1500 g=1000 G=6ns O=0 S=65535"
  "small|-L 1000 -o 200 -g 100 -G 1 -O 0 -S 4096|L=1000 o=200 g=100 G=1ns O=0 S=4096"
  "gap|-L 3000 -o 500 -g 2000 -G 2 -O 1 -S 512|L=3000 o=500 g=2000 G=2ns O=1ns S=512"
  "overhead|-L 500 -o 1000 -g 50 -G 1 -O 3 -S 100000|L=500 o=1000 g=50 G=1ns O=3ns S=100000"
)
patterns=(binomialtreereduce binarytreebcast binomialtreebcast nwaydissemination pipelinedring
          pipelinedringdep doublering gather scatter linbarrier dissemination random_bisect
          random_bisect_fd_sym linear_alltoall linear_alltoallv allreduce_recdoub allreduce_ring
          resnet chained_dissem)
ranks=(7 16 33)
sizes=(1 1000 100000)

build_tools() {
  local s="$out/src"
  cp -r "$checkout/src/LogGOPSim" "$checkout/src/Schedgen" "$s/"
  sed -i 's/std::sort(free_ops.begin(), free_ops.end(), gnp_op_comp_func());/std::stable_sort(free_ops.begin(), free_ops.end(), gnp_op_comp_func());/;
          s/if(p <= 16 \&\& !args_info.batchmode_given)/if(!args_info.batchmode_given)/' \
    "$s/LogGOPSim/LogGOPSim.cpp"
  (cd "$out/bin" &&
   gengetopt -i "$s/LogGOPSim/loggopsim_cmdline.ggo" -F loggopsim_cmdline &&
   gengetopt -i "$s/LogGOPSim/txt2bin_cmdline.ggo" -F txt2bin_cmdline &&
   gengetopt -i "$s/Schedgen/schedgen_cmdline.ggo" -F schedgen_cmdline &&
   re2c -o txt2bin.cpp "$s/LogGOPSim/txt2bin.re" &&
   # shellcheck disable=SC2046
   g++ -O2 -w -I. -I"$s/LogGOPSim" -o LogGOPSim "$s/LogGOPSim/LogGOPSim.cpp" loggopsim_cmdline.c \
     $(pkg-config --cflags --libs libcgraph) &&
   g++ -O2 -w -I. -I"$s/LogGOPSim" -o txt2bin txt2bin.cpp txt2bin_cmdline.c &&
   g++ -O2 -w -I. -I"$s/Schedgen" -o schedgen "$s/Schedgen/buffer_element.cpp" \
     "$s/Schedgen/schedgen.cpp" "$s/Schedgen/process_trace.cpp" schedgen_cmdline.c) >/dev/null
}

# schedgen NAME PATTERN RANKS SIZE: writes goal/NAME.goal.gz. Pipelined
# patterns get 10 segments; the n-way dissemination fans out to 2.
generate() {
  local name=$1 pattern=$2 n=$3 d=$4 extra=()
  case $pattern in
    pipelinedring*) extra=(--segmentsize $(((d + 9) / 10))) ;;
    nwaydissemination) extra=(--nway 2) ;;
  esac
  "$out/bin/schedgen" -p "$pattern" -s "$n" -d "$d" "${extra[@]}" -o "$out/goal/$name.goal" >/dev/null
  gzip -9nf "$out/goal/$name.goal"
}

loggopsim_times() { # FILE FLAGS: the per-host times, or nothing (it may crash)
  gunzip -c "$1" > "$out/case.goal"
  "$out/bin/txt2bin" -i "$out/case.goal" -o "$out/case.bin" >/dev/null || return 0
  # shellcheck disable=SC2086
  { "$out/bin/LogGOPSim" -f "$out/case.bin" $2 || true; } 2>/dev/null | sed -n 's/^Host [0-9]*: //p' |
    tr '\n' ' ' | sed 's/ $//'
}

fennelsim_times() { # FILE PARAMS
  local args=()
  for kv in $2; do args+=(--param "$kv"); done
  "$fennelsim" run "$1" --model loggops "${args[@]}" --format json |
    sed -n 's/.*"finish_ns": \[\([0-9, ]*\)\].*/\1/p' | sed 's/,//g'
}

build_tools
table="$out/loggopsim.txt"
: > "$table"
differ=0 cases=0
for pattern in "${patterns[@]}"; do
  for n in "${ranks[@]}"; do
    for d in "${sizes[@]}"; do
      name=$pattern-$n-$d
      generate "$name" "$pattern" "$n" "$d"
      zero=
      [ "$(gunzip -c "$out/goal/$name.goal.gz" | grep -Ec '(send|recv) 0b')" = 0 ] || zero=" zero"
      for set in "${sets[@]}"; do
        IFS='|' read -r label flags params <<< "$set"
        theirs=$(loggopsim_times "$out/goal/$name.goal.gz" "$flags")
        if [ -z "$theirs" ]; then
          echo "$name $label${zero}: LogGOPSim printed no times" >&2
          continue
        fi
        ours=$(fennelsim_times "$out/goal/$name.goal.gz" "$params")
        echo "$name.goal.gz $label $theirs$zero" >> "$table"
        cases=$((cases + 1))
        if [ "$theirs" != "$ours" ]; then
          differ=$((differ + 1))
          echo "DIFFER $name $label${zero}"
          echo "  LogGOPSim $theirs"
          echo "  fennelsim $ours"
        fi
      done
    done
  done
done
echo "$differ of $cases cases differ; table in $table, GOAL files in $out/goal"
