#!/bin/sh
# Runs one libFuzzer harness of tests/fuzz from its seed corpus:
#   fuzz.sh [--runs N] [--seconds S] [--keep DIR] FUZZER SEED_DIR
# The corpus grows in a scratch copy (or in DIR with --keep), never in the source
# tree. Prints the executions made; exits non-zero on a crash, a hang (over 10 s
# for one input) or a leak, naming the input that caused it.
set -eu

runs=20000
seconds=60
keep=""
while [ $# -gt 2 ]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    --seconds) seconds="$2"; shift 2 ;;
    --keep) keep="$2"; shift 2 ;;
    *) echo "fuzz.sh: unknown option $1" >&2; exit 2 ;;
  esac
done
if [ $# -ne 2 ]; then
  echo "usage: fuzz.sh [--runs N] [--seconds S] [--keep DIR] FUZZER SEED_DIR" >&2
  exit 2
fi
fuzzer="$1"
seeds="$2"
if [ ! -x "$fuzzer" ]; then
  echo "fuzz.sh: no fuzzer at $fuzzer (make build-sanitize builds them)" >&2
  exit 2
fi
name=$(basename "$fuzzer")

scratch=$(mktemp -d "${TMPDIR:-/tmp}/mpidle-$name.XXXXXX")
corpus="${keep:-$scratch/corpus}"
mkdir -p "$corpus" "$scratch/artifacts"
cp "$seeds"/* "$corpus"/

status=0
"$fuzzer" "$corpus" -runs="$runs" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=4096 \
  -max_len=262144 -print_final_stats=1 -artifact_prefix="$scratch/artifacts/" \
  > "$scratch/log" 2>&1 || status=$?
executions=$(sed -n 's/^stat::number_of_executed_units: *//p' "$scratch/log" | tail -n 1)
if [ "$status" -ne 0 ]; then
  tail -n 60 "$scratch/log" >&2
  echo "$name: FAILED after ${executions:-?} executions; the input is in $scratch/artifacts" >&2
  exit 1
fi
echo "$name: ${executions:-?} executions, no crash, hang or leak; corpus $(ls "$corpus" | wc -l) inputs"
[ -n "$keep" ] || rm -rf "$scratch"
