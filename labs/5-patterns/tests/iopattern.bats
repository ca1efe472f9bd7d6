#!/usr/bin/env bats
# bin/iopattern: the offsets of each pattern, O_DIRECT alignment, --cold, the
# statistics over trials, every pattern on a small file, bad arguments.

load ../../../tests/helpers

# col NAME FILE: the values of one column of iopattern's CSV, one per line.
col() {
	awk -F, -v name="$1" 'NR == 1 { for (i = 1; i <= NF; i++) if ($i == name) c = i; next }
		c { print $c }' "$2"
}

# direct_works: O_DIRECT is possible in this directory (tmpfs before Linux
# 6.6 refuses it); iopattern says so plainly, and the test is skipped.
direct_works() {
	run "$BIN/iopattern" --op read --pattern seq -b 4K --file-size 4K -r 1 --direct probe
	if [ "$status" -eq 1 ] && [[ $output == *"O_DIRECT"* ]]; then
		return 1
	fi
	[ "$status" -eq 0 ] || { echo "probe: status $status: $output"; exit 1; }
}

@test "iopattern -h: the usage on stdout, exit 0" {
	run "$BIN/iopattern" -h
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "usage: iopattern --op read|write --pattern seq|stride|random"* ]]
	[[ $output == *"--print-offsets"* ]]
}

@test "offsets: seq back to back, stride with gaps, both wrap after one pass; no file" {
	run "$BIN/iopattern" --op read --pattern seq -b 4K --file-size 16K --print-offsets f
	[ "$status" -eq 0 ]
	[ "$(echo $output)" = "0 4096 8192 12288" ]
	run "$BIN/iopattern" --op write --pattern stride -b 4K --stride 16K --file-size 64K \
		--print-offsets f
	[ "$(echo $output)" = "0 16384 32768 49152" ]
	# 40K holds I/Os at 0, 16K and 32K; the fourth and fifth start over.
	run "$BIN/iopattern" --op read --pattern stride -b 4K --stride 16K --file-size 40K \
		--total 20K --print-offsets f
	[ "$(echo $output)" = "0 16384 32768 0 16384" ]
	# --total alone: the file is just big enough for one pass.
	run "$BIN/iopattern" --op read --pattern stride -b 1K --stride 3K --total 3K \
		--print-offsets f
	[ "$(echo $output)" = "0 3072 6144" ]
	[ ! -e f ]
}

@test "offsets: random ones are aligned, inside the file, drawn with replacement, seeded" {
	# 64 draws among 8 slots of 4 KiB: every slot, several times.
	"$BIN/iopattern" --op read --pattern random -b 4K --file-size 32K --total 256K \
		--print-offsets f >seed1
	[ "$(wc -l <seed1)" -eq 64 ]
	[ "$(sort -n -u seed1 | tr '\n' ' ')" = "0 4096 8192 12288 16384 20480 24576 28672 " ]
	# A file that is not a whole number of I/Os: no I/O runs past its end.
	"$BIN/iopattern" --op read --pattern random -b 4K --file-size 30K --total 256K \
		--print-offsets f | awk '$1 % 4096 || $1 + 4096 > 30720 { bad = 1 } END { exit bad }'
	"$BIN/iopattern" --op read --pattern random -b 4K --file-size 32K --total 256K \
		--seed 1 --print-offsets f | cmp - seed1
	! "$BIN/iopattern" --op read --pattern random -b 4K --file-size 32K --total 256K \
		--seed 2 --print-offsets f | cmp -s - seed1
}

@test "O_DIRECT: a misaligned size or stride is refused before it starts, naming the alignment" {
	direct_works || skip "this file system refuses O_DIRECT"
	run "$BIN/iopattern" --op read --pattern seq -b 1000 --file-size 64K --direct f
	usage_fails
	[[ ${lines[0]} =~ ^"iopattern: -b: 1000 bytes is not a multiple of the "[0-9]+"-byte alignment O_DIRECT needs on f"$ ]]
	run "$BIN/iopattern" --op write --pattern stride -b 4K --stride 6000 --file-size 64K \
		--direct f
	usage_fails
	[[ ${lines[0]} =~ "--stride: 6000 bytes is not a multiple of the "[0-9]+"-byte alignment" ]]
	[ ! -e f ]
	# Buffered I/O takes any size.
	run "$BIN/iopattern" --op read --pattern seq -b 1000 --file-size 64K -r 1 f
	[ "$status" -eq 0 ]
}

