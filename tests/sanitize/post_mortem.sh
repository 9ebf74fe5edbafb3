#!/bin/sh
# Every mpidle command of a sanitizer build (ASan + UBSan, aborting on the first
# error) on a real traced run made by the regular build's libmpidle, then on
# broken copies of it: each must finish, or refuse with one line, never trip a
# sanitizer.
#   post_mortem.sh SANITIZED_MPIDLE REGULAR_BUILD_DIR MPIEXEC MACHINE_JSON
set -eu
mpidle="$1"
regular="$2"
mpiexec="$3"
machine="$4"
work=$(mktemp -d "${TMPDIR:-/tmp}/mpidle-sanitize.XXXXXX")
trap 'rm -rf "$work"' EXIT
# A sanitizer's finding exits 99 (ASan) or aborts (UBSan, 134): never a refusal's 1 or 2.
export ASAN_OPTIONS="exitcode=99:detect_leaks=1"
export UBSAN_OPTIONS="print_stacktrace=1"

step() {
  echo "== mpidle $*"
  "$mpidle" "$@" > "$work/out" 2> "$work/err" || {
    status=$?
    cat "$work/err" >&2
    echo "post_mortem.sh: mpidle $* failed with status $status" >&2
    exit 1
  }
}

# Refusals: status 1 or 2 and a short message, nothing else.
refuse() {
  echo "== (refuses) mpidle $*"
  status=0
  "$mpidle" "$@" > "$work/out" 2> "$work/err" || status=$?
  if [ "$status" -ne 1 ] && [ "$status" -ne 2 ]; then
    cat "$work/err" >&2
    echo "post_mortem.sh: mpidle $* ended with status $status, not a refusal" >&2
    exit 1
  fi
  if [ "$(wc -l < "$work/err")" -gt 3 ]; then
    cat "$work/err" >&2
    echo "post_mortem.sh: mpidle $* said more than a short error" >&2
    exit 1
  fi
}

run="$work/run"
MPIDLE_LIBRARY="$regular/lib/libmpidle.so" step run --trace --output "$run" -- \
  "$mpiexec" -n 2 "$regular/examples/loop_nest" --outer 50
step report "$run"
step sync "$run"
step analyze "$run"
step summary "$run"
step report "$run" --html "$work/report.html"
step export "$run" --chrome "$work/chrome.json" --otf2 "$work/otf2"
step export "$run" --chrome "$work/part.json" --ranks 1 --window 0.001:
step predict "$run" --source "$machine" --machine "$machine"
step compare "$run" "$run"
step compare "$run" "$run/prediction.json"
step config

# Broken copies of the run.
broken="$work/broken"
cp -r "$run" "$broken"
size=$(wc -c < "$run/trace.mpidle")
head -c $((size / 2)) "$run/trace.mpidle" > "$broken/trace.mpidle"
refuse sync "$broken"
refuse analyze "$broken"
refuse export "$broken" --chrome "$work/broken.json"
head -c 700 "$run/profile.json" > "$broken/profile.json"
refuse report "$broken"
printf '%s' '{"schema": "mpidle-profile", "version": 2, "ranks": [{"rank": 1e308}]}' > "$broken/profile.json"
refuse report "$broken"
refuse report "$work/missing"
echo "post_mortem.sh: every command passed under the sanitizers"
