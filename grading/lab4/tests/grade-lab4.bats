#!/usr/bin/env bats
# grade.sh on Lab 4: full marks for the reference, and for each broken copy
# of it exactly the checks it should lose. Then the mutants of
# grading/lab4/checks.py, each graded 3 times (pwriters writing other bytes or
# accepting -F 0, datagen ignoring --seed among them).

load ../../../tests/helpers
load ../../tests/grading
GRADED_LAB=4

# One batch run grades every broken copy (Lab 4 only), and the reference
# where the suites share no grading of it (shared_reference); the tests
# read their reports.
setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	# A student's kit with Lab 4 done at tiny scale.
	mkdir subs
	reference_kit 4
	mkdir -m 700 grades
	shared_reference grades/reference || cp kit/iolab-handin.tar.gz subs/reference.tar.gz

	# Broken copies, as directories.
	local lab4=labs/4-writers
	variant hang		# datagen's writers never see that they should stop
	sed -i 's/while (round_no == written \&\& !stopping)/while (round_no == written)/' subs/hang/$lab4/datagen.c
	# Fabricated results: every trial of pwriters a copy of the first, with a
	# thread per file 100 times cheaper in CPU without fsync (its rate
	# recomputed so that the row stays consistent); two datagen runs per mode.
	variant fabricated
	awk -F, -v OFS=, 'NR > 1 { key = $2 "," $4 "," $5 "," $7
			if (key in first) { split(first[key], t, " "); $9 = t[1]; $10 = t[2]; $11 = t[3]; $12 = t[4] }
			else first[key] = $9 " " $10 " " $11 " " $12 }
		NR > 1 && $2 == "per-file" && $7 == 0 {
			$10 = sprintf("%.6f", $10 / 100); $12 = sprintf("%.3f", $4 * $5 / 1048576 / $10) } 1' \
		unpacked/iolab-handin/data/lab4-writers.csv >subs/fabricated/data/lab4-writers.csv
	awk -F, '$1 != 3' unpacked/iolab-handin/data/lab4-datagen.csv >subs/fabricated/data/lab4-datagen.csv

	# A ThreadSanitizer build that fails as if TSan could not run here,
	# graded by the race check only: the grader's own probe runs, so the
	# student is not let off. (Its message spelt in two strings: a source
	# that names the sanitizer is refused before it runs.)
	mkdir subs-tsan
	cp -R unpacked/iolab-handin subs-tsan/fake-fatal
	sed -i 's/^\tenum strategy strategy = o.strategy;$/&\n\tif (strategy == PER_FILE) {\n\t\tfprintf(stderr, "FATAL: ThreadSan" "itizer: unexpected memory mapping\\n");\n\t\texit(66);\n\t}/' \
		subs-tsan/fake-fatal/$lab4/pwriters.c
	cmp -s unpacked/iolab-handin/$lab4/pwriters.c subs-tsan/fake-fatal/$lab4/pwriters.c && return 1
	"$ROOT/grade.sh" --labs 4 --only ThreadSanitizer subs-tsan/fake-fatal >fake-fatal.txt 2>&1 || true
	# One whose ThreadSanitizer run forks up to the uid's process limit
	# (each child asleep in a session of its own), prints TSan's error and
	# kills its reaper: it made the probe, run after it, fail too, and the
	# check SKIP (2/2, not 2/4) without bubblewrap. The probe now runs
	# before any student's code. Graded with bubblewrap and without.
	cp -R unpacked/iolab-handin subs-tsan/fork-fatal
	python3 - subs-tsan/fork-fatal/$lab4/pwriters.c <<-'PY'
	import sys
	at = "\tenum strategy strategy = o.strategy;\n"
	src = open(sys.argv[1]).read()
	assert src.count(at) == 1
	open(sys.argv[1], "w").write(src.replace(at, at + (
	    "\tif (strategy == PER_FILE) {\n"
	    "\t\tpid_t reaper = getppid();\n"
	    "\t\tfor (int i = 0; i < 1000; i++) {\n"
	    "\t\t\tpid_t child = fork();\n"
	    "\t\t\tif (child < 0)\n"
	    "\t\t\t\tbreak;\n"
	    "\t\t\tif (child == 0) {\n"
	    "\t\t\t\tsetsid();\n"
	    "\t\t\t\tsleep(30);\n"
	    "\t\t\t\t_exit(0);\n"
	    "\t\t\t}\n"
	    "\t\t}\n"
	    "\t\tfprintf(stderr, \"FATAL: ThreadSan\" \"itizer: unexpected memory mapping 0x7b0000000000-0x7c0000000000\\n\");\n"
	    "\t\tkill(reaper, SIGKILL);\n"
	    "\t\texit(66);\n"
	    "\t}\n")))
	PY
	"$ROOT/grade.sh" --labs 4 --only ThreadSanitizer subs-tsan/fork-fatal >fork-fatal.txt 2>&1 || true
	# (a user who is not root is refused without bubblewrap: only root has own uids)
	[ "$(id -u)" -ne 0 ] ||
		"$ROOT/grade.sh" --labs 4 --only ThreadSanitizer --no-bwrap subs-tsan/fork-fatal >fork-fatal-no-bwrap.txt 2>&1 || true

	# The racy pwriters of the mutant pwriters-takes-outside-lock, its race
	# hidden from ThreadSanitizer in each way hide-from-tsan.py knows,
	# each graded by the race check only.
	mutant racy pwriters-takes-outside-lock && mv subs/racy racy || return 1
	python3 "$ROOT/grading/lab4/tests/hide-from-tsan.py" racy hidden
	local copy
	for copy in hidden/*; do
		"$ROOT/grade.sh" --labs 4 --only ThreadSanitizer "$copy" >"$copy.txt" 2>&1 || true
	done

	"$ROOT/grade.sh" --batch subs -j 2 --labs 4 >batch.log 2>&1
}

# says NAME TEXT: the report of submission NAME holds TEXT.
says() {
	grep -qF -- "$2" "$BATS_FILE_TMPDIR/grades/$1.txt"
}

@test "grade.sh lab 4: the reference submission scores full marks" {
	full_marks reference
}

@test "grade.sh lab 4: a datagen that never ends is killed, and grading goes on" {
	# its ThreadSanitizer build hangs as well
	[ "$(failed hang | tr '\n' '|')" = "datagen: threaded and -z write the kit's bytes, per seed|pwriters and datagen: no data race (ThreadSanitizer)|" ]
	[ "$(points_lost hang)" -eq 5 ]
	says hang "datagen did not finish in 5 s (killed)"
	says hang "datagen (built with ThreadSanitizer) did not finish in 10 s (killed)"
	says hang "reproduce: mkdir d; bin/datagen -s "
	! pgrep -f "iolab-grade.*/bin/datagen"
}

