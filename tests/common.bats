#!/usr/bin/env bats
# Unit tests for common/: parsing, write_all, the clocks, statistics, cleanup.

load helpers

@test "parse_count: accepts whole numbers in range" {
	run "$UNIT" count -n 1000000 1 1000000000
	[ "$status" -eq 0 ]
	[ "$output" = 1000000 ]
	run "$UNIT" count -n 1 1 10
	[ "$output" = 1 ]
}

@test "parse_count: rejects signs, spaces, garbage, empty, with exit 2 naming the option" {
	for bad in -5 +5 " 5" 5x "" 1.5 0x10 abc; do
		run "$UNIT" count -n "$bad" 0 100
		usage_fails
		[[ ${lines[0]} == "test-common: -n: '$bad' is not a whole number" ]]
	done
}

@test "parse_count: out of range and overflow are usage errors" {
	run "$UNIT" count -n 0 1 100
	usage_fails
	[[ ${lines[0]} == *"-n: 0 is out of range (1 to 100)"* ]]
	run "$UNIT" count -n 101 1 100
	usage_fails
	run "$UNIT" count -n 99999999999999999999999 1 100
	usage_fails
}

@test "parse_choice: the index of an exact match; anything else exit 2, naming the choices" {
	run "$UNIT" choice --rng rand xoshiro rand_r rand
	[ "$status" -eq 0 ]
	[ "$output" = 2 ]
	run "$UNIT" choice --rng xoshiro xoshiro rand_r rand
	[ "$output" = 0 ]
	for bad in Rand ran rand_ "" "rand "; do
		run "$UNIT" choice --rng "$bad" xoshiro rand_r rand
		usage_fails
		[ "${lines[0]}" = "test-common: --rng: '$bad' is not xoshiro, rand_r or rand" ]
	done
	run "$UNIT" choice -m sideways append overwrite
	usage_fails
	[ "${lines[0]}" = "test-common: -m: 'sideways' is not append or overwrite" ]
	run "$UNIT" choice -x y only
	[ "${lines[0]}" = "test-common: -x: 'y' is not only" ]
}

@test "parse_size: K, M and G are powers of 1024, either case" {
	run "$UNIT" size -s 4K 0 18446744073709551615
	[ "$output" = 4096 ]
	run "$UNIT" size -s 255M 0 18446744073709551615
	[ "$output" = 267386880 ]
	run "$UNIT" size -s 2g 0 18446744073709551615
	[ "$output" = 2147483648 ]
	run "$UNIT" size -s 512 0 18446744073709551615
	[ "$output" = 512 ]
}

@test "parse_size: bad suffixes, overflow and range are usage errors" {
	for bad in 4KB 4T 4.5M K -1M ""; do
		run "$UNIT" size -s "$bad" 0 1000000000000
		usage_fails
		[[ ${lines[0]} == *"-s: '$bad' is not a size"* ]]
	done
	run "$UNIT" size -s 17179869184G 0 18446744073709551615
	usage_fails
	run "$UNIT" size -s 2M 1 1048576
	usage_fails
	[[ ${lines[0]} == *"out of range (1 to 1048576 bytes)"* ]]
}

@test "write_all: every byte arrives in order although writes are interrupted" {
	"$UNIT" write-all 64M | (sleep 0.3; cat) >out
	[ "$(stat -c %s out)" -eq 67108864 ]
	"$UNIT" write-all 64M >expected.tmp 2>/dev/null
	cmp out expected.tmp
	# The pattern repeats the alphabet, so a lost or doubled chunk would show.
	[ "$(head -c 30 out)" = "abcdefghijklmnopqrstuvwxyzabcd" ]
}

@test "write_all: a failed write is reported, exit 1" {
	run sh -c '"$0" write-all 1M >/dev/full' "$UNIT"
	[ "$status" -eq 1 ]
	[[ $output == "test-common: stdout: No space left on device" ]]
}

