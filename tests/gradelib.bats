#!/usr/bin/env bats
# Unit tests of the grading library (tests/unit/test_grading.py): text and
# number parsing, the build-message filter, unpacking limits, and (as root)
# the sandbox: own uid, limits, no sockets, io_uring only when asked, every
# process killed, shared /tmp cleaned.

load helpers

@test "grading library: unit tests" {
	run python3 -I -B "$ROOT/tests/unit/test_grading.py" -v
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"OK"* ]]
}
