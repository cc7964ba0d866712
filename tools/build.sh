#!/usr/bin/env bash
# tools/build.sh [DIR] [MESON OPTIONS...]: configures DIR (default build) once,
# then compiles. Release build, warnings are errors.
set -euo pipefail
dir=${1:-build}
shift || true
[ -f "$dir/build.ninja" ] || meson setup "$dir" "$@"
meson compile -C "$dir"