@test "timing: a 50 ms sleep takes >= 50 ms elapsed and little CPU" {
	run "$UNIT" timing
	[ "$status" -eq 0 ]
	# in seconds: 0.05 and more, and (even on a busy machine, where the
	# sleep ends late: 0.118 s beside four other test runs on 2 cores) under 1
	[[ ${lines[0]} =~ ^wall:\ 0\.[0-9]+\ s$ ]]
}

@test "stats: median, mean, sample stddev and t-based 95% interval on known samples" {
	run "$UNIT" stats 5 1 4 2 3
	[ "$output" = "n=5 mean=3.0000 median=3.0000 stddev=1.5811 min=1.0000 max=5.0000 ci95=1.9629" ]
	# Even count: the median is the mean of the two middle values; t(1) = 12.706.
	run "$UNIT" stats 10 20
	[ "$output" = "n=2 mean=15.0000 median=15.0000 stddev=7.0711 min=10.0000 max=20.0000 ci95=63.5300" ]
	# One sample has no spread.
	run "$UNIT" stats 7
	[ "$output" = "n=1 mean=7.0000 median=7.0000 stddev=nan min=7.0000 max=7.0000 ci95=nan" ]
}

@test "stats: t beyond the table (40 samples) is close to the published 2.023" {
	run "$UNIT" stats $(seq 1 40)
	# stddev of 1..40 is 11.6905; ci95 = 2.0227 * 11.6905 / sqrt(40) = 3.7388
	[[ $output == *"stddev=11.6905"*"ci95=3.738"* ]]
}

@test "cleanup: registered files are removed when SIGTERM ends the program" {
	mkdir d
	run "$UNIT" cleanup d 50
	[ "$status" -eq 143 ]
	[ -z "$(ls -A d)" ]
}

@test "rng: xoshiro256** seeded by splitmix64 matches an independent implementation" {
	# Raw outputs for seed 0: 11091344671253066420, 13793997310169335082,
	# 1900383378846508768; rng_below(2^64 - 1) maps x to x - 1.
	run "$UNIT" rng 0 3 18446744073709551615
	[ "${lines[0]}" = 11091344671253066419 ]
	[ "${lines[1]}" = 13793997310169335081 ]
	[ "${lines[2]}" = 1900383378846508767 ]
}

@test "rng: rng_below stays below its bound, is uniform, and repeats per seed" {
	"$UNIT" rng 42 100000 10 >draws
	[ "$(sort -u draws | tr '\n' ' ')" = "0 1 2 3 4 5 6 7 8 9 " ]
	# Each of the 10 values within 5% of its expected 10000.
	[ -z "$(sort draws | uniq -c | awk '$1 < 9500 || $1 > 10500')" ]
	"$UNIT" rng 42 100000 10 | cmp - draws
	! "$UNIT" rng 43 100000 10 | cmp -s - draws
}

@test "csv_field, csv_char: quoted only with a comma, a quote or a line break; quotes doubled" {
	run "$UNIT" csv plain 'a,b' 'say "hi"' "two
lines" , '"'
	[ "$status" -eq 0 ]
	# read back by Python's csv module, the fields come out as they went in
	python3 -c '
import csv, sys
rows = list(csv.reader(sys.stdin))
assert rows[0] == ["plain", "a,b", "say \"hi\"", "two\nlines", ",", "\""], rows[0]
assert rows[1] == ["p", "a", "s", "t", ",", "\""], rows[1]
' <<<"$output"
	[ "${lines[0]}" = 'plain,"a,b","say ""hi""","two' ]
}

