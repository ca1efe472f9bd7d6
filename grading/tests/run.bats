#!/usr/bin/env bats
# tests/run.sh, the suite's runner, on a kit of three small test files: which
# files make test and make test-all run in the instructor's kit, and the
# tally's last lines.

load ../../tests/helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	mkdir -p kit/tests kit/common kit/grading/tests
	cp "$ROOT/tests/run.sh" kit/tests/
	cp "$ROOT/common/deps.sh" kit/common/
	# a test file of the kit, one of the grader's that grades a submission
	# (it runs the grader) and one of the grader's that grades nothing
	# (the command is written in two pieces: this file grades nothing, and
	# run.sh, which reads files for what they run, must see so)
	for f in tests/kit grading/tests/grades grading/tests/reads; do
		printf '@test "%s" {\n\t: %s\n}\n' "${f##*/}" "$([ "$f" != grading/tests/grades ] || echo "./grade"".sh x.tar.gz")" \
			>"kit/$f.bats"
	done
	export IOLAB_NO_INSTALL=1
	unset IOLAB_TEST_REFERENCE TEST_EXCEPT
}

@test "run.sh: without --all the grader's suites that grade are left out, and it says so; --all and a name run them" {
	run bash kit/tests/run.sh
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *"ok 1 kit"* && $output == *"ok 1 reads"* && $output != *"ok 1 grades"* ]]
	[ "${lines[-2]}" = "(the grader's 1 suites that grade submissions were left out: make test-all runs every file)" ]
	[ "${lines[-1]}" = "2 passed, 0 failed, 0 skipped" ]
	run bash kit/tests/run.sh --all
	[ "$status" -eq 0 ]
	[[ $output == *"ok 1 grades"* ]]
	[ "${lines[-1]}" = "3 passed, 0 failed, 0 skipped" ]
	run bash kit/tests/run.sh grades
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "1 passed, 0 failed, 0 skipped" ]
	# the students' kit has no grader: every file runs
	rm -r kit/grading
	run bash kit/tests/run.sh
	[ "${lines[-1]}" = "1 passed, 0 failed, 0 skipped" ]
}

@test "run.sh: a reference being run elsewhere is waited for by the grader's suites only; the others run meanwhile" {
	# a suite that grades the reference (a reference_kit line), and a
	# reference whose labs another job is still running (CI's .ci/as-student)
	# (its reference_kit line is in a function nothing calls: run.sh reads it)
	printf '@test "graded" {\n\t: x\n}\nnamed() {\n\treference_kit 1\n}\n' >kit/grading/tests/graded.bats
	mkdir reference && touch reference/pending
	# only files that do not grade it: no wait
	run env IOLAB_TEST_REFERENCE="$PWD/reference" timeout 60 bash kit/tests/run.sh kit reads
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "${lines[-1]}" = "2 passed, 0 failed, 0 skipped" ]
	# with the grader's suite: the others end while it waits, it runs once done is there
	env IOLAB_TEST_REFERENCE="$PWD/reference" timeout 60 bash kit/tests/run.sh --all >out 2>&1 &
	local pid=$!
	for _ in $(seq 100); do grep -q '^ok 1 kit' out && grep -q '^ok 1 reads' out && break; sleep 0.2; done
	grep -q '^ok 1 kit' out && grep -q '^ok 1 reads' out
	[ "$(grep -c graded out)" -eq 0 ]
	touch reference/done
	wait "$pid"
	grep -q '^ok 1 graded' out
	[ "$(tail -n 1 out)" = "4 passed, 0 failed, 0 skipped" ]
}

@test "make check T=NAME: the sanitizer runs of those files only, ThreadSanitizer's of the threaded ones among them" {
	# (the make running this test passes its own T down: not to these)
	run env -u MAKEFLAGS -u MAKELEVEL -u T make -s -n -C "$ROOT" check T="writer fillcopy"
	[ "$status" -eq 0 ]
	grep -qx 'BIN=bin-asan UNIT=build/asan/test-common bash tests/run.sh writer fillcopy' <<<"$output"
	grep -q 'BIN=bin-tsan bash tests/run.sh fillcopy; fi' <<<"$output"
	run env -u MAKEFLAGS -u MAKELEVEL -u T make -s -n -C "$ROOT" check T=writer
	[[ $output == *'if [ -n "" ]'* ]]	# writer starts no thread: no ThreadSanitizer run
	run env -u MAKEFLAGS -u MAKELEVEL -u T make -s -n -C "$ROOT" check
	[[ $output == *"tests/run.sh tests/common.bats labs/"* ]]
}
