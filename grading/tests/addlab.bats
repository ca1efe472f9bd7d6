#!/usr/bin/env bats
# docs/adding-a-lab.md, followed: in a copy of the kit, a toy Lab 7 (one
# small C program, its lab script and CSV, a figure, a grader module with
# one check, its page, reference answers, a test) is built by make,
# run, tested, listed and graded by the grader and kept by the starter; and
# Lab 5, dropped (its folders labs/5-patterns/ and grading/lab5/ removed),
# is named by neither the grader nor make handin nor make test nor the class
# results, and nothing stops with a
# traceback. The kit's
# programs are copied built, so make compiles only what a test adds.

load ../../tests/helpers

setup_file() {
	[ -d "$ROOT/grading" ] || return 0	# the students' kit: see setup
	local t=$BATS_FILE_TMPDIR/template
	mkdir -p "$t/plot" "$t/data"
	cp -R "$ROOT"/{Makefile,README.md,handout.md,predictions.md,.gitignore,grade.sh,common,docs,labs,grading,tests} "$t/"
	cp "$ROOT"/plot/*.gp "$t/plot/"
	cp -R "$ROOT/data/reference" "$t/data/"
	# the programs as built, dated after their sources: up to date for make
	[ ! -d "$ROOT/bin" ] || cp -R "$ROOT/bin" "$ROOT/build" "$t/"
	rm -rf "$t/grading/__pycache__"
}

setup() {
	[ -d "$ROOT/grading" ] || skip "no grading/: this is the students' kit"
	cd "$BATS_TEST_TMPDIR" || return 1
	cp -R "$BATS_FILE_TMPDIR/template" kit
	[ ! -d kit/bin ] || touch kit/bin/* kit/build/*
	# the copy's own programs, not the ones under test (BIN: make check)
	unset BIN UNIT
}

# The toy lab, file by file in the guide's order.
add_lab7_files() {
	mkdir kit/labs/7-toy
	cat >kit/labs/7-toy/toy.c <<-'C'
	/* toy.c - Lab 7 (a test's toy lab): the squares of 1..N, as CSV. */
	#include <stdio.h>
	#include <stdlib.h>

	static long square(long n)
	{
		/* BEGIN SOLUTION */
		return n * n;
		/* END SOLUTION */
		/* STUB return 0; */
	}

	int main(int argc, char **argv)
	{
		long n = argc > 1 ? atol(argv[1]) : 3;
		printf("n,square\n");
		for (long i = 1; i <= n; i++)
			printf("%ld,%ld\n", i, square(i));
		return 0;
	}
	C
	cat >kit/labs/7-toy/lab7.sh <<-'SH'
	#!/usr/bin/env bash
	# lab7.sh - Lab 7 (a test's toy lab): the squares, into data/lab7.csv.
	source "$(dirname "$0")/../../common/lab.sh"
	lab_begin "Lab 7: toy" toy
	csv_open "$DATA/lab7.csv"
	while IFS= read -r row; do csv_row "$row"; done < <("$BIN/toy" "$(by_scale 4 40 400)" | tail -n +2)
	csv_commit
	lab_end
	SH
	mkdir kit/labs/7-toy/tests
	cat >kit/labs/7-toy/tests/toy.bats <<-'BATS'
	#!/usr/bin/env bats
	# toy (Lab 7, a test's toy lab): the squares of 1..N.
	load ../../../tests/helpers

	TEST "toy 3: the squares of 1, 2 and 3" {
		run "$BIN/toy" 3
		[ "$status" -eq 0 ]
		[ "$output" = "$(printf 'n,square\n1,1\n2,4\n3,9')" ]
	}
	BATS
	# (bats would take an @test line of this file's for its own: TEST stands in)
	sed -i 's/^TEST /@test /' kit/labs/7-toy/tests/toy.bats
	cat >kit/plot/lab7-squares.gp <<-'GP'
	# lab7-squares.gp - Lab 7 (a test's toy lab): n against its square.
	set datafile separator ','
	set datafile columnheaders
	plot 'data/lab7.csv' using 'n':'square' with linespoints title 'square'
	GP
}

add_lab7_page() {
	cat >kit/labs/7-toy/README.md <<-'MD'
	# Lab 7: toy

	## Questions

	- **Q7.1 Squares.** What is the square of 4? (1 point)

	## How Lab 7 is graded

	| check | points |
	| --- | --- |
	MD
	# its line in the start page's index of labs
	sed -i '/^| 6 | \[/a | 7 | [toy](labs/7-toy/README.md) | squares |' kit/handout.md
	grep -q '](labs/7-toy/README.md)' kit/handout.md
	printf '\n## Lab 7\n- P7.1 the square of 4:\n' >>kit/predictions.md
}

# The declaration of data/lab7.csv: its columns, their kind and unit, both
# merged by make class.
add_lab7_columns() {
	printf 'file,column,kind,unit,class\nlab7.csv,n,count,,need\nlab7.csv,square,count,,need\n' \
		>kit/labs/7-toy/columns.csv
}

