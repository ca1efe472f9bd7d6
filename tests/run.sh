#!/usr/bin/env bash
# run.sh [FILE.bats...] - runs the test suite (default: tests/*.bats) and ends
# with one line "N passed, N failed, N skipped". Exit status 0 only if
# nothing failed. What the tests need is installed first where it can be
# (common/deps.sh), else the command that installs it is printed; the
# grader's tests (in the instructor's kit) also want bubblewrap and strace,
# and skip, saying why, where they are missing.
#   BIN   the programs under test (default bin; make check uses bin-asan, bin-tsan)
#   UNIT  the unit-test driver for common/ (default build/test-common)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
bash common/deps.sh bats python3 || exit 1
if [ -d grading ]; then
	bash common/deps.sh bwrap strace || echo "(the grader's tests that need them say so and skip)"
fi
export BIN=${BIN:-bin} UNIT=${UNIT:-build/test-common}

[ $# -gt 0 ] || set -- tests/*.bats
tap=$(mktemp)
trap 'rm -f "$tap"' EXIT
bats --formatter tap "$@" | tee "$tap"
status=${PIPESTATUS[0]}

skipped=$(grep -c '^ok .* # skip' "$tap")
passed=$(($(grep -c '^ok ' "$tap") - skipped))
failed=$(grep -c '^not ok ' "$tap")
echo "$passed passed, $failed failed, $skipped skipped"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
