#!/usr/bin/env bats
# Lab 5 at SCALE=tiny: the six experiments, every row with its conditions.

load ../../../tests/helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	needs iopattern		# the lab runs it
}

@test "lab5.sh: six experiments, 3 sizes x 5 trials per curve, one complete CSV" {
	DATA="$BATS_TEST_TMPDIR/data" SCRATCH="$BATS_TEST_TMPDIR/s" SCALE=tiny \
		run bash "$ROOT/labs/5-patterns/lab5.sh"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[[ ${lines[0]} == "== Lab 5: access patterns (SCALE=tiny"* ]]
	lab=$output last=${lines[-1]}
	[[ $output == *"  read-size     cached         4K 64K 1M"* ]]
	csv=data/lab5.csv
	[ "$(head -n 1 $csv)" = "experiment,series,op,pattern,io_bytes,stride_bytes,file_bytes,direct,cold,sync,seed,trial,ios,bytes,wall_s,cpu_s,bytes_per_ns,mib_s,iops,lat_p50_us,lat_p99_us,cached_pct,median_bytes_per_ns,mean_bytes_per_ns,stddev_bytes_per_ns,ci95_bytes_per_ns" ]
	# Points per experiment (5 trials each): sizes 3 per curve, fsync-each 2,
	# 4 KiB strides 3 and 128 KiB strides 2.
	run awk -F, 'NR > 1 { n[$1]++ } END { for (e in n) print e, n[e] }' $csv
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "random-read 45 random-write 55 read-size 45 read-stride 50 write-size 55 write-stride 50 " ]
	# Every run has trials 1 to 5; bytes = ios x io_bytes; the conditions
	# match the series' names; throughput is positive.
	awk -F, 'NR == 1 { next }
		$12 != (NR - 2) % 5 + 1 || $14 != $13 * $5 || $17 <= 0 { print "row " NR ": " $0; bad = 1 }
		($2 ~ /direct/) != ($8 == 1) || ($2 ~ /cold|fsync-end|direct/) != ($9 == 1) ||
		($2 ~ /fsync-end/) != ($10 == "end") || ($2 ~ /fsync-each/) != ($10 == "each") ||
		$3 != ($1 ~ /read/ ? "read" : "write") { print "conditions, row " NR ": " $0; bad = 1 }
		END { exit bad }' $csv
	# The cached series move 16 MiB a trial at tiny scale (many passes: one is too short to time)
	[ "$(awk -F, '$2 == "cached" { print $14 }' $csv | sort -u)" = 16777216 ]
	# Warm reads find the file cached; --cold leaves none of it (except on a tmpfs).
	[ "$(awk -F, '$2 == "cached" && $3 == "read" { print $22 }' $csv | sort -u)" = "100.0" ]
	if [ "$(stat -f -c %T "$BATS_TEST_TMPDIR")" != tmpfs ]; then
		[ "$(awk -F, '$2 == "cold" { print $22 }' $csv | sort -u)" = "0.0" ]
	fi
	[ -s data/machine.txt ]
	# Several I/Os in flight: io_uring at depths 1, 4 and 32, 1 and 2 threads,
	# 5 trials each, every column of iopattern's CSV.
	csv=data/lab5-depth.csv
	[ "$(head -n 1 $csv)" = "experiment,series,op,pattern,io_bytes,stride_bytes,file_bytes,direct,cold,sync,seed,trial,ios,bytes,wall_s,cpu_s,bytes_per_ns,mib_s,iops,lat_p50_us,lat_p99_us,cached_pct,median_bytes_per_ns,mean_bytes_per_ns,stddev_bytes_per_ns,ci95_bytes_per_ns,iodepth,jobs,max_in_flight,lat_mean_us,data_sum" ]
	[[ $lab == *"  depth         io_uring       1 4 32 ("* ]] || [[ $lab == *"  depth         io_uring       left out: iopattern: --iodepth needs io_uring"* ]]
	[[ $lab == *"  threads       pread          1 2 ("* ]]
	run awk -F, 'NR > 1 { print $1, $2, $27, $28, $3, $4, $5, $8, $14 }' $csv
	want=$(for d in 1 4 32; do lines "depth io_uring $d 1 read random 4096 1 262144" 5; done
		for j in 1 2; do lines "threads pread 0 $j read random 4096 1 262144" 5; done)
	[ "$output" = "$want" ] || [ "$output" = "$(tail -n 10 <<<"$want")" ]
	# Trial N of every point read the same offsets' data, whatever the depth.
	[ "$(awk -F, 'NR > 1 { print $12, $31 }' $csv | sort -u | wc -l)" -eq 5 ]
	# The tables of medians end the lab: the depth table's last row, 2
	# threads, 5 trials; then the machine's load and the predictions.
	grep -Eq '^ +threads +0 +2 +5 ' <<<"$lab"
	[[ $last == "  P5.4 "*"measured: "* ]]
	# Every question is answered by what the lab prints (the lab page's
	# table, question -> printed line): at tiny scale 1 MiB is the largest size.
	num='[0-9.e+-]+( \([0-9.e+-]+-[0-9.e+-]+\))?'
	row() { grep -Eq "^ +$1 +5 +$num +$num +$num +$num\$" <<<"$lab"; }
	row "read-size +cached +1048576"		# Q5.1, Q5.2
	for size in 4096 1048576; do
		row "read-size +cached +$size"		# Q5.2
		row "read-size +direct +$size"		# Q5.2, Q5.6
		row "random-read +direct +$size"	# Q5.6
	done
	row "read-size +cold +4096"			# Q5.3
	for series in cached fsync-end fsync-each; do
		row "write-size +$series +4096"		# Q5.4
	done
	# Q5.10-Q5.12: depth and threads, with IOPS x mean latency
	grep -Eq '^ +experiment +iodepth +jobs +n +iops +lat_p50_us +lat_p99_us +lat_mean_us +cpu_s +iops\*lat_mean_us/1e6$' <<<"$lab"
	grep -Eq '^ +threads +0 +1 +5 ' <<<"$lab"
	grep -Eq '^ +depth +32 +1 +5 ' <<<"$lab" || [[ $lab == *"depth         io_uring       left out: "* ]]
	# No scratch file and no half-written CSV left behind.
	[ -z "$(ls -A s)" ]
	[ "$(ls data)" = "$(printf 'lab5-depth.csv\nlab5-load.txt\nlab5.csv\nmachine.txt')" ]
}

