#!/usr/bin/env bats
# grade.sh on Lab 6: full marks for the reference; a saver that forgets an
# fsync keeps its bytes right and loses the crash-state check only; a
# saver that writes in place and forges a safe save's calls into every
# descriptor it has loses it too (the calls come from the grader's
# tracer); and every mutant of the safe save loses that check in every
# grading.

load ../../../tests/helpers
load ../../tests/grading
GRADED_LAB=6

setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	mkdir subs
	reference_kit 6
	mkdir -m 700 grades
	shared_reference grades/reference || cp kit/iolab-handin.tar.gz subs/reference.tar.gz
	# The safe strategy without the directory's fsync: every file it
	# writes is right, but a crash after the rename may lose the rename.
	# (grading/lab6/checks.py's mutant saver-safe-no-dir-fsync)
	mutant no-dir-fsync saver-safe-no-dir-fsync
	"$ROOT/grade.sh" --batch subs -j 2 --labs 6 --out grades >batch.log 2>&1
}

@test "grade.sh lab 6: the reference submission scores full marks" {
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

@test "grade.sh lab 6: a save in place with no fsync, forging a safe save's calls into every descriptor, loses the crash-state check" {
	cd "$BATS_FILE_TMPDIR" || return 1
	variant forger
	# save_safe() writes the document over itself, syncs nothing, then
	# writes the lines of a safe save, in the old recorder's log format
	# and in strace's, to descriptors 0 to 1023
	python3 - subs/forger/labs/6-fsync/saver.c <<-'EOF'
	import re, sys
	path = sys.argv[1]
	src = open(path).read()
	body = r"""
		static const char fake[] = "open doc.kv.tmp fd=9 flags=wronly|creat|trunc created=1\n"
			"fsync doc.kv.tmp fd=9\nrename doc.kv.tmp doc.kv\nfsync . fd=8\nexit\n"
			"1 fsync(9) = 0\n1 rename(\"doc.kv.tmp\", \"doc.kv\") = 0\n1 fsync(8) = 0\n";
		int fd = open(path, O_WRONLY | O_TRUNC);

		(void)tmp;
		(void)dir;
		if (fd < 0 || write_all(fd, doc, len) != 0)
			die_errno(path);
		close_or_die(fd, path);
		for (int i = 0; i < 1024; i++)
			if (write(i, fake, sizeof fake - 1) < 0)
				continue;
	"""
	new, n = re.subn(r"(/\* BEGIN SOLUTION \*/\n).*?(\t/\* END SOLUTION \*/)", lambda m: m[1] + body + m[2], src, flags=re.S)
	assert n == 1
	open(path, "w").write(new)
	EOF
	changed forger labs/6-fsync/saver.c
	run "$ROOT/grade.sh" --labs 6 --only "no broken crash state" subs/forger
	[[ $output == *"lab6: build saver: PASS 1/1"* ]] || { echo "$output"; false; }
	[[ $output == *"lab6: saver -s safe: no broken crash state under any model: FAIL 0/5"* ]]
	# the way to a broken state: the in-place write, its bytes lost
	[[ $output == *"open doc.kv (wronly|trunc)"* ]]
	[[ $output == *"states a crash can leave are broken"* ]]
	[[ $output == *"Score: 1/6"* ]]
}
