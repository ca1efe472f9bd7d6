#!/usr/bin/env bats
# Evidence from outside the student's process: what a check awards points
# on (threads started, requests handed to the kernel, threads inside a
# call, CPU time) is seen by the grader's tracer and reaper, never read
# from a log, descriptor or number the program can write. Known-wrong
# programs (the kit's mutants) that also forge what the old shims read, or
# burn CPU outside their timed part to make a made-up figure look
# possible, lose the same checks as the plain mutants. CI runs it with
# bubblewrap and with bwrap hidden from PATH.

load ../../tests/helpers
load grading

# forge FILE: appends to the C source FILE a constructor that writes the
# lines the old shims logged (a thread, a submission of 64 requests, 64
# threads together, a lock pair) to every descriptor it may hold, and
# into every variable the shims were told of.
forge() {
	cat >>"$1" <<-'C'
		#include <stdlib.h>
		#include <unistd.h>
		__attribute__((constructor)) static void forge_evidence(void)
		{
			static const char lines[] = "thread\nthread\nthread\nthread\nthread\nthread\nthread\nthread\n"
				"thread\nthread\nthread\nthread\nthread\nthread\nthread\nthread\nsubmit 64\ntogether 64\n";
			for (int fd = 3; fd < 256; fd++)
				if (write(fd, lines, sizeof lines - 1) < 0) {
				}
		}
	C
}

# spin_at_exit FILE WHEN: appends to the C source FILE a destructor that,
# where the C expression WHEN holds, spins until the process has used 1 s
# of CPU: time spent outside anything the program timed.
spin_at_exit() {
	cat >>"$1" <<-C
		#include <time.h>
		__attribute__((destructor)) static void spin_at_exit(void)
		{
			struct timespec t;
			do
				clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
			while (($2) && t.tv_sec < 1);
		}
	C
}

# The grader runs students' code as root (own uids) or in bubblewrap, and
# watches it with strace.
can_trace() {
	{ [ "$(id -u)" -eq 0 ] || command -v bwrap >/dev/null; } && command -v strace >/dev/null
}

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	can_trace || skip "needs strace, and root or bubblewrap, to grade"
}

setup_file() {
	can_trace || return 0
	cd "$BATS_FILE_TMPDIR" || return 1
	mkdir subs grades
	reference_kit 1 3 4 5
	# membw ignores -t, pwriters runs every strategy in main, iopattern's
	# --jobs runs its threads one after another: each also forges.
	variant forger
	python3 -I -B "$ROOT/grading/mutants.py" --labs 3 --apply membw-ignores-t subs/forger >/dev/null
	python3 -I -B "$ROOT/grading/mutants.py" --labs 4 --apply pwriters-all-sequential subs/forger >/dev/null
	python3 -I -B "$ROOT/grading/mutants.py" --labs 5 --apply iopattern-jobs-one-after-another subs/forger >/dev/null
	forge subs/forger/labs/3-threads/membw.c
	forge subs/forger/labs/4-writers/pwriters.c
	forge subs/forger/labs/5-patterns/iopattern.c
	# One pass timed and done, --passes times its CPU time printed, and the
	# rest of the run spent spinning at exit, so that the whole run's CPU
	# time holds what it printed.
	variant spinner
	python3 -I -B "$ROOT/grading/mutants.py" --labs 3 --apply fillcopy-passes-once-prints-more-cpu subs/spinner \
		>/dev/null
	spin_at_exit subs/spinner/labs/3-threads/fillcopy.c 'passes > 1'
	local check
	for check in 'membw: --csv' 'pwriters: every strategy' 'iopattern --jobs'; do
		"$ROOT/grade.sh" --only "$check" subs/forger >>grades/forger.txt 2>&1
	done
	# launch's rows RUSAGE_CHILDREN's running totals, and a spin at exit
	# that raises the whole run's CPU time above their sum.
	python3 -I -B "$ROOT/grading/mutants.py" --labs 1 --apply launch-cumulative-rusage subs/spinner >/dev/null
	spin_at_exit subs/spinner/labs/1-interleave/launch.c 1
	"$ROOT/grade.sh" --only 'fillcopy: --passes' subs/spinner >grades/spinner.txt 2>&1
	"$ROOT/grade.sh" --only 'launch: concurrent' subs/spinner >>grades/spinner.txt 2>&1
	# pwriters whose main thread writes every file but its last byte by
	# calls that are no write(2) to it (a shared mapping, copy_file_range,
	# sendfile, a scratch file renamed), the strategy's threads then one
	# byte each: sequential.
	local how
	for how in map copy send rename; do
		variant "main-$how"
		python3 "$ROOT/grading/tests/fixtures/hostile-evidence/mainwrites.py" "$how" \
			"subs/main-$how/labs/4-writers/pwriters.c"
		"$ROOT/grade.sh" --only 'pwriters: every strategy' "subs/main-$how" >"grades/main-$how.txt" 2>&1
	done
}