@test "O_DIRECT on a tmpfs: it works, or iopattern says plainly that it does not, exit 1" {
	[ -d /dev/shm ] && [ -w /dev/shm ] || skip "no /dev/shm here"
	dir=$(mktemp -d /dev/shm/iopattern-test.XXXXXX)
	run "$BIN/iopattern" --op read --pattern seq -b 4K --file-size 64K -r 1 --direct "$dir/f"
	rm -rf "$dir"
	if [ "$status" -ne 0 ]; then
		[ "$status" -eq 1 ]
		[[ $output == "iopattern: $dir/f: this file system "*"O_DIRECT"* ]]
		[[ $output != *usage:* ]]
	else
		[[ $output == *"O_DIRECT ("*"-byte alignment)"* ]]
	fi
}

@test "one I/O at a time, warm, --cold or --direct, gets one untimed trial first, at trial 1's offsets; --jobs does not" {
	command -v strace >/dev/null || skip "strace is not installed (apt-get install strace)"
	export ASAN_OPTIONS=detect_leaks=0	# LeakSanitizer cannot run under ptrace
	# traced OPTION...: iopattern's 64 KiB random reads of a 1 MiB file, 2
	# trials, under strace, one trace file per thread (trace.TID)
	traced() {
		rm -f trace.*
		strace -ff -qq -e trace=pread64 -o trace \
			"$BIN/iopattern" --op read --pattern random -b 64K --file-size 1M -r 2 "$@" f >out
	}
	# offsets: the offset of every 64 KiB pread64 traced (not the loader's), one a line
	offsets() { cat trace.* | sed -n 's/^pread64(.*, 65536, \([0-9]*\)) = 65536$/\1/p'; }
	# 16 reads a trial, 2 trials and the untimed one
	traced
	grep -q ', warm cache, after one untimed trial, ' out
	[ "$(offsets | wc -l)" -eq 48 ]
	"$BIN/iopattern" --op read --pattern random -b 64K --file-size 1M --print-offsets f >first
	# the untimed trial and trial 1 read the offsets --print-offsets says; trial 2 others
	[ "$(offsets | head -n 16)" = "$(cat first)" ]
	[ "$(offsets | sed -n 17,32p)" = "$(cat first)" ]
	[ "$(offsets | tail -n 16)" != "$(cat first)" ]
	for option in --cold --direct; do
		traced "$option"
		[ "$(offsets | wc -l)" -eq 48 ] || { echo "$option: $(offsets | wc -l) reads"; return 1; }
		[ "$(offsets | head -n 16)" = "$(cat first)" ]
		grep -q ', after one untimed trial, ' out
		[ "$option" = --direct ] || grep -q 'cold: cached pages dropped before each trial, after one untimed trial, ' out
	done
	traced --jobs 2
	[ "$(offsets | wc -l)" -eq 32 ]
	! grep -q 'untimed' out
}

@test "--cold: the pages are dropped before each trial and that is reported" {
	# Warm: the file was just written, so every page is cached.
	"$BIN/iopattern" --op read --pattern seq -b 64K --file-size 1M -r 2 --csv f >warm
	[ "$(col cached_pct warm | sort -u)" = "100.0" ]
	[ "$(col cold warm | sort -u)" = 0 ]

	"$BIN/iopattern" --op read --pattern seq -b 64K --file-size 1M -r 2 --csv --cold f \
		>cold 2>err
	[ "$(col cold cold | sort -u)" = 1 ]
	if [ "$(stat -f -c %T .)" = tmpfs ]; then
		# A tmpfs keeps files only in the page cache: nothing can be dropped.
		[[ $(cat err) == "iopattern: warning: --cold: 100.0% of f is still in the page cache"* ]]
	else
		[ "$(col cached_pct cold | sort -u)" = "0.0" ]
		[ ! -s err ]
	fi
	run "$BIN/iopattern" --op write --pattern seq -b 64K --file-size 1M -r 1 --cold f
	[ "$status" -eq 0 ]
	[[ ${lines[1]} == "buffered, cold: cached pages dropped before each trial, after one untimed trial, fsync: none"* ]]
}

