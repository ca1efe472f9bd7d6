#!/usr/bin/env bats
# grade.sh on Lab 2: full marks for a tiny-scale reference submission, and
# exactly the right checks lost by broken copies of it: a lockbench whose
# --csv row counts a batch too many, one that hangs when a sync fails, one
# that flushes even with --no-flush, one that flushes after the unlock, and
# made-up results.

load helpers
load grading
GRADED_LAB=2

setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	# A student's kit with Lab 2 done at tiny scale.
	mkdir subs
	reference_kit 2
	local ref=unpacked/iolab-handin lab2=labs/2-locking
	variant reference

	# The --csv row counts one batch more than lockbench made; the file is right.
	variant wrong-csv
	sed -i 's/^\([[:space:]]*kind_names\[kind\], sync_names\[sync\], (unsigned long long)batches\),$/\1 + 1,/' subs/wrong-csv/$lab2/lockbench.c
	changed wrong-csv $lab2/lockbench.c
	# A failed fdatasync or fsync spins forever instead of exiting 1.
	variant hang-sync
	sed -i 's/^\t\t\tdie("%s: f\(data\)\?sync: %s", path, strerror(errno));$/\t\t\tfor (volatile int spin = 0;; spin++)\n\t\t\t\t;/' subs/hang-sync/$lab2/lockbench.c
	changed hang-sync $lab2/lockbench.c
	# --no-flush is accepted, and printed in the CSV, but every batch is
	# still flushed inside the lock.
	variant always-flush
	sed -i 's/^\t\tif (flush && fflush(fp) != 0)$/\t\tif (fflush(fp) != 0)/' subs/always-flush/$lab2/lockbench.c
	changed always-flush $lab2/lockbench.c
	# The flush comes after the unlock: the batch's last write(2) is
	# unlocked, which two writers show only when the other one takes the
	# lock in that moment.
	variant unlock-then-flush
	sed -i -e 's/^\t\tif (flush && fflush(fp) != 0)$/\t\tif (0)/' \
		-e 's/^\t\tint64_t released = now_ns();$/&\n\t\tif (flush \&\& fflush(fp) != 0)\n\t\t\tdie_errno(path);/' \
		subs/unlock-then-flush/$lab2/lockbench.c
	changed unlock-then-flush $lab2/lockbench.c
	# Made-up results: every writer took exactly 2 s, whatever K.
	variant fabricated
	awk -F, -v OFS=, 'NR > 1 { $9 = "2.000000" } 1' $ref/data/lab2.csv >subs/fabricated/data/lab2.csv

	"$ROOT/grade.sh" --batch subs -j 2 --labs 2 >batch.log 2>&1
}

@test "grade-lab2: the tiny-scale reference submission scores full marks" {
	[ -z "$(failed reference)" ]
	[ "$(points_lost reference)" -eq 0 ]
	# every Lab 2 check ran, and the machine description
	[ "$(grep -c '^\(lab2\|all\): .*: PASS ' "$BATS_FILE_TMPDIR/subs/reference.txt")" -eq "$("$ROOT/grade.sh" --list --labs 2 | wc -l)" ]
}

@test "grade-lab2: a batch too many in the --csv row loses the counts check, with the row expected" {
	[ "$(failed wrong-csv)" = "flock-writer and lockbench: N lines of the character, lockbench --csv" ]
	grep -q "^    --csv: expected the kit's header and a row starting [C-Z],[0-9]*,[0-9]*,[01]," "$BATS_FILE_TMPDIR/subs/wrong-csv.txt"
	grep -q "reproduce: bin/lockbench -c [C-Z] -n [0-9]* -k [0-9]* .*--csv f" "$BATS_FILE_TMPDIR/subs/wrong-csv.txt"
	[ "$(points_lost wrong-csv)" -eq 2 ]
}

@test "grade-lab2: a lockbench that hangs on a failed sync fails by the timeout, and grading goes on" {
	[ "$(failed hang-sync)" = "failed writes and syncs exit 1, bad arguments exit 2" ]
	grep -q "lockbench did not finish in time (killed)" "$BATS_FILE_TMPDIR/subs/hang-sync.txt"
	grep -q 'reproduce: bin/lockbench -n [0-9]* --sync f\(data\)\?sync --lock [a-z]* /dev/null; echo \$?' "$BATS_FILE_TMPDIR/subs/hang-sync.txt"
	[ "$(points_lost hang-sync)" -eq 1 ]
	! pgrep -f "iolab-grade.*/bin/lockbench"
}

@test "grade-lab2: a --no-flush that still flushes loses the --no-flush check only" {
	[ "$(failed always-flush)" = "two writers with --no-flush: nothing lost, runs no longer multiples of K" ]
	grep -q "the batches were still written inside the lock" "$BATS_FILE_TMPDIR/subs/always-flush.txt"
	grep -q "reproduce: rm -f t; bin/lockbench -c H .* --no-flush t" "$BATS_FILE_TMPDIR/subs/always-flush.txt"
	[ "$(points_lost always-flush)" -eq 2 ]
}

@test "grade-lab2: a flush after the unlock is caught by strace, every time" {
	command -v strace >/dev/null || skip "strace is not installed"
	[ "$(failed unlock-then-flush)" = "two writers with a lock and the flush: nothing lost, runs multiples of K, writes inside the lock" ]
	grep -q "write(2)s to the file came with no lock held" "$BATS_FILE_TMPDIR/subs/unlock-then-flush.txt"
	grep -q "reproduce: strace -e trace=flock,fcntl,write bin/lockbench -n [0-9]* -k [0-9]* --lock [a-z]* t" "$BATS_FILE_TMPDIR/subs/unlock-then-flush.txt"
	[ "$(points_lost unlock-then-flush)" -eq 3 ]
}

@test "grade-lab2: made-up constant timings are caught by both data checks" {
	[ "$(failed fabricated | tr '\n' '|')" = "data/lab2.csv: every experiment, plausible values, 2+ real trials|data/lab2.csv: nothing lost, locked runs multiples of K, K=1 slower than K=1000|" ]
	grep -q "took exactly 2.000000 s: not measured" "$BATS_FILE_TMPDIR/subs/fabricated.txt"
	grep -q "a lock per line costs more" "$BATS_FILE_TMPDIR/subs/fabricated.txt"
	[ "$(points_lost fabricated)" -eq 4 ]
}