# verdict NAME CHECK: the report's line for CHECK in grades/NAME.txt.
verdict() {
	grep -F ": $2" "$BATS_FILE_TMPDIR/grades/$1.txt" | grep -v '^    '
}

@test "membw ignoring -t and writing 'thread' lines to every descriptor: FAIL, no thread seen by the tracer" {
	run verdict forger "membw: --csv rows, -t threads, exit codes"
	[[ $output == *": FAIL 0/2"* ]]
	grep -qE "membw started 1 threads \(the grader's tracer counted them\), not [2-8]" "$BATS_FILE_TMPDIR/grades/forger.txt"
}

@test "pwriters running every strategy in main, forging the shim's lines: FAIL, counted by the tracer" {
	run verdict forger "pwriters: every strategy writes the kit's bytes"
	[[ $output == *": FAIL 0/4"* ]]
	grep -q "started 0 threads (the grader's tracer counted them), not" "$BATS_FILE_TMPDIR/grades/forger.txt"
}

@test "iopattern --jobs one thread at a time, forging 'together 64': FAIL, seen inside pread by the tracer" {
	run verdict forger "iopattern --jobs: N threads, same data"
	[[ $output == *": FAIL 0/2"* ]]
	grep -q "at most 1 thread(s) doing a share of the reads were inside pread at once" \
		"$BATS_FILE_TMPDIR/grades/forger.txt"
}

@test "fillcopy printing --passes times one pass's CPU and spinning at exit to cover it: FAIL" {
	run verdict spinner "fillcopy: --passes N goes N times over the buffer inside the timing"
	[[ $output == *": FAIL 0/1"* ]]
	grep -q "outside the fill and copy it timed" "$BATS_FILE_TMPDIR/grades/spinner.txt"
}

@test "launch printing RUSAGE_CHILDREN's running totals and spinning at exit: FAIL, against wait4's answers" {
	run verdict spinner "launch: concurrent start, -r, -f, times and rusage"
	[[ $output == *": FAIL 0/3"* ]]
	# Which verdict comes first depends on the order the children end: the
	# sleep's row holds the busy children's CPU where it is reaped after
	# them; where it is reaped first, the mutant's wait4 with no rusage
	# (it asked RUSAGE_CHILDREN instead) is what the tracer shows.
	grep -qE "but wait4 handed launch .* for it \(seen by the grader's tracer\)|'sleep 0.3' should take|was not reaped by a wait4 that hands back its rusage" \
		"$BATS_FILE_TMPDIR/grades/spinner.txt"
}

@test "pwriters writing from main through a shared mapping, copy_file_range, sendfile or a rename, its threads a byte each: FAIL" {
	local how
	for how in map copy send rename; do
		changed "main-$how" labs/4-writers/pwriters.c
		run verdict "main-$how" "pwriters: every strategy writes the kit's bytes"
		echo "$how: $output"
		[[ $output == *": FAIL 0/4"* ]]
	done
	grep -q "pwriters wrote to its files through a shared mapping" "$BATS_FILE_TMPDIR/grades/main-map.txt"
	grep -q "pwriters wrote to its files through copy_file_range" "$BATS_FILE_TMPDIR/grades/main-copy.txt"
	grep -q "pwriters wrote to its files through sendfile" "$BATS_FILE_TMPDIR/grades/main-send.txt"
	grep -q "the main thread wrote to the files itself" "$BATS_FILE_TMPDIR/grades/main-rename.txt"
}