@test "statistics: median, mean, stddev and the Student t interval match the trials" {
	for trials in 5 3; do
		"$BIN/iopattern" --op read --pattern seq -b 4K --file-size 256K -r $trials --csv f >out
		[ "$(wc -l <out)" -eq $((trials + 1)) ]
		# Recomputed from the trials' rows, with t for n - 1 degrees of freedom;
		# each row repeats the summary of its run.
		paste -d, <(col bytes_per_ns out) <(col median_bytes_per_ns out) \
			<(col mean_bytes_per_ns out) <(col stddev_bytes_per_ns out) \
			<(col ci95_bytes_per_ns out) | sort -t, -g -k1,1 | awk -F, -v n=$trials '
			function near(a, b) { return (a - b) ^ 2 <= (1e-6 * b) ^ 2 }
			{ x[NR] = $1; sum += $1; got[$2 "," $3 "," $4 "," $5] = 1 }
			END {
				mean = sum / n; median = x[(n + 1) / 2]
				for (i = 1; i <= n; i++) ss += (x[i] - mean) ^ 2
				sd = sqrt(ss / (n - 1)); ci = (n == 5 ? 2.776 : 4.303) * sd / sqrt(n)
				for (k in got) rows++
				split(k, g, ",")
				if (rows != 1 || !near(g[1], median) || !near(g[2], mean) ||
				    !near(g[3], sd) || !near(g[4], ci)) {
					print "expected", median, mean, sd, ci, "got", k; exit 1
				}
			}'
	done
	run "$BIN/iopattern" --op read --pattern seq -b 4K --file-size 256K -r 5 f
	[[ $output == *"95% CI of the mean (Student t, 4 df)"* ]]
	[[ ${lines[-3]} == "bytes/ns "* ]]
}

@test "every pattern, read and write, buffered and O_DIRECT, moves the bytes asked for" {
	modes=(buffered)
	direct_works && modes+=(direct)
	for op in read write; do
		for pattern in seq stride random; do
			for mode in "${modes[@]}"; do
				args=(--op $op --pattern $pattern -b 4K --file-size 64K -r 2 --csv)
				[ $pattern = stride ] && args+=(--stride 8K)
				[ $mode = direct ] && args+=(--direct)
				"$BIN/iopattern" "${args[@]}" f >out
				[ ! -e f ]
				# seq and random: 16 I/Os in 64 KiB; stride: one every 8 KiB.
				ios=16
				[ $pattern = stride ] && ios=8
				awk -F, -v op=$op -v p=$pattern -v d=$([ $mode = direct ] && echo 1 || echo 0) \
				    -v ios=$ios -v stride=$([ $pattern = stride ] && echo 8192 || echo 4096) '
					NR > 1 && ($1 != op || $2 != p || $3 != 4096 || $6 != d ||
						   $11 != ios || $12 != ios * 4096 || $13 <= 0 ||
						   ($4 != (p == "random" ? 0 : stride)) || $18 > $19) { bad = 1 }
					END { exit bad || NR != 3 }' out ||
					{ echo "$op $pattern $mode:"; cat out; return 1; }
			done
		done
	done
}

@test "latencies are per I/O, in microseconds; fsync modes run and are recorded" {
	"$BIN/iopattern" --op write --pattern seq -b 16K --file-size 1M -r 2 --csv f >out
	# Half the I/Os take at least p50, so p50 * ios / 2 cannot exceed the trial.
	awk -F, 'NR > 1 && $18 * $11 / 2 > $13 * 1e6 * 1.01 { bad = 1 } END { exit bad }' out
	for sync in end each; do
		"$BIN/iopattern" --op write --pattern random -b 4K --file-size 64K -r 1 --csv \
			--sync $sync f >out
		[ "$(col sync out)" = $sync ]
	done
}

@test "FILE: an existing file is refused and left alone; ours is removed at exit" {
	echo precious >f
	run "$BIN/iopattern" --op write --pattern seq -b 4K --file-size 64K f
	[ "$status" -eq 1 ]
	[[ $output == "iopattern: f: already exists; iopattern creates its own file"* ]]
	[ "$(cat f)" = precious ]
	run "$BIN/iopattern" --op read --pattern seq -b 4K --file-size 64K -r 1 g
	[ "$status" -eq 0 ]
	[ ! -e g ]
	run "$BIN/iopattern" --op read --pattern seq -b 4K --file-size 64K -r 1 nodir/g
	[ "$status" -eq 1 ]
	[ "$output" = "iopattern: nodir/g: No such file or directory" ]
	# Results that cannot be written are a failure too.
	run sh -c '"$0" --op read --pattern seq -b 4K --file-size 64K -r 1 --csv g >/dev/full' \
		"$BIN/iopattern"
	[ "$status" -eq 1 ]
	[ "$output" = "iopattern: stdout: No space left on device" ]
	[ ! -e g ]
}

