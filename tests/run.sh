#!/usr/bin/env bash
# run.sh [--all] [NAME|FILE.bats...] - runs the test suite, a file per
# core at a time (at least 2; TEST_JOBS=N), then a tally per file
# (passed/tests, seconds elapsed and of CPU, how many were skipped) and
# one line "N passed, N failed, N skipped". The suite is every .bats file in tests/ (the kit's own:
# common/, make labs, handin), labs/*/tests/ (each lab's programs and lab
# script) and, in the instructor's kit, grading/tests/ and
# grading/labN/tests/ (the grader's). Without --all and names, the grader's
# suites that grade submissions (about four fifths of the suite's CPU
# time) are left out, and a line says so: make test runs the rest, make
# test-all and CI every file. The students' kit has no grader: make test
# runs all of it.
# A NAME is a file's name without .bats: `make test T=launch` runs
# labs/1-interleave/tests/launch.bats alone. A skipped test says why: in
# the students' kit, a test that needs another program still to be
# written. Exit status 0 only if nothing failed. What the tests need is
# installed first where it can be (common/deps.sh), else the command that
# installs it is printed; the grader's tests (in the instructor's kit) also
# want bubblewrap and strace, and skip, saying why, where they are missing.
#   BIN   the programs under test (default bin; make check uses bin-asan, bin-tsan)
#   UNIT  the unit-test driver for common/ (default build/test-common)
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
bash common/deps.sh bats python3 || exit 1
if [ -d grading ]; then
	bash common/deps.sh bwrap strace || echo "(the grader's tests that need them say so and skip)"
fi
export BIN=${BIN:-bin} UNIT=${UNIT:-build/test-common}

# Largest files first: they take longest, and the others fill in around them.
# shellcheck disable=SC2046,SC2086 # the names have no spaces
all=$(ls -S $(compgen -G 'tests/*.bats'; compgen -G 'labs/*/tests/*.bats'; compgen -G 'grading/tests/*.bats'; compgen -G 'grading/*/tests/*.bats'))
# TEST_EXCEPT="hostile hostile-score": the whole suite but these files (CI
# runs them apart).
for name in ${TEST_EXCEPT:-}; do all=$(grep -vE "(^|/)$name\.bats\$" <<<"$all"); done

