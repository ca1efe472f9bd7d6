#!/usr/bin/env bats
# Unit tests of the grading library (grading/tests/test_grading.py): text and
# number parsing, the build-message filter, unpacking limits, and (as root)
# the sandbox: own uid, limits, no sockets, io_uring only when asked, every
# process killed, shared /tmp cleaned.

load ../../tests/helpers

@test "grading library: unit tests" {
	run python3 -I -B "$ROOT/grading/tests/test_grading.py" -v
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"OK"* ]]
}

@test "rubric: the lab pages' grading tables are the modules' checks, their questions' points their QUESTIONS" {
	run python3 -I -B "$ROOT/grading/rubric.py"
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

@test "rubric: a point changed in a lab's page is reported, and make rubric writes the table back" {
	page="$ROOT/labs/1-interleave/README.md"
	sed -e 's/^\(| data\/lab1.csv has the declared columns | \)1 |$/\12 |/' \
		-e '/^- \*\*Q1\.1\*\*/,/points/s/(2 points/(5 points/' "$page" >page.md
	[ "$(diff page.md "$page" | grep -c '^[<>]')" -eq 4 ]
	run python3 -I -B "$ROOT/grading/rubric.py" page.md
	[ "$status" -eq 1 ]
	[[ $output == *"the table 'How Lab 1 is graded' in page.md is not the grader's checks: make rubric"* ]]
	[[ $output == *"Q1.1: 2 in QUESTIONS, 5 in page.md"* ]]
	# --write mends the table; the question's points are prose, left to the author
	run python3 -I -B "$ROOT/grading/rubric.py" --write page.md
	[ "$status" -eq 1 ]
	[ "$(diff page.md "$page" | grep -c '^[<>]')" -eq 2 ]
	grep -q '^| data/lab1.csv has the declared columns | 1 |$' page.md
	# a page that is no lab's: one line
	printf 'notes\n' >notes.md
	run python3 -I -B "$ROOT/grading/rubric.py" notes.md
	[ "$status" -eq 1 ]
	[ "$output" = "rubric.py: notes.md does not open with a heading '# Lab N: title'" ]
}

@test "mutants.py: a mutant names its check by function; one naming it by a title stops it in one line" {
	mkdir kit && cp -R "$ROOT/grading" "$ROOT/labs" "$ROOT/common" "$ROOT/handout.md" kit/
	sed -i 's/^           together),$/           "two writers with a lock and the flush: nothing lost, runs multiples of K, writes inside the lock"),/' \
		kit/grading/lab2/checks.py
	! cmp -s kit/grading/lab2/checks.py "$ROOT/grading/lab2/checks.py"
	run python3 -B kit/grading/mutants.py --labs 2 --only lockbench-no-lock
	[ "$status" -eq 1 ]
	[ "$output" = "mutants.py: mutant lockbench-unlock-before-flush of grading/lab2/checks.py kills 'two writers with a lock and the flush: nothing lost, runs multiples of K, writes inside the lock', not a @check function of lab 2" ]
}
