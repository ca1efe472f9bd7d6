#!/usr/bin/env bats
# grade.sh on Lab 3: full marks for a tiny-scale reference submission, and
# exactly the right checks lost by broken copies of it: a fillcopy that
# writes other bytes and a membw that prints a store and copy row too few, a fillcopy that
# hangs, one that is slow, and made-up results. Then the mutants of
# grading/lab3/checks.py, each graded 3 times.

load ../../../tests/helpers
load ../../tests/grading
GRADED_LAB=3

setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	# A student's kit with Lab 3 done at tiny scale.
	mkdir subs
	reference_kit 3
	local ref=unpacked/iolab-handin lab3=labs/3-threads
	mkdir -m 700 grades
	shared_reference grades/reference || variant reference

	# membw without the last repetition's store and copy rows (the mutant
	# membw-pair-too-few); and thread K seeds its generator with K + 2:
	# self-consistent, so --verify passes, but no file holds the kit's slice.
	mutant wrong-output membw-pair-too-few
	sed -i 's/rng_seed(&workers\[k\].rng, k + 1);/rng_seed(\&workers[k].rng, k + 2);/' subs/wrong-output/$lab3/fillcopy.c
	changed wrong-output $lab3/fillcopy.c
	# --corrupt never ends.
	variant hang-corrupt
	sed -i '/^static void corrupt(size_t k)$/,/^}/s/^\tsize_t from, to;$/&\n\n\tfor (volatile int spin = 0;; spin++)\n\t\t;/' subs/hang-corrupt/$lab3/fillcopy.c
	changed hang-corrupt $lab3/fillcopy.c
	# The fill counts to 10 for every byte before filling: same bytes, slow
	# (not a mutant: 10 gradings of the speed check cost more than this one).
	variant slow-fill
	sed -i 's/^\tsize_t i = w->from, end = w->to;$/&\n\n\tfor (volatile size_t spin = 0; spin < 10 * (end - i); spin++)\n\t\t;/' subs/slow-fill/$lab3/fillcopy.c
	changed slow-fill $lab3/fillcopy.c
	# Made-up results: every membw store and copy took 1 ms; the rand() fill at 2
	# threads took the CPU time of 1 thread's, in a quarter of its elapsed
	# time (the 1-thread row of a trial comes first; mib_s computed to match).
	variant fabricated
	awk -F, -v OFS=, 'NR > 1 { $7 = "0.001000"; $8 = sprintf("%.1f", $5 * $4 / 1048576 / 0.001) } 1' \
		$ref/data/lab3-membw.csv >subs/fabricated/data/lab3-membw.csv
	changed fabricated data/lab3-membw.csv
	awk -F, -v OFS=, '$5 == "rand" && $7 == 1 && $9 == "fill" && $2 == 1 { cpu = $11 }
		$5 == "rand" && $7 == 1 && $9 == "fill" && $2 == 2 {
			$10 = sprintf("%.6f", cpu / 4); $11 = sprintf("%.6f", 2 * $10); $12 = sprintf("%.1f", $3 / 1048576 / $10) } 1' \
		$ref/data/lab3.csv >subs/fabricated/data/lab3.csv
	changed fabricated data/lab3.csv

	# Every file one byte short (of those with a byte to lose; --verify
	# agrees), graded by the slices check only: the message pairs each
	# file's expected size with the student's.
	mkdir subs-short
	cp -R $ref subs-short/short-files
	sed -i 's/^\tslice(size, nfiles, k, &from, &to);$/&\n\tto -= to > from;/' subs-short/short-files/$lab3/fillcopy.c
	cmp -s $ref/$lab3/fillcopy.c subs-short/short-files/$lab3/fillcopy.c && return 1
	"$ROOT/grade.sh" --labs 3 --only "exact sizes" subs-short/short-files >short-files.txt 2>&1 || true

	"$ROOT/grade.sh" --batch subs -j 2 --labs 3 >batch.log 2>&1
}

