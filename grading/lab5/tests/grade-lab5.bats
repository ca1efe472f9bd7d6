#!/usr/bin/env bats
# grade.sh on Lab 5: full marks for the reference, and each broken copy of
# it loses exactly the checks its defect concerns.

load ../../../tests/helpers
load ../../tests/grading
GRADED_LAB=5

# One batch run grades every broken copy, and the reference where the
# suites share no grading of it (shared_reference); the tests read their
# reports.
setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	# A student's kit with Lab 5 done at tiny scale.
	mkdir subs
	reference_kit 5
	cp kit/iolab-handin.tar.gz reference.tar.gz
	mkdir -m 700 grades
	shared_reference grades/reference || cp reference.tar.gz subs/

	# Broken copies, as directories, each with one defect in its program
	# and at most one in its data, which different checks catch (fewer
	# submissions, a shorter test). broken NAME FILE COMMAND... runs COMMAND
	# on FILE of the copy NAME (made from the reference if need be), and
	# fails unless it changed the file, so that no copy is unbroken.
	broken() {
		local name=$1 file=$2
		shift 2
		[ -d "subs/$name" ] || cp -R unpacked/iolab-handin "subs/$name"
		"$@" <"unpacked/iolab-handin/$file" >"subs/$name/$file"
		if cmp -s "unpacked/iolab-handin/$file" "subs/$name/$file"; then
			echo "broken $name: $file unchanged" >&2
			return 1
		fi
	}
	local src=labs/5-patterns/iopattern.c cache=labs/5-patterns/pagecache.h csv=data/lab5.csv
	# stride offsets a whole I/O apart instead of a stride apart
	broken stride-copies $src sed 's/: (i % slots) \* c->stride;/: (i % slots) * c->io;/'
	# every trial a copy of the run's first: fabricated repetitions
	broken stride-copies $csv awk -F, -v OFS=, '
		NR > 1 && $12 == 1 { for (i = 13; i <= 22; i++) first[i] = $i }
		NR > 1 { for (i = 13; i <= 22; i++) $i = first[i] } 1'
	# an existing FILE is registered for removal before it is refused
	broken clobber-fsync $cache sed 's/if (lstat(path, &st) == 0)/if (lstat(path, \&st) == 0 \&\& 0)/'
	# an fsync per 4 KiB write 1000 times faster, its rows kept consistent
	broken clobber-fsync $csv awk -F, -v OFS=, '
		$1 == "write-size" && $2 == "fsync-each" && $5 == 4096 {
			$15 = sprintf("%.9f", $15 / 1000)
			for (i = 17; i <= 19; i++) $i *= 1000
			for (i = 23; i <= 26; i++) $i *= 1000 } 1'
	# each trial skips its last I/O but reports it
	broken skip-last $src sed 's/for (uint64_t i = s->first; i < s->end; i++) {/for (uint64_t i = s->first; i + 1 < s->end; i++) {/'
	# --cold never returns
	broken hang-cold $cache sed 's/^\tif (fdatasync(fd) != 0)$/\tfor (volatile int spin = 0;; spin++)\n\t\t;\n&/'
	# io_uring's mean latencies 4 times what they were: more in flight on
	# average than the most ever in flight (Little's law)
	broken hang-cold data/lab5-depth.csv awk -F, -v OFS=, '$1 == "depth" { $30 *= 4 } 1'

	# One cached_pct cell of 0 among the cached reads, beside the fsync per
	# write made 1000 times faster: the trend check still runs. Every cell 0
	# (no device seen): it does not, and says so. Graded by that check only.
	mkdir subs-trend
	cp -R subs/clobber-fsync subs-trend/one-cell
	awk -F, -v OFS=, '$1 == "read-size" && $2 == "cached" && !done { $22 = 0; done = 1 } 1' \
		subs/clobber-fsync/$csv >subs-trend/one-cell/$csv
	cp -R unpacked/iolab-handin subs-trend/no-device
	awk -F, -v OFS=, 'NR > 1 { $22 = 0 } 1' unpacked/iolab-handin/$csv >subs-trend/no-device/$csv
	local t
	for t in one-cell no-device; do
		"$ROOT/grade.sh" --labs 5 --only "cache, O_DIRECT" subs-trend/$t >trend-$t.txt 2>&1 || true
	done

	"$ROOT/grade.sh" --batch subs -j 2 --labs 5 --out grades >batch.log 2>&1
}

# lost NAME: the checks NAME failed that the reference passed, joined by '|'.
lost() {
	failed "$1" | grep -vxF -f <(failed reference) | tr '\n' '|'
}

# points NAME: what it scored of Lab 5's points and the machine's (lab_score).
points() {
	local score
	score=$(lab_score "$1") && echo "${score%/*}"
}

@test "grade.sh lab 5: the reference submission scores full marks" {
	full_marks reference
}

