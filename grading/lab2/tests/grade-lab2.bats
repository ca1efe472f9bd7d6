#!/usr/bin/env bats
# grade.sh on Lab 2: full marks for a tiny-scale reference submission, with
# bubblewrap and without it, and exactly the right checks lost by broken
# copies of it: a lockbench whose --csv row counts a batch too many, one
# that hangs when a sync fails, one that flushes even with --no-flush, one
# that flushes after the unlock (in both modes: the grader's LD_PRELOAD
# shim needs no strace), one that takes no lock, and made-up results. Then
# the mutants of grading/lab2/checks.py, each graded 3 times.

load ../../../tests/helpers
load ../../tests/grading
GRADED_LAB=2

setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	# A student's kit with Lab 2 done at tiny scale.
	mkdir subs
	reference_kit 2
	local ref=unpacked/iolab-handin lab2=labs/2-locking
	mkdir -m 700 grades
	shared_reference grades/reference || variant reference

	# Known-wrong lockbenches, from grading/lab2/checks.py's MUTANTS: the --csv row
	# counts one batch more than lockbench made (the file is right); a
	# failed fdatasync or fsync spins forever instead of exiting 1;
	# --no-flush is accepted, and printed in the CSV, but every batch is
	# still flushed inside the lock; the flush comes after the unlock (the
	# batch's last write(2) is unlocked, which two writers show only when
	# the other one takes the lock in that moment); --lock is parsed, and
	# printed in the CSV, but no lock is taken.
	mutant wrong-csv lockbench-csv-batches
	mutant hang-sync lockbench-hang-on-failed-sync
	mutant always-flush lockbench-no-flush-ignored
	mutant unlock-then-flush lockbench-unlock-before-flush
	mutant no-lock lockbench-no-lock
	# Made-up results: every writer took exactly 2 s, whatever K.
	variant fabricated
	python3 - $ref/data/lab2.csv subs/fabricated/data/lab2.csv <<-'EOF'
		import csv, sys
		with open(sys.argv[1], newline="") as f:
		    rows = list(csv.DictReader(f))
		with open(sys.argv[2], "w", newline="") as f:
		    w = csv.DictWriter(f, fieldnames=list(rows[0]))
		    w.writeheader()
		    w.writerows(dict(r, wall_s="2.000000") for r in rows)
	EOF

	# Without bubblewrap (as on Gradescope): the reference and the flush
	# after the unlock.
	mkdir subs-no-bwrap
	cp -R $ref subs-no-bwrap/reference
	cp -R subs/unlock-then-flush subs-no-bwrap/

	# Hollow figures and answers, graded by those two checks only: a blank
	# PNG of the right size (about 2 KB), a real figure of another size, and
	# an answer of "x"; then the same PNGs over CSVs of headers only.
	mkdir subs-hollow
	cp -R $ref subs-hollow/hollow
	# the size the kit draws it: the script's "# size: W,H" line
	size=$(sed -n 's/^# size: //p' "$ROOT/plot/lab2-time.gp")
	python3 - subs-hollow/hollow/plot/lab2-time.png "${size:-960,600}" <<-'EOF'
		import struct, sys, zlib
		def chunk(kind, data):
		    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
		width, height = map(int, sys.argv[2].split(","))
		rows = b"".join(b"\0" + b"\xff" * width * 3 for _ in range(height))
		with open(sys.argv[1], "wb") as f:
		    f.write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0))
		            + chunk(b"IDAT", zlib.compress(rows, 9)) + chunk(b"IEND", b""))
	EOF
	cp $ref/plot/lab2-runs.png subs-hollow/hollow/plot/lab2-locks.png
	sed -i '/^## Q2.2/,/^## Q2.3/{/^## Q2/!d}; s/^## Q2.2$/&\nx/' subs-hollow/hollow/answers.md
	"$ROOT/grade.sh" --labs 2 --only figures subs-hollow/hollow >hollow-figures.txt 2>&1 || true
	"$ROOT/grade.sh" --labs 2 --only answers subs-hollow/hollow >hollow-answers.txt 2>&1 || true
	cp -R subs-hollow/hollow subs-hollow/no-data
	for f in subs-hollow/no-data/data/lab2*.csv; do sed -i '2,$d' "$f"; done
	"$ROOT/grade.sh" --labs 2 --only figures subs-hollow/no-data >no-data-figures.txt 2>&1 || true

	"$ROOT/grade.sh" --batch subs --out grades -j 2 --labs 2 >batch.log 2>&1
	# (a user who is not root is refused without bubblewrap: only root has own uids)
	[ "$(id -u)" -ne 0 ] ||
		"$ROOT/grade.sh" --batch subs-no-bwrap --out grades-no-bwrap -j 2 --labs 2 --no-bwrap >batch-no-bwrap.log 2>&1
}