@test "table.py: median (min-max) per group, counts of 1s, --where, --csv, a missing column named" {
	printf 'k,trial,wall_s,ok\n1,1,3,1\n1,2,1,0\n1,3,2,1\n10,1,5,1\n10,2,7,1\n' >t.csv
	run python3 "$ROOT/common/table.py" t.csv --by k --values wall_s --count ok
	[ "$status" -eq 0 ]
	[ "${lines[1]}" = "  k   n   wall_s   ok" ]
	[ "${lines[2]}" = "  1   3  2 (1-3)  2/3" ]
	[ "${lines[3]}" = "  10  2  6 (5-7)  2/2" ]
	run python3 "$ROOT/common/table.py" t.csv --by k --values wall_s --count ok --where k=10 --csv
	[ "$output" = "k,n,wall_s_median,wall_s_min,wall_s_max,ok_count
10,2,6,5,7,2" ]
	run python3 "$ROOT/common/table.py" t.csv --by k --values secs
	[ "$status" -ne 0 ]
	[[ $output == *"t.csv: no column secs"* ]]
}

@test "table.py --out: the --csv table sorted by the --by columns, numbers as numbers, written whole" {
	printf '%s\n' "g,k,y" "b,10,5" "a,2,1" "a,10,2" "b,2,6" "a,2,3" >s.csv
	run python3 "$ROOT/common/table.py" s.csv --by g,k --values y --out m.csv
	[ "$status" -eq 0 ] && [ -z "$output" ]
	[ "$(cat m.csv)" = "$(printf '%s\n' "g,k,n,y_median,y_min,y_max" "a,2,2,2,1,3" "a,10,1,2,2,2" "b,2,1,6,6,6" "b,10,1,5,5,5")" ]
	[ "$(python3 "$ROOT/common/table.py" s.csv --by g,k --values y --csv)" = "$(cat m.csv)" ]
	# where it cannot be written: one line, exit 1, nothing left
	run python3 "$ROOT/common/table.py" s.csv --by g,k --values y --out nodir/m.csv
	[ "$status" -eq 1 ] && [ "$output" = "table.py: nodir/m.csv: No such file or directory" ]
	# and a figure script runs no program to get its data: it reads files
	# (a lab's CSVs, and data/machine.txt as data split at ':')
	run grep -lE -e python -e "'< " -e 'system *\(' -e '`' "$ROOT"/plot/*.gp
	[ "$status" -eq 1 ] || { echo "figures that run a program: $output"; false; }
}

@test "table.py: --where keeps the rows whose column is one of the values, repeatable; errors name the file or column" {
	printf '%s\n' "trial,threads,phase,wall_s" "1,1,fill,0.5" "1,1,copy,2" "1,2,fill,0.25" \
		"2,1,fill,0.7" "2,1,copy,4" "3,1,fill,0.1" "3,1,copy,3" >r.csv
	run python3 "$ROOT/common/table.py" r.csv --by phase --value wall_s --where threads=1 --where trial=1,3 --title T
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "${lines[@]}" | tr -s ' ')" = "$(printf '%s\n' \
		"T" " phase n wall_s" " fill 2 0.3 (0.1-0.5)" " copy 2 2.5 (2-3)")" ]
	run python3 "$ROOT/common/table.py" nowhere.csv --by a --values b
	[ "$status" -eq 1 ]
	[ "$output" = "table.py: nowhere.csv: No such file or directory" ]
	run python3 "$ROOT/common/table.py" r.csv --by threads --values phase
	[ "$status" -eq 1 ]
	[ "$output" = "table.py: r.csv: a value of phase is not a number: fill" ]
	run python3 "$ROOT/common/table.py" r.csv --by threads --values wall_s --where threads
	[ "$status" -eq 2 ]
}

@test "table.py: a product of columns over a number, computed row by row before the median" {
	printf '%s\n' "kind,iops,lat_us" "a,1000,2000" "a,3000,1000" "a,2000,4000" "b,10,100" >p.csv
	run python3 "$ROOT/common/table.py" p.csv --by kind --value 'iops*lat_us/1e6,iops' --csv
	[ "$status" -eq 0 ]
	# rows of a: 2, 3 and 8 in flight: the median is 3 (the product of the medians would be 4)
	[ "${lines[0]}" = "kind,n,iops*lat_us/1e6_median,iops*lat_us/1e6_min,iops*lat_us/1e6_max,iops_median,iops_min,iops_max" ]
	[ "${lines[1]}" = "a,3,3,2,8,2000,1000,3000" ]
	[ "${lines[2]}" = "b,1,0.001,0.001,0.001,10,10,10" ]
	run python3 "$ROOT/common/table.py" p.csv --by kind --value 'iops*lat_us/2x'
	[ "$status" -eq 2 ]
	# over a column: it must exist
	run python3 "$ROOT/common/table.py" p.csv --by kind --value 'iops*lat_us/x'
	[ "$status" -eq 1 ]
	[ "$output" = "table.py: p.csv: no column x" ]
	run python3 "$ROOT/common/table.py" p.csv --by kind --value 'iops*seconds'
	[ "$status" -eq 1 ]
	[ "$output" = "table.py: p.csv: no column seconds" ]
}

@test "lab.sh launch_wall: elapsed seconds of N runs added up, not their CPU time" {
	needs launch	# the starter's launch may be still to write
	# Two 0.3 s sleeps take 0.6 s or more and almost no CPU: a sum of the
	# CPU columns (user_s, sys_s) would read about 0.
	run bash -c 'cd "$1" && SCRATCH="$2" BIN="$3" && source common/lab.sh && launch_wall 2 "sleep 0.3"' _ \
		"$ROOT" "$BATS_TEST_TMPDIR" "$BIN"
	[ "$status" -eq 0 ]
	python3 -c 'import sys; t = float(sys.argv[1]); assert 0.6 <= t < 3, t' "$output"
}

@test "lab.sh repeats: enough for the shortest of the things timed to last 1.5 s, at least 10" {
	run bash -c 'cd "$1" && SCRATCH="$2" && source common/lab.sh && repeats 0.5 2 && repeats 3' _ \
		"$ROOT" "$BATS_TEST_TMPDIR"
	[ "$status" -eq 0 ]
	[ "$output" = $'31\n10' ]
}

@test "lab.sh csv_open: the header the lab's columns.csv declares; a program's other header stops the lab" {
	# $0 is the lab script, as when make runs it: Lab 4, whose pool runs
	# are rows of the writers' declared columns
	lab() {
		bash -c 'cd "$1" && DATA=$2 SCRATCH=$2 && source common/lab.sh && shift 2 && "$@"' \
			labs/4-writers/lab4.sh "$ROOT" "$BATS_TEST_TMPDIR" "$@"
	}
	declared=$(python3 -c 'import csv, sys
print(",".join(r["column"] for r in csv.DictReader(open(sys.argv[1])) if r["file"] == "lab4-writers.csv"))' \
		"$ROOT/labs/4-writers/columns.csv")
	[[ $declared == trial,strategy,threads,*,mib_s,cpu_mib_s ]]
	run lab eval 'csv_open "$DATA/lab4-pool.csv" lab4-writers.csv && echo "$CSV_HEADER" &&
		csv_program pwriters "$(printf "strategy,threads\npool,2")" "${CSV_HEADER#trial,}"; echo not reached'
	[ "$status" -eq 1 ]
	[ "${lines[0]}" = "$declared" ]
	[ "${lines[1]}" = "lab4: pwriters --csv printed the header strategy,threads; labs/4-writers/columns.csv declares ${declared#trial,}" ]
	[ "${#lines[@]}" -eq 2 ]
	[ -z "$(ls "$BATS_TEST_TMPDIR")" ]	# no CSV, whole or half
	run lab csv_open "$BATS_TEST_TMPDIR/lab4-other.csv"
	[ "$status" -eq 1 ]
	[ "$output" = "labs/4-writers/columns.csv declares no column of lab4-other.csv" ]
}

@test "lab.sh: a lab that stops says at which line, which command and how it ended" {
	# A toy lab script; what make runs would then say "lab7 failed (its error is above)".
	printf '%s\n' 'source "$1/common/lab.sh"' 'case $2 in' \
		'pipe) yes | head -1 >/dev/null ;;' 'function) f() { cat "$SCRATCH/none"; }; f ;;' \
		'substitution) n=$(grep -c x "$SCRATCH/none") ;;' 'handled) grep -qs x "$SCRATCH/none" || true ;;' \
		'esac' 'echo reached' >lab7.sh
	run env SCRATCH="$BATS_TEST_TMPDIR/s" bash lab7.sh "$ROOT" pipe
	[ "$status" -eq 141 ]
	[ "$output" = "lab7 stopped at line 3 of lab7.sh: the pipeline that ends with 'head -1 > /dev/null' failed (from left to right: killed by SIGPIPE, exit status 0)" ]
	run env SCRATCH="$BATS_TEST_TMPDIR/s" bash lab7.sh "$ROOT" function
	[ "$status" -eq 1 ]
	[ "${lines[1]}" = "lab7 stopped at line 4 of lab7.sh: 'cat \"\$SCRATCH/none\"' failed (exit status 1)" ]
	# inside $(...): one line, naming the line that holds it
	run env SCRATCH="$BATS_TEST_TMPDIR/s" bash lab7.sh "$ROOT" substitution
	[ "$status" -eq 2 ]
	[ "${#lines[@]}" -eq 2 ]
	[[ ${lines[1]} == "lab7 stopped at line 5 of lab7.sh: 'n=\$(grep -c x \"\$SCRATCH/none\")' failed (exit status 2)" ]]
	# a failure the script handles says nothing
	run env SCRATCH="$BATS_TEST_TMPDIR/s" bash lab7.sh "$ROOT" handled
	[ "$status" -eq 0 ]
	[ "$output" = reached ]
}

@test "lab.sh keep_earlier_run: a rerun copies the lab's earlier results and figures to data/previous/, saying so" {
	# a kit of its own: keep_earlier_run copies plot/ only when DATA is the kit's data/
	mkdir -p kit/common kit/labs/6-fsync kit/data kit/plot
	cp "$ROOT/common/lab.sh" kit/common/
	keep() { bash -c 'source kit/common/lab.sh && keep_earlier_run' kit/labs/6-fsync/lab6.sh; }
	run keep	# nothing earlier: nothing said, nothing made
	[ "$status" -eq 0 ] && [ -z "$output" ] && [ ! -e kit/data/previous ]
	echo old >kit/data/lab6-cost.csv && mkdir kit/data/lab6-logs
	touch kit/data/lab6-load.txt kit/data/lab6-logs/rename.log kit/plot/lab6-tradeoff.png kit/plot/lab6-tradeoff.gp
	# not Lab 6's own run: Lab 16's, the machine's, make lab6-real's
	mkdir kit/data/lab6-real && touch kit/data/lab16.csv kit/data/machine.txt
	touch -d '2026-01-02 03:04:05' kit/data/lab6-cost.csv kit/data/lab6-load.txt kit/data/lab6-logs kit/plot/lab6-tradeoff.png
	run keep
	[ "$status" -eq 0 ]
	[ "$output" = "Lab 6's earlier results are copied to data/previous/lab6-2026-01-02-030405/ (this run replaces them here)" ]
	# copies: the earlier files stay until the run replaces each (a run stopped half way leaves them)
	[ "$(cd kit && find data plot -type f | sort | tr '\n' ' ')" = "data/lab16.csv data/lab6-cost.csv data/lab6-load.txt data/lab6-logs/rename.log data/machine.txt data/previous/lab6-2026-01-02-030405/lab6-cost.csv data/previous/lab6-2026-01-02-030405/lab6-load.txt data/previous/lab6-2026-01-02-030405/lab6-logs/rename.log data/previous/lab6-2026-01-02-030405/lab6-tradeoff.png plot/lab6-tradeoff.gp plot/lab6-tradeoff.png " ]
	[ -d kit/data/lab6-real ] && [ "$(cat kit/data/previous/lab6-*/lab6-cost.csv)" = old ]
	# a run from the same second is kept beside it, not over it
	touch -d '2026-01-02 03:04:05' kit/data/lab6-cost.csv
	run keep
	[ "$output" = "Lab 6's earlier results are copied to data/previous/lab6-2026-01-02-030405-2/ (this run replaces them here)" ]
	# DATA elsewhere than the kit's data/: the kit's figures stay
	mkdir elsewhere && touch elsewhere/lab6-cost.csv kit/plot/lab6-tradeoff.png
	run bash -c 'DATA=elsewhere && source kit/common/lab.sh && keep_earlier_run' kit/labs/6-fsync/lab6.sh
	[[ $output == "Lab 6's earlier results are copied to $PWD/elsewhere/previous/lab6-"* ]]
	[ -e elsewhere/previous/lab6-*/lab6-cost.csv ] && [ ! -e elsewhere/previous/lab6-*/lab6-tradeoff.png ]
}