@test "bad arguments: one line naming the problem, the usage, exit 2" {
	ok=(--op read --pattern seq -b 4K)
	check() {	# check EXPECTED-FIRST-LINE ARGS...
		local expected=$1
		shift
		run "$BIN/iopattern" "$@"
		usage_fails
		[[ ${lines[0]} == "iopattern: $expected"* ]] ||
			{ echo "for $*: ${lines[0]}"; return 1; }
	}
	check "--op, --pattern and -b are required" --pattern seq -b 4K f
	check "--op, --pattern and -b are required" --op read --pattern seq f
	check "expected one FILE, got 0" "${ok[@]}"
	check "expected one FILE, got 2" "${ok[@]}" f g
	check "--op: 'copy' is not read or write" --op copy --pattern seq -b 4K f
	check "--pattern: 'zigzag' is not seq, stride or random" --op read --pattern zigzag -b 4K f
	check "-b: 0 is out of range" --op read --pattern seq -b 0 f
	check "-b: '4Q' is not a size" --op read --pattern seq -b 4Q f
	check "--pattern stride needs --stride" --op read --pattern stride -b 4K f
	check "--stride: 2048 bytes is less than the I/O size, 4096" \
		--op read --pattern stride -b 4K --stride 2K f
	check "--stride: only with --pattern stride" "${ok[@]}" --stride 8K f
	check "--sync: reads have nothing to fsync" "${ok[@]}" --sync end f
	check "--sync: 'sometimes' is not none, end or each" --op write --pattern seq -b 4K --sync sometimes f
	check "--total: 6144 bytes is not a whole number of 4096-byte I/Os" "${ok[@]}" --total 6K f
	check "--file-size: 2048 bytes cannot hold one 4096-byte I/O" "${ok[@]}" --file-size 2K f
	check "--total: 8388608 I/Os per trial is more than" --op read --pattern seq -b 1 \
		--total 8M f
	check "-r: 0 is out of range" "${ok[@]}" -r 0 f
	check "--seed: '-1' is not a whole number" "${ok[@]}" --seed -1 f
	check "--pages: '2m' is not 4k or huge" "${ok[@]}" --pages 2m f
	run "$BIN/iopattern" "${ok[@]}" --bogus f
	usage_fails
	[[ ${lines[0]} == *"unrecognized option '--bogus'"* ]]
	[ ! -e f ]
}

@test "--pages huge: the same bytes as 4 KiB pages, said in the header; when refused, said plainly" {
	for pages in 4k huge; do
		"$BIN/iopattern" --op read --pattern random -b 64K --file-size 4M -r 2 --csv --jobs 2 \
			--pages $pages f >$pages.csv
	done
	[ "$(col data_sum 4k.csv | wc -l)" -eq 2 ]
	col data_sum 4k.csv | diff - <(col data_sum huge.csv)
	local setting=/sys/kernel/mm/transparent_hugepage/enabled
	run "$BIN/iopattern" --op write --pattern seq -b 64K --file-size 1M -r 1 --pages huge f
	[ "$status" -eq 0 ]
	# the header, after a line saying why there are no huge pages where there are none
	[[ $(grep -m1 'buffers in' <<<"$output") == *", fsync: none, buffers in huge pages, seed 1, f" ]]
	if [ ! -e "$setting" ]; then
		# a chroot or container without /sys: the kernel takes the advice, and
		# the line says only what can be told (on a kernel without huge
		# pages, the advice is refused: EINVAL)
		[[ ${lines[0]} == "iopattern: --pages huge: $setting: No such file or directory: the kernel took the advice; whether it gives huge pages cannot be told here" ]] ||
			[[ ${lines[0]} == "iopattern: --pages huge: this kernel has no transparent huge pages (MADV_HUGEPAGE: Invalid argument): the buffers get 4 KiB pages" ]]
	fi
	run "$BIN/iopattern" --op write --pattern seq -b 64K --file-size 1M -r 1 f
	[[ ${lines[1]} == *", buffers in 4k pages, seed 1, f" ]]
	why=$(bwrap_starts) || skip "$why (it shows iopattern a setting of never)"
	[ -e "$setting" ] || skip "there is no $setting here (no /sys, as in a chroot, or a kernel without huge pages)"
	# the setting hidden (as /sys is in a chroot): said so, not "no huge pages"
	run bwrap --dev-bind / / --tmpfs /sys/kernel/mm "$BIN/iopattern" --op read --pattern seq \
		-b 64K --file-size 1M -r 1 --pages huge f
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "iopattern: --pages huge: $setting: No such file or directory: the kernel took the advice; whether it gives huge pages cannot be told here" ]
	echo "always madvise [never]" >never
	run bwrap --dev-bind / / --ro-bind never "$setting" "$BIN/iopattern" --op read --pattern seq \
		-b 64K --file-size 1M -r 1 --pages huge f
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "iopattern: --pages huge: transparent huge pages are off on this system ($setting: always madvise [never]): the buffers get 4 KiB pages" ]
	[ ! -e f ]
}

