#!/bin/sh
# Paired journal speed: today's code (a checkout of BASE_REF, default HEAD) and the working
# tree's, run alternately ROUNDS times (default 2) by the same bench_journal.py on the same disk.
#   sh benchmarks/bench_journal_paired.sh [BASE_REF] [ROUNDS] [REPEAT] [bench_journal options]
set -eu
ref=${1:-HEAD}
rounds=${2:-2}
repeat=${3:-3}
shift $(( $# < 3 ? $# : 3 ))
here=$(cd "$(dirname "$0")/.." && pwd)
base=$(mktemp -d)
trap 'rm -rf "$base"' EXIT
git -C "$here" archive "$ref" harness | tar -x -C "$base"
i=0
while [ "$i" -lt "$rounds" ]; do
    echo "== round $((i + 1)): $ref"
    PYTHONPATH="$base" python "$here/benchmarks/bench_journal.py" --repeat "$repeat" --dir "$here" "$@"
    echo "== round $((i + 1)): working tree"
    PYTHONPATH="$here" python "$here/benchmarks/bench_journal.py" --repeat "$repeat" --dir "$here" "$@"
    i=$((i + 1))
done