@test "grade.sh lab 4: copied trials, too few runs and a thread per file that costs no CPU are caught" {
	[ "$(failed fabricated | tr '\n' '|')" = "data/lab4-writers.csv: every configuration, plausible values, 3+ real trials|data/lab4-datagen.csv: both modes, plausible values, 3+ real runs|data/lab4-writers.csv: without fsync, a thread per file costs CPU|" ]
	[ "$(points_lost fabricated)" -eq 6 ]
	says fabricated ": not measured"
	says fabricated "only 2 "
	says fabricated "the median cpu_mib_s of per-file"
}

@test "grade.sh lab 4: a ThreadSanitizer build that only says TSan cannot run here still fails" {
	grep -q "^lab4: pwriters and datagen: no data race (ThreadSanitizer): FAIL 0/2" "$BATS_FILE_TMPDIR/fake-fatal.txt"
	grep -q "pwriters (built with ThreadSanitizer): exit status 66 (FATAL: ThreadSanitizer: unexpected memory mapping)" "$BATS_FILE_TMPDIR/fake-fatal.txt"
	[ "$(grep -c "not checked\|: SKIP" "$BATS_FILE_TMPDIR/fake-fatal.txt")" -eq 0 ]
}

@test "grade.sh lab 4: a ThreadSanitizer run that forks to the uid's limit, says TSan cannot run and kills its reaper fails, with bubblewrap and without" {
	local txt
	for txt in fork-fatal $([ "$(id -u)" -ne 0 ] || echo fork-fatal-no-bwrap); do
		grep -q "^lab4: pwriters and datagen: no data race (ThreadSanitizer): FAIL 0/2" "$BATS_FILE_TMPDIR/$txt.txt"
		# its reaper killed: the signal that ended it is named, and what it said
		grep -qE "pwriters \(built with ThreadSanitizer\)(: exit status .*\(| was killed by .*\(it said: )FATAL: ThreadSanitizer: unexpected memory mapping" \
			"$BATS_FILE_TMPDIR/$txt.txt"
		grep -qx "Score: 2/4" "$BATS_FILE_TMPDIR/$txt.txt"
		[ "$(grep -c "not checked\|: SKIP" "$BATS_FILE_TMPDIR/$txt.txt")" -eq 0 ]
	done
	grep -q "^Containment: bubblewrap" "$BATS_FILE_TMPDIR/fork-fatal.txt"
	! pgrep -f "iolab-grade.*/bin/pwriters-tsan"
	[ "$(id -u)" -eq 0 ] || skip "graded without bubblewrap only as root (not root, the grader refuses)"
	grep -q "^Containment: " "$BATS_FILE_TMPDIR/fork-fatal-no-bwrap.txt"
	! grep -q "^Containment: bubblewrap" "$BATS_FILE_TMPDIR/fork-fatal-no-bwrap.txt"
}

@test "grade.sh lab 4: a race hidden from ThreadSanitizer by a macro, a forged line marker, #line, a header, compiled-in options, a weak reference or TSan's interface fails the race check, saying why" {
	local way said
	while IFS='|' read -r way said; do
		grep -q "^lab4: pwriters and datagen: no data race (ThreadSanitizer): FAIL 0/2" "$BATS_FILE_TMPDIR/hidden/$way.txt"
		grep -qF -- "$said" "$BATS_FILE_TMPDIR/hidden/$way.txt"
		grep -qx "Score: 2/4" "$BATS_FILE_TMPDIR/hidden/$way.txt"
	done <<-'EOF'
	macro|labs/4-writers/pwriters.c preprocesses differently with -fsanitize=thread: it tests for a sanitizer
	marker|labs/4-writers/pwriters.c has a #line or a line marker ('# 1 "file"')
	line|labs/4-writers/pwriters.c has a #line or a line marker ('# 1 "file"')
	header|labs/4-writers/pwriters.c uses __asm__, which hides memory accesses from ThreadSanitizer
	options|labs/4-writers/pwriters.c uses __tsan_default_options, which hides
	weakref|labs/4-writers/pwriters.c uses weakref, which hides
	interface|labs/4-writers/pwriters.c uses __sanitizer_
	EOF
	[ "$(ls "$BATS_FILE_TMPDIR"/hidden/*.txt | wc -l)" -eq 7 ]
}

@test "grade.sh lab 4: every mutant of pwriters and datagen loses its check in every grading (3, or IOLAB_MUTANT_TIMES)" {
	all_mutants_caught 4 2 11
}