@test "lab5.sh: a failing program leaves no CSV behind" {
	mkdir bin
	printf '#!/bin/sh\necho "iopattern: disk on fire" >&2\nexit 1\n' >bin/iopattern
	chmod +x bin/iopattern
	BIN="$BATS_TEST_TMPDIR/bin" DATA="$BATS_TEST_TMPDIR/data" SCRATCH="$BATS_TEST_TMPDIR/s" \
		SCALE=tiny run bash "$ROOT/labs/5-patterns/lab5.sh"
	[ "$status" -ne 0 ]
	[[ $output == *"disk on fire"* ]]
	[ ! -e data/lab5.csv ]
	[ ! -e data/lab5.csv.tmp ]
}

@test "validate.py: the ratio is the median of the rounds' ratios, with its interval" {
	# Spells of a disk twice as fast that both tools share: the ratio stays
	# 1. iopattern faster in 3 rounds of 5, only: 2, an interval from 1
	# to 2. iopattern 20% faster in every round: 1.2 whatever the spells.
	run python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
import validate
print("%.3f %.3f %.3f" % validate.paired([100, 200, 100, 200, 200], [100, 200, 100, 200, 200]))
print("%.3f %.3f %.3f" % validate.paired([100, 200, 100, 200, 200], [100, 100, 100, 100, 100]))
print("%.3f %.3f %.3f" % validate.paired([120, 240, 120, 240, 120], [100, 200, 100, 200, 100]))' \
		"$ROOT/labs/5-patterns"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[ "${lines[0]}" = "1.000 1.000 1.000" ]
	[ "${lines[1]}" = "2.000 1.000 2.000" ]
	[ "${lines[2]}" = "1.200 1.200 1.200" ]
}

@test "validate.py: one I/O at a time, iopattern's untimed first trial is halved, said, and no difference" {
	# A random read of 1,000 I/Os: iopattern's runs show 2,000 device reads
	# and preads (its untimed trial, then the timed one), fio's 1,000; both
	# wrote the file's fill, 70 and 300 writes. With --iodepth there is no
	# untimed trial: 2,000 preads against 1,000 differ.
	run python3 -c '
import sys
sys.path.insert(0, sys.argv[1])
import validate
cpu = {"iopattern": [0.5, 0.5], "fio": [0.5, 0.5]}
dev = {"iopattern": [[2000, 16000, 70, 500000]] * 2, "fio": [[1000, 8000, 300, 500000]] * 2}
calls = ({"pread64": 2000}, {"pread64": 1000})
for options in ("--op read --pattern random -b 4K --direct", "--op read --pattern random -b 4K --iodepth 1"):
    note, differs = validate.differences(options, cpu, dev, calls)
    print(note or "-")
    print("; ".join(differs) or "-")' "$ROOT/labs/5-patterns"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[[ ${lines[0]} == "iopattern ran one untimed trial of the same I/Os before the timed one: its reads are two"* ]]
	[ "${lines[1]}" = "device writes 70 / 300" ]	# the fill's, not halved
	[ "${lines[2]}" = "-" ]
	[ "${lines[3]}" = "device reads 2000 / 1000; sectors read 16000 / 8000; device writes 70 / 300; pread64 2000 / 1000" ]
}

