#!/usr/bin/env bash
# run.sh [FILE.bats...] - runs the test suite (default: tests/*.bats) and ends
# with one line "N passed, N failed". Exit status 0 only if nothing failed.
#   BIN   the programs under test (default bin; make check uses bin-asan, bin-tsan)
#   UNIT  the unit-test driver for common/ (default build/test-common)
set -uo pipefail
cd "$(dirname "$0")/.."
bash common/deps.sh bats || exit 1
export BIN=${BIN:-bin} UNIT=${UNIT:-build/test-common}

[ $# -gt 0 ] || set -- tests/*.bats
tap=$(mktemp)
trap 'rm -f "$tap"' EXIT
bats --formatter tap "$@" | tee "$tap"
status=${PIPESTATUS[0]}

passed=$(grep -c '^ok ' "$tap")
failed=$(grep -c '^not ok ' "$tap")
echo "$passed passed, $failed failed"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
