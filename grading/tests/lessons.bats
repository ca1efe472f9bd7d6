#!/usr/bin/env bats
# grading/lessons.py: each lab run again and again, its results graded by
# the grader's data checks, a count per check; --hog runs a busy loop
# beside each lab and stops it after.

load ../../tests/helpers

@test "lessons.py: a run of Lab 4 beside a busy loop: a line per run, a count per data check, what it kept, no loop left" {
	[ "$(id -u)" -eq 0 ] || why=$(bwrap_starts --unshare-all) ||
		skip "the grader runs students' code only as root or in bubblewrap: not root, and $why"
	run python3 "$ROOT/grading/lessons.py" --labs 4 --runs 1 --scale tiny --hog --keep "$BATS_TEST_TMPDIR/kept"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"run 1 lab4: P P P  (load: "* ]]
	# the busy loop makes the run BUSY, and the lab names the questions
	# whose lessons need the cores (lab4.sh's lab_end --needs-cores)
	[[ $output == *"run 1 lab4: P P P  (load: busy"*"; names Q4.2 Q4.7)"* ]]
	[[ $output == *"(1 runs at SCALE=tiny, beside a busy loop)"* ]]
	[ "$(grep -c '^  lab4    1/1   data/lab4-' <<<"$output")" -eq 3 ]
	# the columns check is not a lesson
	[[ $output != *"has the columns"* ]]
	# --keep: the run's data files and the lab's printout with its closing table
	kept=$BATS_TEST_TMPDIR/kept/run-1
	[ "$(head -c 15 "$kept/lab4-writers.csv")" = "trial,strategy," ] && [ "$(wc -l <"$kept/lab4-writers.csv")" -gt 1 ]
	grep -q '^verdict: ' "$kept/lab4-load.txt"
	grep -q '^== pwriters: median (min-max) over the trials' "$kept/lab4.out"
	! pgrep -f '^[^ ]*python[0-9.]* -c while True: pass$'
}

@test "lessons.py: a lab the kit lacks or no runs: usage, exit 2" {
	run python3 "$ROOT/grading/lessons.py" --labs 9
	[ "$status" -eq 2 ]
	[[ $output == *"--labs: '9' is not a list of the kit's labs like 1,2"* ]]
	run python3 "$ROOT/grading/lessons.py" --runs 0
	[ "$status" -eq 2 ]
	[[ $output == *"--runs: at least 1"* ]]
}