@test "validate.sh: a second one in the same scratch directory stops at once, exit 1" {
	mkdir s
	# This shell holds the lock, as a running validate does.
	run bash -c 'exec 8>>"$2/validate.lock" && flock 8 && SCRATCH="$2" bash "$1/labs/5-patterns/validate.sh"' _ \
		"$ROOT" "$BATS_TEST_TMPDIR/s"
	[ "$status" -eq 1 ]
	[ "$output" = "validate: another make validate is running in $BATS_TEST_TMPDIR/s" ]
}

@test "make lab5 with iopattern built without liburing: the lab and its figures finish, exit 0" {
	command -v gnuplot >/dev/null || skip "gnuplot is not installed"
	# a copy of the kit, its programs built (make test built them), and the
	# published tables some figures draw
	mkdir -p kit/plot kit/data kit/tests/unit
	cp -Rp "$ROOT/Makefile" "$ROOT/common" "$ROOT/labs" "$ROOT/bin" "$ROOT/build" kit/
	cp -p "$ROOT/tests/unit/test-common.c" kit/tests/unit/
	cp "$ROOT"/plot/*.gp kit/plot/
	cp -R "$ROOT/data/reference" kit/data/
	rm -f kit/bin/iopattern
	# the figures read the kit's data/: the lab writes there
	run env -u BIN -u DATA make -s --no-print-directory -C kit lab5 SCALE=tiny SCRATCH="$PWD/scratch" IOLAB_NO_URING=1
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"depth         io_uring       left out: iopattern: --iodepth needs io_uring, and this iopattern was built without liburing"* ]]
	[ -s kit/plot/lab5-depth.png ]
	[ "$(tail -n 1 <<<"$output")" = "Next: open the figures, then answer the questions on each lab's page (labs/N-topic/README.md)." ]
}

# A file system that refuses O_DIRECT: ext4 with data=journal, on a loop
# device (root only), unmounted by teardown whatever the test does.
teardown() {
	if [ -n "${journal:-}" ]; then umount "$journal" 2>/dev/null || true; fi
	show_failed_run
}

@test "lab5.sh where O_DIRECT is refused (ext4 data=journal): the other curves kept, one line why, machine.txt's mount options" {
	[ "$(id -u)" -eq 0 ] || skip "mounting an ext4 data=journal file system needs root"
	command -v mkfs.ext4 >/dev/null || skip "mkfs.ext4 is not installed (e2fsprogs)"
	truncate -s 64M ext4.img
	mkfs.ext4 -q -F ext4.img
	mkdir mnt
	mount -o loop,data=journal ext4.img mnt 2>mount.err || skip "no loop mount here: $(cat mount.err)"
	journal=$BATS_TEST_TMPDIR/mnt
	DATA="$BATS_TEST_TMPDIR/data" SCRATCH="$journal/s" SCALE=tiny TRIALS=1 \
		run bash "$ROOT/labs/5-patterns/lab5.sh"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[[ $output == *"  every O_DIRECT curve (direct, depth, threads) is left out: iopattern: $journal/s/lab5.dat: this file system does not support O_DIRECT (try another directory)"* ]]
	# every series but the direct ones, none of those
	run awk -F, 'NR > 1 { print $1 "," $2 }' data/lab5.csv
	[ "$(sort -u <<<"$output" | tr '\n' ' ')" = "random-read,cached random-read,cold random-write,cached random-write,fsync-each random-write,fsync-end read-size,cached read-size,cold read-stride,cold-128K read-stride,cold-4K write-size,cached write-size,fsync-each write-size,fsync-end write-stride,fsync-end-128K write-stride,fsync-end-4K " ]
	[ "$(wc -l <data/lab5-depth.csv)" -eq 1 ]
	grep -qx 'scratch_dir_fs: ext4' data/machine.txt
	grep -q '^scratch_dir_mount_options: .*data=journal' data/machine.txt
	umount "$journal" && journal=
}