add_lab7_grader() {
	mkdir kit/grading/lab7
	cat >kit/grading/lab7/checks.py <<-'PY'
	"""Lab 7 (a test's toy lab): squares."""

	from grading.gradelib import check, expect, standard

	LAB = 7
	STANDARD = standard(build=1, columns=1, figures=2)
	QUESTIONS = {"Q7.1": 1}


	@check(2, "toy: the squares of 1..N", needs=["toy"])
	def toy(g):
	    n = g.between(2, 9)
	    r = g.student("toy", n)
	    g.ok(r, "toy", f"bin/toy {n}")
	    want = "n,square\n" + "".join(f"{i},{i * i}\n" for i in range(1, n + 1))
	    expect(r.text == want, f"not the squares of 1..{n}", f"bin/toy {n}")


	MUTANTS = []
	PY
	printf '## Q7.1\nThe square of 4 is 16, four times four, as data/lab7.csv says.\n' >kit/grading/lab7/answers.md
}

@test "addlab: a toy Lab 7 made by the guide is built, run, listed, graded and kept by a starter" {
	add_lab7_files
	# each step missing is one line naming it, exit 1, no traceback
	run kit/grade.sh --list
	[ "$status" -eq 1 ]
	[ "$output" = "grade.sh: labs/7-toy has no grader module grading/lab7/checks.py (see docs/adding-a-lab.md)" ]
	add_lab7_grader
	run kit/grade.sh --list
	[ "$status" -eq 1 ]
	[ "$output" = "grade.sh: labs/7-toy has no page README.md opening '# Lab 7:' (see docs/adding-a-lab.md)" ]
	add_lab7_page
	run kit/grade.sh --list
	[ "$status" -eq 1 ]
	[ "$output" = "grade.sh: labs/7-toy has no columns.csv declaring the columns of its CSVs (see docs/adding-a-lab.md)" ]
	run make -s -C kit lab7 SCALE=tiny
	[ "$status" -ne 0 ]
	[[ $output == *"labs/7-toy/columns.csv is missing: it declares the columns of the lab's CSVs"* ]]
	[ ! -e kit/data/lab7.csv ]
	add_lab7_columns
	# a kind that is not one: one line naming the file and line
	sed -i 's/^lab7.csv,n,count,/lab7.csv,n,integer,/' kit/labs/7-toy/columns.csv
	run kit/grade.sh --list
	[ "$status" -eq 1 ]
	[[ $output == "grade.sh: labs/7-toy/columns.csv line 2: not file,column,kind,unit,class with a kind of number, count,"* ]]
	[ "${#lines[@]}" -eq 1 ]
	add_lab7_columns

	run make -s -C kit lab7 SCALE=tiny
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cat kit/data/lab7.csv)" = "$(printf 'n,square\n1,1\n2,4\n3,9\n4,16')" ]
	[ -s kit/plot/lab7-squares.png ]
	# graded and merged as a run at the default scale on an idle machine (the
	# grader refuses tiny data; make class leaves out a BUSY machine's)
	sed -i -e 's/^scale: tiny$/scale: quick/' -e 's/^verdict: .*/verdict: quiet/' kit/data/lab7-load.txt
	# its test, found in its folder by make test (and make check, a program's own)
	run make -s -C kit test T=toy
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "${lines[-1]}" = "1 passed, 0 failed, 0 skipped" ]
	[[ $(make -s -C kit -n check) == *"labs/7-toy/tests/toy.bats"* ]]

	kit/grade.sh --list --labs 7 >list
	[ "$(grep -c '^lab7' list)" -eq 5 ]
	grep -qx "$(printf 'lab7\t1\tdata/lab7.csv has the declared columns')" list
	grep -qx "$(printf 'lab7\t2\ttoy: the squares of 1..N')" list
	# make rubric writes the table of the lab's page: the grader's rows
	run python3 -B kit/grading/rubric.py
	[ "$status" -eq 1 ]
	[[ $output == *"the table 'How Lab 7 is graded' in labs/7-toy/README.md is not the grader's checks: make rubric"* ]]
	make -s -C kit rubric
	python3 -B kit/grading/rubric.py
	[ "$(sed -n '/^## How Lab 7 is graded/,$p' kit/labs/7-toy/README.md | grep -c '^| [^-c]')" -eq 5 ]
	grep -qx '| toy: the squares of 1..N | 2 |' kit/labs/7-toy/README.md

	# without bubblewrap as root (an own uid); a user who is not root needs it
	if [ "$(id -u)" -eq 0 ]; then run kit/grade.sh --labs 7 --no-bwrap; else run kit/grade.sh --labs 7; fi
	[[ $output == *"lab7: toy: the squares of 1..N: PASS"* ]] || { echo "$output"; return 1; }
	[[ $output == *"Score: 7/7"* ]]

	# make class merges its declared columns from a handin of Lab 7
	mkdir toy-handins
	cp kit/grading/lab7/answers.md kit/answers.md
	(cd kit && LABS=7 bash common/handin.sh && mv iolab-handin.tar.gz ../toy-handins/toy.tar.gz)
	run make -s -C kit class SUBMISSIONS="$PWD/toy-handins" CLASS="$PWD/toy-class"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $(head -1 toy-class/lab7.csv) == *,n,square ]]
	[ "$(cut -d, -f8- toy-class/lab7.csv | tail -n +2 | tr '\n' ' ')" = "1,1 2,4 3,9 4,16 " ]

	# a course of Labs 1 and 7 (a starter of every lab compiles them all: slow)
	run make -s -C kit starter LABS=1,7
	[ "$status" -eq 0 ]
	[ ! -e kit/dist/starter/labs/2-locking ]
	[ "$(grep -c '](labs/2-locking/README.md)' kit/dist/starter/handout.md)" -eq 0 ]
	[ -e kit/dist/starter/labs/7-toy/lab7.sh ]
	[ -e kit/dist/starter/labs/7-toy/tests/toy.bats ]
	[ ! -e kit/dist/starter/labs/2-locking/tests ]
	[ -e kit/dist/starter/plot/lab7-squares.gp ]
	grep -q '](labs/7-toy/README.md)' kit/dist/starter/handout.md
	grep -q '^# Lab 7: toy' kit/dist/starter/labs/7-toy/README.md
	grep -q 'return 0;' kit/dist/starter/labs/7-toy/toy.c
	[ "$(grep -c 'n \* n' kit/dist/starter/labs/7-toy/toy.c)" -eq 0 ]
	[ ! -e kit/dist/starter/grading ]

	# a module that does not declare its standard rows: one line, no traceback
	sed -i '/^STANDARD = /d' kit/grading/lab7/checks.py
	run kit/grade.sh --list
	[ "$status" -eq 1 ]
	[ "$output" = "grade.sh: grading/lab7/checks.py declares no STANDARD = standard(build=..., columns=..., figures=...) (see docs/adding-a-lab.md)" ]
}