# The grader's suites each grade a reference kit with labs run at tiny
# scale (reference_kit in the file). Others grade without it; all of them
# run what the pattern grades names: the grader, its library and its tools.
uses_reference='^[[:space:]]*reference_kit '
grades='grade\.(sh|py)|mutants\.py|run_autograder|run_prairielearn|lessons\.py'
every=no
[ "${1:-}" != --all ] || { every=yes; shift; }
left=0
if [ $# -eq 0 ] && [ $every = no ]; then
	kept=$(for file in $all; do
		if [[ $file != grading/* ]] || ! grep -qE "$uses_reference|$grades" "$file"; then echo "$file"; fi
	done)
	left=$(($(wc -l <<<"$all") - $(grep -c . <<<"$kept")))
	all=$kept
fi
[ $# -gt 0 ] || set -- $all
files=()
for name in "$@"; do
	# a NAME: the one file of the suite called NAME.bats
	file=$name
	[ -f "$file" ] || file=$(grep -E "(^|/)$name\.bats\$" <<<"$all") || {
		echo "run.sh: there is no test file $name; they are:" \
			"$(sed 's|.*/||; s/\.bats$//' <<<"$all" | sort | tr '\n' ' ')" >&2
		exit 2
	}
	files+=("$file")
done
set -- "${files[@]}"
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
# python3 as the tests start it: the interpreter itself, not a version
# manager's shim in front of it (pyenv's runs bash and pyenv for each start,
# about half a second of CPU). The suite starts python thousands of times:
# on a machine with pyenv, the shim took half of common.bats' CPU time.
python=$(python3 -c 'import sys; print(sys.executable)')
if [ -x "$python" ] && [ "$python" != "$(command -v python3)" ]; then
	mkdir "$out/python" && ln -s "$python" "$out/python/python3" && PATH=$out/python:$PATH
fi
# The kit's Python compiled once, here: the grader and the labs' tools run
# with -B (they write no __pycache__ in a student's or an instructor's
# tree), so each of the suite's starts compiled its modules again, some
# 0.2 CPU-s a grader start. With -B, Python still reads a __pycache__ whose
# source has not changed since.
"$python" -m compileall -q grading common labs >/dev/null 2>&1 || true

# TEST_JOBS files run at once (default: one per core, at least 2, since
# much of the suite waits on time limits and sandboxes, not on the CPU;
# the grader's suites grade with -j 2 each); each file's output is printed
# whole when it ends.
cores=$(nproc 2>/dev/null || echo 2)
jobs=${TEST_JOBS:-$((cores > 2 ? cores : 2))}
# run_file FILE: its TAP output, exit status, and seconds elapsed and of
# CPU (user + system, its processes together).
run_file() {
	local base TIMEFORMAT='%0R %0U %0S'
	base=$out/$(basename "$1")
	{ time bats --timing --formatter tap "$1" >"$base.tap" 2>&1; } 2>"$base.time"
	echo $? >"$base.status"
	cat "$base.tap"
}
# Where two or more of the grader's suites run, the labs their
# reference_kit lines name are run once, in a job of its own that starts
# first, and they copy that kit (grading.bash);
# the other files run meanwhile, the grader's suites once it is done. A
# kit given in IOLAB_TEST_REFERENCE whose labs are done (DIR/done) or being
# run by another job (DIR/pending, until it writes DIR/done or DIR/failed:
# CI's .ci/as-student runs them as a student) is used as it is.
graders=() grading=() quiet=()
for file in "$@"; do
	if grep -q "$uses_reference" "$file"; then graders+=("$file")
	elif grep -qE "$grades" "$file"; then grading+=("$file")
	else quiet+=("$file"); fi
done
reference='' given=''
if [ ${#graders[@]} -eq 0 ]; then
	:	# no file here grades the reference: nothing to run or wait for
elif [ -e "${IOLAB_TEST_REFERENCE:-}/done" ] || [ -e "${IOLAB_TEST_REFERENCE:-}/pending" ]; then
	echo "run.sh: the grader's tests grade the labs run in $IOLAB_TEST_REFERENCE/kit"
	given=$IOLAB_TEST_REFERENCE
elif [ "$(grep -l "$uses_reference" "$@" | wc -l)" -ge 2 ]; then
	# the labs their reference_kit lines name; every lab if one computes them
	labs=$(sed -n "s/$uses_reference//p" "$@" | tr ' ' '\n' | sort -u)
	grep -qvx '[0-9]*' <<<"$labs" && labs=$(cd labs && ls -d [0-9]*-* | cut -d- -f1)
	export IOLAB_TEST_REFERENCE=$out/reference
	# shellcheck disable=SC2086,SC2034 # one word per lab; grading.bash reads ROOT
	(ROOT=$PWD && . grading/tests/grading.bash && run_labs "$IOLAB_TEST_REFERENCE/kit" $labs &&
		touch "$IOLAB_TEST_REFERENCE/done") >"$out/reference.log" 2>&1 &
	reference=$!
fi
# The suites' one grading of that kit (grading.bash's shared_reference) is
# this run's own: a kit given from outside may be older than the grader.
[ -z "$given$reference" ] || { mkdir "$out/graded" && export IOLAB_TEST_GRADED=$out/graded; }
# start_file FILE: runs FILE in the background once fewer than $jobs run.
start_file() {
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	run_file "$1" &
}
# reference_ready: the labs for the grader's suites are done, failed, or
# not needed.
reference_ready() {
	if [ -n "$reference" ]; then ! kill -0 "$reference" 2>/dev/null
	elif [ -n "$given" ]; then [ -e "$given/done" ] || [ -e "$given/failed" ]
	fi
}
# While the labs for the grader's suites run: the files that grade without
# them, then the files that grade nothing in the slots left, smallest
# first (each soon gives its slot back to a grader's suite).
for file in "${grading[@]}"; do start_file "$file"; done
while ! reference_ready && [ ${#quiet[@]} -gt 0 ]; do
	if [ "$(jobs -rp | wc -l)" -lt "$jobs" ]; then
		start_file "${quiet[-1]}"
		unset 'quiet[-1]'
	else
		sleep 1
	fi
done
while ! reference_ready; do sleep 1; done
if [ -n "$reference" ]; then
	wait "$reference" || true	# its status: DIR/done
	[ -e "$IOLAB_TEST_REFERENCE/done" ] || { echo "run.sh: running the labs for the grader's tests failed:"; cat "$out/reference.log"; }
elif [ -n "$given" ]; then
	[ -e "$given/done" ] || echo "run.sh: the labs for the grader's tests failed in $given (its job says why)"
fi
for file in "${graders[@]}"; do start_file "$file"; done
# The files that grade nothing fill the slots.
for file in "${quiet[@]}"; do start_file "$file"; done
wait

tally=$out/tally status=0 passed=0 failed=0 skipped=0
for file in "$@"; do
	tap=$out/$(basename "$file").tap
	[ "$(cat "$out/$(basename "$file").status")" -eq 0 ] || status=1
	s=$(grep -c '^ok .* # skip' "$tap")
	p=$(($(grep -c '^ok ' "$tap") - s))
	f=$(grep -c '^not ok ' "$tap")
	read -r secs user sys <"$out/$(basename "$file").time"
	printf '  %-16s %7s %5s s %5s s%s\n' "$(basename "$file" .bats)" "$p/$((p + s + f))" \
		"$secs" "$((user + sys))" "$([ "$s" -eq 0 ] || echo "   $s skipped")" >>"$tally"
	passed=$((passed + p)) skipped=$((skipped + s)) failed=$((failed + f))
done

if [ $# -gt 1 ]; then
	echo
	echo "== Tally by test file (passed/tests, seconds elapsed and of CPU; $jobs files at a time), slowest first"
	sort -k3,3nr "$tally"
fi
[ "$left" -eq 0 ] || echo "(the grader's $left suites that grade submissions were left out: make test-all runs every file)"
echo "$passed passed, $failed failed, $skipped skipped"
[ "$status" -eq 0 ] && [ "$failed" -eq 0 ]