# io_uring_works: iopattern --iodepth can set up io_uring here (a container's
# seccomp filter may refuse it; the test after these shows what then happens).
io_uring_works() {
	run "$BIN/iopattern" --op read --pattern seq -b 4K --file-size 4K -r 1 --iodepth 1 probe
	if [ "$status" -eq 1 ] && [[ $output == *"needs io_uring"* ]]; then
		return 1
	fi
	[ "$status" -eq 0 ] || { echo "probe: status $status: $output"; exit 1; }
}

# in_flight_run NAME OPTIONS...: 4 KiB random reads, 256 of them a trial, 2
# trials, into NAME.csv.
in_flight_run() {
	local name=$1
	shift
	"$BIN/iopattern" --op read --pattern random -b 4K --file-size 256K --total 1M -r 2 \
		--csv "$@" f >"$name.csv"
}

@test "--iodepth and --jobs: the bytes asked for, their columns, the same data as one at a time" {
	io_uring_works || skip "io_uring is refused here: $output"
	in_flight_run sync
	in_flight_run depth1 --iodepth 1
	in_flight_run depth8 --iodepth 8
	in_flight_run jobs3 --jobs 3
	[[ $(head -n 1 sync.csv) == *",ci95_bytes_per_ns,iodepth,jobs,max_in_flight,lat_mean_us,data_sum" ]]
	for run in sync depth1 depth8 jobs3; do
		[ "$(wc -l <$run.csv)" -eq 3 ]
		[ "$(col ios $run.csv | sort -u)" = 256 ]
		[ "$(col bytes $run.csv | sort -u)" = 1048576 ]
		# Little's law inside the program: IOPS x mean latency is the number
		# of I/Os in flight on average, at most the most in flight at once
		# (io_uring) or the number of threads (each one's I/Os one by one).
		awk -F, 'NR > 1 && !($17 > 0 && $28 > 0 && $17 * $28 / 1e6 <= ($25 ? $27 : $26) * 1.01) { exit 1 }' $run.csv
	done
	[ "$(col iodepth sync.csv | sort -u) $(col jobs sync.csv | sort -u)" = "0 1" ]
	[ "$(col iodepth depth8.csv | sort -u) $(col jobs depth8.csv | sort -u)" = "8 1" ]
	[ "$(col iodepth jobs3.csv | sort -u) $(col jobs jobs3.csv | sort -u)" = "0 3" ]
	# The ring's first round submits 8 I/Os at once; one at a time, one.
	[ "$(col max_in_flight sync.csv | sort -u)" = 1 ]
	[ "$(col max_in_flight depth1.csv | sort -u)" = 1 ]
	[ "$(col max_in_flight depth8.csv | sort -u)" = 8 ]
	[ "$(col max_in_flight jobs3.csv | sort -u | awk '$1 < 1 || $1 > 3')" = "" ]
	# The same offsets (same seed) read the same bytes, in whatever order;
	# another seed reads others.
	col data_sum sync.csv >want
	for run in depth1 depth8 jobs3; do col data_sum $run.csv | diff want -; done
	[ "$(sort -u want | wc -l)" -eq 2 ]	# trial 2 draws other offsets than trial 1
	in_flight_run seed2 --iodepth 8 --seed 2
	! col data_sum seed2.csv | diff -q want - >/dev/null
	[ ! -e f ]
}