@test "addlab: Lab 5 dropped (labs/5-patterns and grading/lab5) is named by neither the grader, make handin, make test nor make class" {
	# the module alone gone: one line, exit 1, for the grader and the tools around it
	rm kit/grading/lab5/checks.py
	run kit/grade.sh --list
	[ "$status" -eq 1 ]
	[ "$output" = "grade.sh: labs/5-patterns has no grader module grading/lab5/checks.py (see docs/adding-a-lab.md)" ]
	run python3 kit/grading/mutants.py
	[ "$status" -eq 1 ]
	[ "$output" = "mutants.py: labs/5-patterns has no grader module grading/lab5/checks.py (see docs/adding-a-lab.md)" ]
	run bash kit/grading/autograder/build.sh -o "$PWD/ag.zip"
	[ "$status" -eq 1 ]
	[[ $output == "autograder: labs/5-patterns has no grader module grading/lab5/checks.py"* ]]
	[ ! -e ag.zip ]

	rm -r kit/labs/5-patterns kit/grading/lab5
	run kit/grade.sh --list
	[ "$status" -eq 0 ]
	[[ $output == *"lab6"* ]]
	[[ $output != *lab5* && $output != *iopattern* ]]
	run kit/grade.sh --list --labs 5
	[ "$status" -eq 2 ]
	[[ $output == *"--labs: there is no lab 5"* ]]
	run python3 kit/grading/mutants.py --labs 5
	[ "$status" -eq 2 ]
	[[ $output == *"--labs: there is no lab 5"* ]]
	[[ $output != *Traceback* ]]

	run make -s -C kit all
	[ "$status" -eq 0 ]
	# its tests went with its folder
	run make -s -C kit test T=iopattern
	[ "$status" -eq 2 ]
	[[ $output == *"run.sh: there is no test file iopattern; they are:"* && $output == *" lab6 "* && $output != *" lab5 "* ]]
	[[ $output == *" grade-lab6 "* && $output != *grade-lab5* ]]
	# the class results: Lab 5's figure and measures went with its folder
	run python3 -B -c 'import sys; sys.path.insert(0, sys.argv[1]); from grading.classresults import figures, spec
print(" ".join(f[0] for f in figures.FIGURES), "|", " ".join(m[0] for m in spec.METRICS if m[1] == 5))' kit
	[ "$status" -eq 0 ]
	[ "$output" = "lab1-lost lab2-fflush lab3-threads lab4-wall-cpu lab6-fsync predictions | " ]
	cd kit
	run env LABS=5 bash common/handin.sh
	[ "$status" -eq 2 ]
	[ "$output" = "handin: LABS=5: there is no lab 5 (labs: 1,2,3,4,6)" ]
	run bash common/handin.sh
	[ "$status" -eq 1 ]
	[[ $output == *"handin: not packed; missing:"* ]]
	[[ $output != *lab5* ]]
	[ ! -e iolab-handin.tar.gz ]
}
