#!/usr/bin/env bash
# tools/test_summary.sh BUILD_DIR...: adds up the Check results that meson
# logged for each build and prints one closing line, "checks: N passed, M failed".
set -euo pipefail
passed=0
failed=0
for dir in "$@"; do
  log="$dir/meson-logs/testlog.txt"
  [ -f "$log" ] || { echo "no test log in $dir" >&2; exit 1; }
  while read -r checks failures errors; do
    passed=$((passed + checks - failures - errors))
    failed=$((failed + failures + errors))
  done < <(sed -n 's/.*Checks: \([0-9]*\), Failures: \([0-9]*\), Errors: \([0-9]*\).*/\1 \2 \3/p' "$log")
done
echo "checks: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