@test "--iodepth: writes, O_DIRECT and fsync at the end; more depth than I/Os" {
	io_uring_works || skip "io_uring is refused here: $output"
	run "$BIN/iopattern" --op write --pattern seq -b 4K --file-size 64K -r 2 --csv \
		--iodepth 4 --sync end f
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[ "$(cut -d, -f8,12,25 <<<"${lines[1]}")" = "end,65536,4" ]
	# 4 I/Os, a ring of 64: never more in flight than there are I/Os.
	run "$BIN/iopattern" --op read --pattern seq -b 4K --file-size 16K -r 1 --csv --iodepth 64 f
	[ "$status" -eq 0 ]
	[ "$(cut -d, -f27 <<<"${lines[1]}")" = 4 ]
	direct_works || skip "this file system refuses O_DIRECT"
	for op in read write; do
		run "$BIN/iopattern" --op $op --pattern random -b 4K --file-size 1M -r 1 --csv \
			--direct --iodepth 16 f
		[ "$status" -eq 0 ] || { echo "$output"; return 1; }
		[ "$(cut -d, -f6,12,25,27 <<<"${lines[1]}")" = "1,1048576,16,16" ]
	done
}

@test "io_uring refused (seccomp, as in a container): one line saying so, exit 1, no file" {
	command -v python3 >/dev/null || skip "python3 (the seccomp filter's helper) is not installed"
	for errno in ENOSYS EPERM; do
		run python3 "$BATS_TEST_DIRNAME/deny-io-uring.py" $errno "$BIN/iopattern" --op read \
			--pattern seq -b 4K --file-size 64K --iodepth 4 f
		[[ $output != "deny-io-uring.py: prctl"* ]] || skip "no seccomp filter here: $output"
		[ "$status" -eq 1 ] || { echo "$errno: status $status: $output"; return 1; }
		[ "${#lines[@]}" -eq 1 ]
		[[ $output == "iopattern: --iodepth needs io_uring, which this system refuses (io_uring_setup: "* ]]
		[ ! -e f ]
	done
	# The filter refuses io_uring and nothing else: without --iodepth, it runs.
	run python3 "$BATS_TEST_DIRNAME/deny-io-uring.py" ENOSYS "$BIN/iopattern" --op read \
		--pattern seq -b 4K --file-size 64K -r 1 --jobs 2 f
	[ "$status" -eq 0 ]
}

@test "a usage error: the line saying what is wrong, the synopsis, where the options are" {
	run "$BIN/iopattern" -b 1000 --direct f
	[ "$status" -eq 2 ]
	[ "$output" = "iopattern: --op, --pattern and -b are required
usage: iopattern --op read|write --pattern seq|stride|random -b IO_SIZE [options] FILE
see iopattern --help for every option" ]
}

@test "built without liburing: --iodepth says so in one line, exit 1, no file; the rest runs" {
	# the kit's Makefile and sources, built here with its probe switched off
	mkdir kit
	cp -R "$ROOT/Makefile" "$ROOT/common" "$ROOT/labs" kit/
	make -s -C kit bin/iopattern IOLAB_NO_URING=1 CFLAGS=-O1 >make.log 2>&1 ||
		{ cat make.log; return 1; }
	! nm -D kit/bin/iopattern | grep -q io_uring || { echo "linked with liburing"; return 1; }
	run kit/bin/iopattern --op read --pattern seq -b 4K --file-size 64K --iodepth 4 f
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == "iopattern: --iodepth needs io_uring, and this iopattern was built without liburing (install liburing-dev, then make)"* ]]
	[ ! -e f ]
	run kit/bin/iopattern --op read --pattern seq -b 4K --file-size 64K -r 1 --jobs 2 f
	[ "$status" -eq 0 ]
	[ ! -e f ]
}

@test "--iodepth and --jobs: bad values, and the two together, are usage errors" {
	for bad in "--iodepth 0" "--iodepth 257" "--iodepth x" "--jobs 0" "--jobs 65" \
		"--iodepth 2 --jobs 2" "--iodepth 2 --op write --sync each" "-b 512M --jobs 3"; do
		# shellcheck disable=SC2086 # the options are words
		run "$BIN/iopattern" --op read --pattern seq -b 4K $bad f
		usage_fails
		[[ ${lines[0]} == "iopattern: "*-* ]]
		[ ! -e f ]
	done
	run "$BIN/iopattern" --op read --pattern seq -b 4K --iodepth 2 --jobs 2 f
	[ "${lines[0]}" = "iopattern: --iodepth and --jobs: one or the other (io_uring runs in one thread)" ]
}