@test "grade.sh lab 5: wrong stride offsets and trials copied from the first are caught" {
	# the offsets, and the times of the stride run on the grader's clock
	# (the report lists the checks that read only files first)
	[ "$(lost stride-copies)" = "data/lab5.csv: six experiments, consistent rows, 3+ real trials|iopattern: --print-offsets as the kit's for seq, stride and random|iopattern: CSV rows, statistics and bytes moved as the kit's|" ]
	grep -q "reproduce: bin/iopattern --op read --pattern stride" "$BATS_FILE_TMPDIR/grades/stride-copies.txt"
	grep -q "not measured" "$BATS_FILE_TMPDIR/grades/stride-copies.txt"
	[ "$(points stride-copies)" -eq $(($(points reference) - 8)) ]
}

@test "grade.sh lab 5: a trial that skips an I/O is caught by its time on the grader's clock, the bytes it moved, or its data" {
	# under bubblewrap the counts of /proc/PID/io are not the program's:
	# the grader's clock (grading/lab5/ioclock.c) misses the skipped I/O's latency,
	# in the CSV check and in --cold's; with --jobs every thread skips one,
	# and the sum of the data read is not the kit's
	[ "$(lost skip-last)" = "iopattern: CSV rows, statistics and bytes moved as the kit's|iopattern: --cold and --direct as the kit's on this file system|iopattern --jobs: N threads, same data|" ]
	grep -Eq "row 1, wall_s: yours|\(/proc/PID/io\), the kit's" "$BATS_FILE_TMPDIR/grades/skip-last.txt"
	grep -q "row 1, data_sum: yours" "$BATS_FILE_TMPDIR/grades/skip-last.txt"
	[ "$(points skip-last)" -eq $(($(points reference) - 7)) ]
}

@test "grade.sh lab 5: a hang in --cold fails its check by the timeout, and grading goes on; Little's law broken in lab5-depth.csv" {
	[ "$(lost hang-cold)" = "data/lab5-depth.csv: the lab's depths and threads, Little's law, the same data|iopattern: --cold and --direct as the kit's on this file system|" ]
	grep -q "iopattern did not finish in [0-9]* s (killed)" "$BATS_FILE_TMPDIR/grades/hang-cold.txt"
	grep -q "I/Os in flight on average, more than the" "$BATS_FILE_TMPDIR/grades/hang-cold.txt"
	[ "$(points hang-cold)" -eq $(($(points reference) - 4)) ]
}

@test "grade.sh lab 5: removing an existing FILE, and an fsync faster than a cached write on a disk" {
	expected=""
	# The trend is checked only where a device is under the scratch
	# directory: on a tmpfs an fsync costs nothing. (The report lists the
	# checks that read only files first.)
	if [ "$(awk -F, '$1 == "read-size" && $2 == "cold" { print $22 }' "$BATS_FILE_TMPDIR/kit/data/lab5.csv" | sort -u)" = "0.0" ]; then
		expected="data/lab5.csv: cache, O_DIRECT and fsync trends where a device is underneath|"
		grep -q "is not 3x fsync-each" "$BATS_FILE_TMPDIR/grades/clobber-fsync.txt"
	fi
	expected+="iopattern: -h, usage errors, an existing FILE, O_DIRECT alignment|"
	[ "$(lost clobber-fsync)" = "$expected" ]
	grep -q "reproduce: echo precious >keep.dat" "$BATS_FILE_TMPDIR/grades/clobber-fsync.txt"
}

@test "grade.sh lab 5: one cached_pct cell does not switch the trend check off; a check that does not check says so" {
	cd "$BATS_FILE_TMPDIR"
	grep -q "^lab5: data/lab5.csv: cache, O_DIRECT and fsync trends where a device is underneath: PASS" trend-no-device.txt
	grep -q "trends not checked: 0 of [0-9]* read-size rows of the cached series found the file in the page cache" trend-no-device.txt
	grep -q "trends not checked" grades/reference.txt &&
		skip "the reference's own data show no device under the scratch directory here (a tmpfs?)"
	grep -q "^lab5: data/lab5.csv: cache, O_DIRECT and fsync trends where a device is underneath: FAIL" trend-one-cell.txt
	grep -q "write-size at 4 KiB: cached .* is not 3x fsync-each" trend-one-cell.txt
}

@test "grade.sh --no-bwrap --labs 5: the reference submission scores full marks there too" {
	[ "$(id -u)" -eq 0 ] || skip "without bubblewrap, only root can run students' programs contained (an own uid)"
	run "$ROOT/grade.sh" --no-bwrap --labs 5 "$BATS_FILE_TMPDIR/reference.tar.gz"
	[ "$status" -eq 0 ]
	# outside bubblewrap the grader refuses io_uring: the --iodepth check
	# is skipped and its 3 points leave the maximum
	max=$(($(lab_max 5) - 3))
	[[ $output == *"Score: $max/$max"* ]]
	[[ $output == *"iopattern --iodepth: N requests in flight, same data: SKIP 0/3"* ]]
}

@test "grading/mutants.py: every Lab 5 mutant loses its check in every grading (3, or IOLAB_MUTANT_TIMES)" {
	all_mutants_caught 5 3 12
}