@test "grade-lab2: the tiny-scale reference submission scores full marks, with bubblewrap and without" {
	[ -z "$(failed reference)" ]
	[ "$(points_lost reference)" -eq 0 ]
	# every Lab 2 check ran, and the machine description
	[ "$(grep -c '^\(lab2\|all\): .*: PASS ' "$BATS_FILE_TMPDIR/grades/reference.txt")" -eq "$("$ROOT/grade.sh" --list --labs 2 | wc -l)" ]
	grep -q "^Containment: bubblewrap sandbox" "$BATS_FILE_TMPDIR/grades/reference.txt"
	[ "$(id -u)" -eq 0 ] || skip "graded without bubblewrap only as root (not root, the grader refuses)"
	grep -q "^Score: \([0-9]*\)/\1$" "$BATS_FILE_TMPDIR/grades-no-bwrap/reference.txt"
	! grep -q "^Containment: bubblewrap" "$BATS_FILE_TMPDIR/grades-no-bwrap/reference.txt"
}

@test "grade-lab2: a batch too many in the --csv row loses the counts check, with the row expected" {
	[ "$(failed wrong-csv)" = "flock-writer and lockbench: N lines of the character, lockbench --csv" ]
	grep -q "^    --csv: expected the kit's header and a row starting [C-Z],[0-9]*,[0-9]*,[01]," "$BATS_FILE_TMPDIR/grades/wrong-csv.txt"
	grep -q "reproduce: bin/lockbench -c [C-Z] -n [0-9]* -k [0-9]* .*--csv f" "$BATS_FILE_TMPDIR/grades/wrong-csv.txt"
	[ "$(points_lost wrong-csv)" -eq 2 ]
}

@test "grade-lab2: a lockbench that hangs on a failed sync fails by the timeout, and grading goes on" {
	[ "$(failed hang-sync)" = "failed writes and syncs exit 1, bad arguments exit 2" ]
	grep -q "lockbench did not finish in [0-9]* s (killed)" "$BATS_FILE_TMPDIR/grades/hang-sync.txt"
	grep -q 'reproduce: bin/lockbench -n [0-9]* --sync f\(data\)\?sync --lock [a-z]* /dev/null; echo \$?' "$BATS_FILE_TMPDIR/grades/hang-sync.txt"
	[ "$(points_lost hang-sync)" -eq 1 ]
	! pgrep -f "iolab-grade.*/bin/lockbench"
}

@test "grade-lab2: a --no-flush that still flushes loses the --no-flush check only" {
	[ "$(failed always-flush)" = "two writers with --no-flush: nothing lost, runs no longer multiples of K" ]
	grep -q "the batches were still written inside the lock" "$BATS_FILE_TMPDIR/grades/always-flush.txt"
	grep -q "reproduce: strace -e trace=flock,fcntl,write bin/lockbench -n [0-9]* -k [0-9]* --lock [a-z]* --no-flush t" "$BATS_FILE_TMPDIR/grades/always-flush.txt"
	[ "$(points_lost always-flush)" -eq 2 ]
}

@test "grade-lab2: a flush after the unlock is caught by the shim, with bubblewrap and without" {
	local d
	for d in grades $([ "$(id -u)" -ne 0 ] || echo grades-no-bwrap); do
		[ "$(failed ../$d/unlock-then-flush)" = "two writers with a lock and the flush: nothing lost, runs multiples of K, writes inside the lock" ]
		grep -q "bytes reached the file with no lock held: flush the batch before the unlock" "$BATS_FILE_TMPDIR/$d/unlock-then-flush.txt"
		grep -q "reproduce: strace -e trace=flock,fcntl,write bin/lockbench -n [0-9]* -k [0-9]* --lock flock t" "$BATS_FILE_TMPDIR/$d/unlock-then-flush.txt"
		[ "$(points_lost ../$d/unlock-then-flush)" -eq 3 ]
	done
}

