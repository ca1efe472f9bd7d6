#!/usr/bin/env bats
# grade.sh on Lab 6: full marks for the reference; a saver that forgets an
# fsync keeps its bytes right and loses the crash-state check only; and
# every mutant of the safe save loses that check in every grading.

load ../../../tests/helpers
load ../../tests/grading
GRADED_LAB=6

setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	mkdir subs
	reference_kit 6
	cp kit/iolab-handin.tar.gz subs/reference.tar.gz
	# The safe strategy without the directory's fsync: every file it
	# writes is right, but a crash after the rename may lose the rename.
	# (grading/lab6/checks.py's mutant saver-safe-no-dir-fsync)
	mutant no-dir-fsync saver-safe-no-dir-fsync
	"$ROOT/grade.sh" --batch subs -j 2 --labs 6 --out grades >batch.log 2>&1
}

@test "grade.sh --labs 6: the reference submission scores full marks" {
	full_marks reference
}

@test "grade.sh lab 6: a safe save without the directory's fsync loses the crash-state check only" {
	[ "$(failed no-dir-fsync)" = "saver -s safe: no broken crash state under any model" ]
	grep -q "broken" "$BATS_FILE_TMPDIR/grades/no-dir-fsync.txt"
	[ "$(points_lost no-dir-fsync)" -eq "$("$ROOT/grade.sh" --list --labs 6 |
		awk -F'\t' '$3 == "saver -s safe: no broken crash state under any model" { print $2 }')" ]
}

@test "grade.sh lab 6: every mutant of the safe save loses its check in every grading (3, or IOLAB_MUTANT_TIMES)" {
	all_mutants_caught 6 2 5
}
