#!/usr/bin/env python3
"""Lists the tests the last ctest run in each build directory skipped, and why.

make test ends with this: a test that cannot run its check here (a package missing,
no root, a machine too busy to judge) exits with ctest's skip code after one line
"SKIPPED: why" (tests/integration/process.cpp, skip_test), and ctest counts it as
not run. This reads each directory's Testing/Temporary/LastTest.log and prints one
line per such test, with its reason.

  scripts/skipped-tests.py BUILD_DIR...
"""
import os
import sys


def skipped_in(build_dir):
    path = os.path.join(build_dir, "Testing", "Temporary", "LastTest.log")
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return None
    found, name, in_output, reason = [], None, False, None
    for line in lines:
        if " Test: " in line and line.split(" ", 1)[0].count("/") == 1:
            name, in_output, reason = line.split(" Test: ", 1)[1], False, None
        elif line == "Output:":
            in_output = True
        elif line == "<end of output>":
            in_output = False
            if name is not None and reason is not None:
                found.append((name, reason))
        elif in_output and line.startswith("SKIPPED: "):
            reason = line[len("SKIPPED: "):]
    return found


def main():
    total = 0
    report = []
    for build_dir in sys.argv[1:]:
        found = skipped_in(build_dir)
        if found is None:
            continue
        total += len(found)
        for name, reason in found:
            report.append(f"  {build_dir}: {name}\n      {reason}")
    if total == 0:
        print("mpidle: no test was skipped")
        return 0
    print(f"mpidle: {total} tests were skipped (not run, not passed):")
    print("\n".join(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