@test "grade-lab2: a lockbench that takes no lock loses the lock checks, not the counts" {
	[ "$(failed no-lock | tr '\n' '|')" = "two writers with a lock and the flush: nothing lost, runs multiples of K, writes inside the lock|two writers with --no-flush: nothing lost, runs no longer multiples of K|locks exclude writers until released; --lock none and fcntl ignore flock|" ]
	grep -q "lockbench -k [0-9]* --lock flock wrote while another process held an flock lock on the file" "$BATS_FILE_TMPDIR/grades/no-lock.txt"
	# the hint says what the shim saw: no lock, not a late flush
	grep -q "it took no lock at all (.*): lock the file around each batch" "$BATS_FILE_TMPDIR/grades/no-lock.txt"
	! grep -q "flush the batch before the unlock" "$BATS_FILE_TMPDIR/grades/no-lock.txt"
	[ "$(points_lost no-lock)" -eq 8 ]
}

@test "grade-lab2: made-up constant timings are caught by both data checks" {
	[ "$(failed fabricated | tr '\n' '|')" = "data/lab2.csv: every experiment, plausible values, 2+ real trials|data/lab2.csv: nothing lost, locked runs multiples of K, K=1 slower than K=1000|" ]
	grep -q "took exactly 2.000000 s: not measured" "$BATS_FILE_TMPDIR/grades/fabricated.txt"
	grep -q "a lock per line costs more" "$BATS_FILE_TMPDIR/grades/fabricated.txt"
	[ "$(points_lost fabricated)" -eq 4 ]
}

@test "grade-lab2: the figures' points come from the kit's scripts drawing the data, not from the PNGs handed in; an answer of 'x' is named for 0 points" {
	cd "$BATS_FILE_TMPDIR"
	# the blank one is the size of a PNG header and little more
	[ "$(stat -c %s subs-hollow/hollow/plot/lab2-time.png)" -lt 4000 ]
	# a blank PNG and one of another size, over the reference's data: drawn again, they pass
	grep -q "^lab2: figures: the kit's plot/lab2-\*.gp draw your data: PASS 2/2" hollow-figures.txt
	# the same PNGs over CSVs of headers only: no figure, naming each and gnuplot's reason
	grep -q "^lab2: figures: the kit's plot/lab2-\*.gp draw your data: FAIL 0/2" no-data-figures.txt
	[ "$(grep -c "^    plot/lab2-[a-z]*.png: the kit's plot/lab2-[a-z]*.gp drew no figure from your data (.*)$" no-data-figures.txt)" -eq 3 ]
	grep -q "^lab2: answers to Q2.x present (for the hand grader): FAIL 0/0" hollow-answers.txt
	grep -q "the answer to Q2.2 is not an answer: fewer than 8 words" hollow-answers.txt
	# the answers row adds nothing (and runs no program: nothing is built)
	grep -q "^Score: 0/0$" hollow-answers.txt
}

# locks BIN ARG...: what the grader's tracer sees of the kit's BIN ARG... t
# writing t alone: its lock-unlock pairs (bytes written inside each), locks
# taken again while held, partial locks, and t's size.
locks() {
	: >t
	python3 -I - "$ROOT" "$ROOT/bin/$1" "${@:2}" <<-'PY'
		import os, subprocess, sys
		sys.path.insert(0, sys.argv[1])
		from grading import tracer
		argv = tracer.command("log", tracer.LOCKS, paths=[os.path.abspath("t")]) + sys.argv[2:] + ["t"]
		subprocess.run(argv, stdout=subprocess.DEVNULL, check=True)
		seen = tracer.lock_order("log")
		print(seen["pairs"], seen["relocked"], seen["partial"], os.path.getsize("t"))
	PY
}

@test "grade-lab2: the tracer sees a writer's every lock, unlock and write call, stdio's own included" {
	command -v strace >/dev/null || skip "strace is not installed: the grader's tracer is"
	cd "$BATS_TEST_TMPDIR"
	# two batches of 3 lines, each flushed inside its lock
	run locks lockbench -n 6 -k 3 --lock ofd
	[ "$output" = "[6, 6] 0 0 12" ]
	run locks lockbench -n 5 -k 2 --lock fcntl
	[ "$output" = "[4, 4, 2] 0 0 10" ]
	run locks flock-writer -n 5 -k 2
	[ "$output" = "[4, 4, 2] 0 0 10" ]
	# without the flush, stdio writes the 6 bytes after the unlock: none inside
	run locks lockbench -n 3 -k 3 --lock fcntl --no-flush
	[ "$output" = "[0] 0 0 6" ]
	# no lock: no pair
	run locks lockbench -n 3 -k 3 --lock none
	[ "$output" = "[] 0 0 6" ]
}

@test "grade-lab2: every mutant of Lab 2 loses its check in every grading (3, or IOLAB_MUTANT_TIMES)" {
	all_mutants_caught 2 2 9
}
