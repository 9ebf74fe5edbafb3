#!/bin/sh
# Checks (or with --fix, applies) clang-format on the project's own sources.
# Generated files live in the build tree and are never checked.
set -eu
cd "$(dirname "$0")/.."
fmt=$(command -v clang-format-14 || command -v clang-format || true)
if [ -z "$fmt" ]; then
  echo "mpidle: clang-format not found (apt-get install clang-format)" >&2
  exit 1
fi
files=$(git ls-files '*.cpp' '*.hpp' '*.c' '*.h')
if [ "${1:-}" = "--fix" ]; then
  $fmt -i $files
else
  $fmt --dry-run --Werror $files
fi