@test "grade-lab3: the tiny-scale reference submission scores full marks" {
	[ -z "$(failed reference)" ]
	[ "$(points_lost reference)" -eq 0 ]
	# every Lab 3 check ran, and the machine description
	[ "$(grep -c '^\(lab3\|all\): .*: PASS ' "$BATS_FILE_TMPDIR/grades/reference.txt")" -eq "$("$ROOT/grade.sh" --list --labs 3 | wc -l)" ]
	# the huge-page check says which case this machine's setting made it run
	setting=$(sed -n 's/.*\[\(.*\)\].*/\1/p' /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo never)
	grep -q "^    transparent_hugepage is ${setting:-never} here: " "$BATS_FILE_TMPDIR/grades/reference.txt"
}

@test "grade-lab3: other bytes in the files, a row pair too few from membw: the slices, membw and speed checks" {
	# the speed check also checks the bytes of the runs it timed
	[ "$(failed wrong-output | tr '\n' '|')" = "fillcopy: file K holds slice K of the kit's buffer, exact sizes|membw: --csv rows, -t threads, exit codes|fillcopy: fill and copy speed within 3x the kit's|" ]
	grep -q "is not slice 0 of the buffer" "$BATS_FILE_TMPDIR/grades/wrong-output.txt"
	grep -q "reproduce: mkdir d; bin/fillcopy -s " "$BATS_FILE_TMPDIR/grades/wrong-output.txt"
	grep -q "reproduce: bin/membw -t [0-9]* -s [0-9]* -r [0-9]* -p [0-9]* --csv" "$BATS_FILE_TMPDIR/grades/wrong-output.txt"
	grep -q "rows, not [0-9]* (a store and a copy row per repetition)" "$BATS_FILE_TMPDIR/grades/wrong-output.txt"
	grep -q "the dump file of the run timed is not the kit's" "$BATS_FILE_TMPDIR/grades/wrong-output.txt"
	[ "$(points_lost wrong-output)" -eq 8 ]
}

@test "grade-lab3: files each one byte short are shown as pairs, expected and yours, not as missing" {
	cd "$BATS_FILE_TMPDIR"
	grep -q "^lab3: fillcopy: file K holds slice K of the kit's buffer, exact sizes: FAIL" short-files.txt
	grep -q "^      file 0: [0-9]* bytes expected, yours [0-9]* bytes (1 byte short)$" short-files.txt
	grep -q "the last one also the remainder, expected; [0-9]* differ:$" short-files.txt
	! grep -q "no file" short-files.txt
}

@test "grade-lab3: a fillcopy that hangs fails by the timeout, and grading goes on" {
	[ "$(failed hang-corrupt)" = "fillcopy: --verify catches --corrupt; no files left behind" ]
	grep -q "fillcopy did not finish in 5 s (killed)" "$BATS_FILE_TMPDIR/grades/hang-corrupt.txt"
	[ "$(points_lost hang-corrupt)" -eq 2 ]
}

@test "grade-lab3: a slow fill loses the speed check only" {
	[ "$(failed slow-fill)" = "fillcopy: fill and copy speed within 3x the kit's" ]
	grep -q "slower than 3x the kit's" "$BATS_FILE_TMPDIR/grades/slow-fill.txt"
	[ "$(points_lost slow-fill)" -eq 2 ]
}

@test "grade-lab3: made-up results are caught: constant timings, a rand() that scales" {
	[ "$(failed fabricated | tr '\n' '|')" = "data/lab3*.csv: every configuration, plausible values, 3+ real trials|data/lab3.csv: rand() slow and not faster with 2 threads, --prefault removes the faults|" ]
	grep -q "every store and copy took exactly 0.001 s: not measured" "$BATS_FILE_TMPDIR/grades/fabricated.txt"
	grep -q "rand() has one lock" "$BATS_FILE_TMPDIR/grades/fabricated.txt"
	[ "$(points_lost fabricated)" -eq 4 ]
}

@test "grade-lab3: every mutant of fillcopy and membw loses its check in every grading (3, or IOLAB_MUTANT_TIMES)" {
	# two mutants at a time: each grading is mostly waiting (stopped or
	# short programs), and the two cores of CI halve the run time
	all_mutants_caught 3 2 13
}
