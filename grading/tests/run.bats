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