@test "plot.sh: a figure script that sets its own output is refused, naming it, with no PNG left" {
	command -v gnuplot >/dev/null || skip "gnuplot is not installed (make deps)"
	printf 'set terminal pngcairo\nset output "elsewhere.png"\nplot x\n' >own.gp
	run bash "$ROOT/common/plot.sh" own.gp fig.png
	[ "$status" -eq 1 ]
	[ "$output" = "plot.sh: own.gp drew nothing into fig.png: a figure script sets no terminal and no output (plot.sh sets them)" ]
	[ ! -e fig.png ] && [ ! -e fig.png.tmp ]
	printf 'plot x\n' >good.gp
	run bash "$ROOT/common/plot.sh" good.gp fig.png
	[ "$status" -eq 0 ]
	[ "$(head -c 8 fig.png | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]
}

@test "machine.sh: the scratch file system and its mount options; without findmnt (a chroot), ext4 named from statfs, not ext2/ext3" {
	[ "$(stat -f -c %T .)" = ext2/ext3 ] || skip "the test's folder is not on ext4 but $(stat -f -c %T .)"
	bash "$ROOT/common/machine.sh" . m.txt
	local fs
	fs=$(findmnt -n -o FSTYPE --target . | tail -1)
	if [ -n "$fs" ]; then
		grep -qx "scratch_dir_fs: $fs" m.txt
		grep -qx "scratch_dir_mount_options: $(findmnt -n -o OPTIONS --target . | tail -1)" m.txt
	else
		# the tests run in a chroot: findmnt sees no mount of the folder
		grep -qx 'scratch_dir_fs: ext4' m.txt
		grep -qx 'scratch_dir_mount_options: unknown (findmnt cannot see the mount here: a chroot?)' m.txt
	fi
	# a PATH without findmnt, as in a chroot, where it finds no mount
	mkdir path
	for cmd in bash stat basename readlink date uname sed awk getconf cat head tail ldd mv rm cc; do
		ln -s "$(command -v "$cmd")" path/
	done
	PATH=$PWD/path bash "$ROOT/common/machine.sh" . chroot.txt
	grep -qx 'scratch_dir_fs: ext4' chroot.txt
	grep -qx 'scratch_dir_mount_options: unknown (findmnt cannot see the mount here: a chroot?)' chroot.txt
}

@test "machine.sh: transparent_hugepage is the kernel's setting; without /sys (a chroot), unknown, not none in this kernel" {
	local setting=/sys/kernel/mm/transparent_hugepage/enabled
	bash "$ROOT/common/machine.sh" . m.txt
	if [ -e "$setting" ]; then
		grep -qxF "transparent_hugepage: $(cat "$setting")" m.txt
	elif [ -d /sys/kernel/mm ]; then
		grep -qx 'transparent_hugepage: none in this kernel' m.txt
	else
		# the tests run in a chroot with no sysfs mounted
		grep -qx 'transparent_hugepage: unknown (/sys is not mounted here: a chroot?)' m.txt
	fi
	why=$(bwrap_starts) || skip "$why (it hides /sys from machine.sh)"
	[ -d /sys/kernel/mm ] || skip "/sys is not mounted here: the lines above checked what machine.sh says then"
	bwrap --dev-bind / / --tmpfs /sys bash "$ROOT/common/machine.sh" . hidden.txt
	grep -qx 'transparent_hugepage: unknown (/sys is not mounted here: a chroot?)' hidden.txt
	bwrap --dev-bind / / --tmpfs /sys/kernel/mm bash "$ROOT/common/machine.sh" . none.txt
	grep -qx 'transparent_hugepage: none in this kernel' none.txt
}
