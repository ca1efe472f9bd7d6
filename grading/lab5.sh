# shellcheck shell=bash
# grading/lab5.sh - Lab 5 checks, sourced by grade.sh.
# bin/iopattern gets sizes, strides, totals and seeds drawn at random for
# every grading run, and is compared with the kit's iopattern run in the
# same directory. That directory may be a tmpfs or a disk, and O_DIRECT may
# or may not work there: what the kit's program does there is the expected
# answer, never a fixed number.

# lab5_offsets_same ARGS...: the student's --print-offsets prints the kit's
# offsets for ARGS, and creates no file.
lab5_offsets_same() {
	local status reproduce="reproduce: bin/iopattern $* --print-offsets x"
	student 10 iopattern "$@" --print-offsets x >got.out 2>got.err
	status=$?
	reference iopattern "$@" --print-offsets x >want.out 2>/dev/null
	[ $status -eq 0 ] || { timed_out $status iopattern; echo "exit status $status: $(head -1 got.err)"; echo "$reproduce"; return 1; }
	cmp -s got.out want.out ||
		{ echo "the offsets differ from the kit's (< the kit's, > yours):"; diff want.out got.out | head -3; echo "$reproduce"; return 1; }
	[ ! -e x ] || { echo "--print-offsets created the file x: it should do no I/O"; echo "$reproduce"; return 1; }
}

lab5_offsets() {
	built iopattern || return 1
	fresh_run
	local io stride n
	io=$(random_between 100 10000) n=$(random_between 3 40)
	# one pass over a file that need not be a whole number of I/Os, then wrapping around
	lab5_offsets_same --op read --pattern seq -b "$io" --file-size $((io * n + RANDOM % io)) || return 1
	lab5_offsets_same --op write --pattern seq -b "$io" --file-size $((io * n)) --total $((io * (n + $(random_between 1 "$n")))) || return 1
	stride=$((io + $(random_between 0 $((3 * io)))))
	lab5_offsets_same --op read --pattern stride -b "$io" --stride "$stride" --file-size "$(random_between $((2 * stride)) $((30 * stride)))" || return 1
	lab5_offsets_same --op write --pattern stride -b "$io" --stride "$stride" --file-size $((stride * n)) --total $((io * (n + $(random_between 1 "$n")))) || return 1
	# --total alone: the file is just big enough for one pass
	lab5_offsets_same --op read --pattern stride -b "$io" --stride "$stride" --total $((io * n)) || return 1
	lab5_offsets_same --op read --pattern random -b "$io" --file-size "$(random_between $((2 * io)) $((64 * io)))" --total $((io * $(random_between 10 300))) --seed "$(random_between 0 999999999)" || return 1
	lab5_offsets_same --op write --pattern random -b "$io" --file-size $((io * n)) || return 1
}

lab5_usage() {
	built iopattern || return 1
	fresh_run
	local status io secret b align
	student 10 iopattern -h >got.out 2>/dev/null
	status=$?
	[ $status -eq 0 ] && grep -q '^usage: iopattern' got.out ||
		{ timed_out $status iopattern; echo "-h: exit status $status, or no 'usage: iopattern' line on stdout"; echo "reproduce: bin/iopattern -h"; return 1; }
	student 10 iopattern --op read --pattern seq f >/dev/null 2>got.err
	status=$?
	[ $status -eq 2 ] && grep -q 'usage:' got.err ||
		{ timed_out $status iopattern; echo "no -b: exit status $status, not 2 with the usage on stderr"; echo "reproduce: bin/iopattern --op read --pattern seq f"; return 1; }
	io=$(random_between 2 64)K
	student 10 iopattern --op read --pattern stride -b "$io" --stride $((${io%K} - 1))K f >/dev/null 2>&1
	status=$?
	[ $status -eq 2 ] || { timed_out $status iopattern; echo "a stride shorter than the I/O size: exit status $status, not 2"; echo "reproduce: bin/iopattern --op read --pattern stride -b $io --stride $((${io%K} - 1))K f"; return 1; }

	# FILE is the program's own: an existing one is refused and left alone.
	secret="precious $RANDOM$RANDOM"
	echo "$secret" >keep.dat
	student 10 iopattern --op write --pattern seq -b 4K --file-size 64K keep.dat >/dev/null 2>&1
	status=$?
	[ $status -eq 1 ] && [ "$(cat keep.dat 2>/dev/null)" = "$secret" ] ||
		{ timed_out $status iopattern; echo "an existing FILE: exit status $status (not 1), or the file was changed or removed"; echo "reproduce: echo precious >keep.dat; bin/iopattern --op write --pattern seq -b 4K --file-size 64K keep.dat"; return 1; }

	# O_DIRECT and an odd size: a usage error naming the alignment, where the
	# kit's iopattern finds that O_DIRECT works here (else it exits 1, and
	# there is no alignment to name).
	b=$(($(random_between 50 4000) * 2 + 1))
	reference iopattern --op read --pattern seq -b "$b" --file-size 64K -r 1 --direct d.dat >/dev/null 2>want.err
	[ $? -eq 2 ] || return 0
	align=$(sed -n 's/.* the \([0-9]*\)-byte alignment.*/\1/p' want.err | head -1)
	student 10 iopattern --op read --pattern seq -b "$b" --file-size 64K -r 1 --direct d.dat >/dev/null 2>got.err
	status=$?
	[ $status -eq 2 ] && grep -q "$align" got.err ||
		{ timed_out $status iopattern; echo "-b $b --direct: exit status $status, not 2 with a message naming the $align-byte alignment"; echo "reproduce: bin/iopattern --op read --pattern seq -b $b --direct d.dat"; return 1; }
}

# lab5_run WHO SECONDS ARGS...: runs iopattern --csv ARGS (WHO: student, or
# kit for the kit's program), contained, into WHO.csv and WHO.err, and the
# bytes its read and write calls moved into WHO.io: a shell's /proc/PID/io
# adds in the counts of the children it has waited for. Returns iopattern's
# exit status.
lab5_run() {
	local who=$1 secs=$2 bin=$REFBIN/iopattern
	shift 2
	[ "$who" = student ] && bin=$STUDENT/bin/iopattern
	contain "$secs" sh -c '"$@" >"$0.csv" 2>"$0.err"; s=$?; cat /proc/$$/io >"$0.io" 2>/dev/null; exit $s' \
		"$who" "$bin" --csv "$@"
}

# lab5_io_count WHO rchar|wchar: from WHO.io, 0 when there is none.
lab5_io_count() {
	awk -v key="$2:" '$1 == key { n = $2 } END { print n + 0 }' "$1.io" 2>/dev/null || echo 0
}

# lab5_column WHO N: column N of WHO.csv, the rows' values on one line.
lab5_column() {
	cut -d, -f"$2" "$1.csv" | sed 1d | paste -sd' '
}

# lab5_csv_same REPRODUCE ARGS...: the student's iopattern --csv ARGS gives
# the kit's rows (conditions, I/O counts, bytes), consistent times and
# statistics, moves as many bytes as the kit's, and removes its file.
lab5_csv_same() {
	local reproduce=$1 status counter mine theirs
	shift
	lab5_run kit 20 "$@" f.dat || { echo "the kit's iopattern failed here: $(head -1 kit.err)"; echo "$reproduce"; return 1; }
	lab5_run student 20 "$@" f.dat
	status=$?
	[ $status -eq 0 ] || { timed_out $status iopattern; echo "exit status $status: $(head -1 student.err)"; echo "$reproduce"; return 1; }
	[ ! -e f.dat ] || { echo "the file f.dat is still there: iopattern removes its file at exit"; echo "$reproduce"; return 1; }
	[ "$(head -1 student.csv)" = "$(head -1 kit.csv)" ] || { echo "the CSV header is not the kit's"; echo "$reproduce"; return 1; }
	cut -d, -f1-12 student.csv | cmp -s - <(cut -d, -f1-12 kit.csv) ||
		{ echo "rows differ from the kit's in op..bytes (< the kit's, > yours):"; diff <(cut -d, -f1-12 kit.csv) <(cut -d, -f1-12 student.csv) | head -3; echo "$reproduce"; return 1; }
	[ "$(cut -d, -f20 student.csv | sort -u)" = "$(cut -d, -f20 kit.csv | sort -u)" ] ||
		{ echo "cached_pct $(lab5_column student 20) where the kit's says $(lab5_column kit 20)"; echo "$reproduce"; return 1; }
	# Each row's rates follow from its bytes and time; the summary columns
	# are the median, mean, stddev and Student t interval of the trials.
	awk -F, 'function off(a, b) { return (a - b) ^ 2 > (1e-4 * b) ^ 2 + 1e-18 }
		NR == 1 { next }
		!($13 > 0 && $14 >= 0 && $18 >= 0 && $18 <= $19) {
			print "row " NR - 1 ": implausible wall_s " $13 ", cpu_s " $14 ", lat_p50_us " $18 " or lat_p99_us " $19; bad = 1; exit }
		off($15, $12 / $13 / 1e9) || off($16, $12 / $13 / 1048576) || off($17, $11 / $13) {
			print "row " NR - 1 ": bytes_per_ns " $15 ", mib_s " $16 " or iops " $17 " do not follow from bytes " $12 ", ios " $11 " and wall_s " $13; bad = 1; exit }
		{ n++; x[n] = $15; sum += $15; summary = $21 "," $22 "," $23 "," $24; seen[summary] = 1 }
		END {
			if (bad) exit 1
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
			median = n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2; mean = sum / n
			for (i = 1; i <= n; i++) ss += (x[i] - mean) ^ 2
			sd = sqrt(ss / (n - 1)); split("12.706 4.303 3.182 2.776", t95, " ")
			for (k in seen) rows++
			split(summary, s, ",")
			if (rows != 1 || off(s[1], median) || off(s[2], mean) || off(s[3], sd) || off(s[4], t95[n - 1] * sd / sqrt(n))) {
				print "median, mean, stddev, ci95 of bytes_per_ns should be " median ", " mean ", " sd ", " t95[n - 1] * sd / sqrt(n) " (t for n - 1 df), not " summary; exit 1 }
		}' student.csv || { echo "$reproduce"; return 1; }
	# The bytes moved by read and write calls, filling the file included,
	# within 4 KiB (the loader's reads, the lengths of printed numbers).
	for counter in rchar wchar; do
		mine=$(lab5_io_count student $counter) theirs=$(lab5_io_count kit $counter)
		[ "$theirs" -gt 0 ] || continue	# no I/O accounting in this kernel
		[ $((mine - theirs)) -le 4096 ] && [ $((theirs - mine)) -le 4096 ] ||
			{ echo "read and write calls moved $counter=$mine bytes (/proc/PID/io), the kit's $theirs: is every I/O whole, and the file filled before the trials?"; echo "$reproduce"; return 1; }
	done
}

lab5_csv() {
	built iopattern || return 1
	fresh_run
	local ops=(read write) op pattern io args sync syncs=(none end each)
	# each pattern once, reads and writes taking turns from a random start
	op=$((RANDOM % 2))
	for pattern in seq stride random; do
		# 4 to 16 KiB I/Os, 128 to 256 of them per file: over 100 KiB per trial
		io=$(($(random_between 8 32) * 512))
		args=(--op "${ops[op++ % 2]}" --pattern "$pattern" -b "$io" --file-size $((io * $(random_between 128 256))) -r "$(random_between 3 5)")
		[ "$pattern" = stride ] && args+=(--stride $((io * $(random_between 1 4))))
		[ "$pattern" = random ] && args+=(--seed "$(random_between 0 999999)")
		if [ "${args[1]}" = write ]; then
			sync=${syncs[RANDOM % 3]}
			# an fsync per write can take milliseconds: 32 writes a trial
			[ "$sync" = each ] && args+=(--total $((32 * io)))
			args+=(--sync "$sync")
		fi
		lab5_csv_same "reproduce: bin/iopattern ${args[*]} --csv f.dat" "${args[@]}" || return 1
	done
}

lab5_cold_direct() {
	built iopattern || return 1
	fresh_run
	local args status theirs reproduce
	# --cold: the cache state each trial starts from is the kit's on this file system.
	args=(--op read --pattern seq -b 64K --file-size $(($(random_between 8 32) * 64))K -r 2 --cold)
	reproduce="reproduce: bin/iopattern ${args[*]} --csv f.dat"
	lab5_run kit 6 "${args[@]}" f.dat || { echo "the kit's iopattern failed here: $(head -1 kit.err)"; echo "$reproduce"; return 1; }
	lab5_run student 6 "${args[@]}" f.dat
	status=$?
	[ $status -eq 0 ] || { timed_out $status iopattern; echo "exit status $status: $(head -1 student.err)"; echo "$reproduce"; return 1; }
	[ "$(cut -d, -f1-12,20 student.csv)" = "$(cut -d, -f1-12,20 kit.csv)" ] ||
		{ echo "--cold: cached_pct $(lab5_column student 20) where the kit's says $(lab5_column kit 20) (or op..bytes differ)"; echo "$reproduce"; return 1; }

	# --direct writes, warm: O_DIRECT drops the cached pages it writes over,
	# so from trial 2 on the kit's says 0.0 where O_DIRECT bypasses the cache
	# (100.0 on a tmpfs); where this file system refuses O_DIRECT, the same
	# failure as the kit's (exit 1, a message).
	args=(--op write --pattern seq -b $(($(random_between 1 4) * 4))K --file-size 256K -r 2 --direct)
	reproduce="reproduce: bin/iopattern ${args[*]} --csv f.dat"
	lab5_run kit 6 "${args[@]}" f.dat
	theirs=$?
	lab5_run student 6 "${args[@]}" f.dat
	status=$?
	[ $status -eq "$theirs" ] || { timed_out $status iopattern; echo "--direct: exit status $status, the kit's $theirs here: $(head -1 student.err)"; echo "$reproduce"; return 1; }
	[ "$(cut -d, -f1-12 student.csv)" = "$(cut -d, -f1-12 kit.csv)" ] ||
		{ echo "--direct: the rows differ from the kit's in op..bytes"; echo "$reproduce"; return 1; }
	[ "$(cut -d, -f20 student.csv)" = "$(cut -d, -f20 kit.csv)" ] ||
		{ echo "--direct writes: cached_pct $(lab5_column student 20) where the kit's says $(lab5_column kit 20): is the file written with O_DIRECT?"; echo "$reproduce"; return 1; }
}

# Cached reads cost CPU only, so the student's iopattern should report what
# the kit's reports, run alongside: the fastest trial of 3 alternating runs
# each, the one least disturbed by the machine's other work (short trials,
# many of them, so that some fit between two of its time slices). 3x either
# way catches a timer around the wrong code, or a wrong unit.
lab5_measure() {
	built iopattern || return 1
	fresh_run
	local args reproduce status m t
	args=(--op read --pattern seq -b $((16 << $(random_between 0 2)))K --file-size 8M -r 10)
	reproduce="reproduce: bin/iopattern ${args[*]} f.dat"
	for _ in 1 2 3; do
		lab5_run kit 20 "${args[@]}" f.dat && sed 1d kit.csv | cut -d, -f15 >>kit.rates
		lab5_run student 20 "${args[@]}" f.dat
		status=$?
		[ $status -eq 0 ] || { timed_out $status iopattern; echo "exit status $status: $(head -1 student.err)"; echo "$reproduce"; return 1; }
		sed 1d student.csv | cut -d, -f15 >>student.rates
	done
	m=$(sort -g student.rates | tail -1) t=$(sort -g kit.rates 2>/dev/null | tail -1)
	[ -n "$t" ] || { echo "the kit's iopattern failed here: $(head -1 kit.err)"; echo "$reproduce"; return 1; }
	echo "cached reads, the fastest of 30 trials: yours ${m:-none} bytes/ns, the kit's $t"
	awk -v m="$m" -v t="$t" 'BEGIN { exit !(m > 0 && m <= 3 * t && 3 * m >= t) }' ||
		{ echo "not within 3x of the kit's: does the timing cover the I/Os, and only them?"; echo "$reproduce (the kit's: about $t bytes/ns on the grading machine)"; return 1; }
}

# data/lab5.csv, one row per trial: the six experiments, each run's trials
# numbered 1..N (N >= 3) under one set of conditions, rates that follow from
# bytes and time, a median that is the trials', and trials that differ.
lab5_data_plausible() {
	local csv="$SUB/data/lab5.csv"
	[ -f "$csv" ] || { echo "data/lab5.csv is missing; reproduce: make lab5"; return 1; }
	awk -F, 'function fail(why, line) { print "line " (line ? line : NR) ": " why; bad = 1; exit 1 }
		function off(a, b) { return (a - b) ^ 2 > (1e-4 * b) ^ 2 + 1e-18 }
		function close_run(   i, j, t, median, same) {
			if (!n) return
			if (n < 3) fail("only " n " trials in this run (at least 3)", first)
			same = 1
			for (i = 2; i <= n; i++) if (wall[i] != wall[1]) same = 0
			if (same) fail("every trial of this run took exactly " wall[1] " s: not measured", first)
			for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
			median = n % 2 ? x[(n + 1) / 2] : (x[n / 2] + x[n / 2 + 1]) / 2
			if (off(med, median)) fail("median_bytes_per_ns " med " is not the median of its trials, " median, first)
		}
		NR == 1 { next }
		NF != 26 { fail(NF " fields, not 26") }
		!($1 ~ /^(read|write)-(size|stride)$|^random-(read|write)$/) { fail("unknown experiment " $1) }
		!($5 ~ /^[0-9]+$/ && $5 > 0 && $12 ~ /^[0-9]+$/ && $13 ~ /^[0-9]+$/ && $13 > 0 && $14 == $13 * $5) {
			fail("io_bytes, trial, ios, bytes: not whole numbers with bytes = ios x io_bytes") }
		!($15 > 0 && $15 < 3600 && $16 >= 0 && $20 >= 0 && $20 <= $21 && $22 >= 0 && $22 <= 100) {
			fail("implausible: wall_s " $15 ", cpu_s " $16 ", lat_p50_us " $20 ", lat_p99_us " $21 ", cached_pct " $22) }
		off($17, $14 / $15 / 1e9) { fail("bytes_per_ns " $17 " is not bytes / wall_s / 1e9 = " $14 / $15 / 1e9) }
		$17 > 500 { fail("bytes_per_ns " $17 ": faster than memory can copy (a few hundred at most)") }
		($2 ~ /direct/) != ($8 == 1) || ($2 ~ /cold|fsync-end|direct/) != ($9 == 1) ||
		($2 ~ /fsync-end/) != ($10 == "end") || ($2 ~ /fsync-each/) != ($10 == "each") ||
		$3 != ($1 ~ /read/ ? "read" : "write") { fail("the conditions (op, direct, cold, sync) do not match the series " $2) }
		{ key = $1; for (i = 2; i <= 11; i++) key = key "," $i }
		$12 == 1 { close_run(); n = 0; run = key; first = NR; med = $23 }
		$12 != n + 1 || key != run { fail("trial " $12 " does not follow trial " n " of the same run") }
		{ n++; x[n] = $17; wall[n] = $15; seen[$1] = 1 }
		END {
			if (bad) exit 1
			close_run()
			if (bad) exit 1
			split("read-size write-size read-stride write-stride random-read random-write", e, " ")
			for (i = 1; i <= 6; i++) if (!(e[i] in seen)) { print "no rows of the experiment " e[i]; exit 1 }
		}' "$csv" || { echo "reproduce: make lab5"; return 1; }
}

# Trends that hold wherever a device is under the file, whatever the device
# and the load: checked only when the data show one (cached reads found the
# file in the page cache and --cold emptied it). On a tmpfs everything is
# memory; on ZFS the ARC, which mincore cannot see, serves every read.
lab5_data_trends() {
	local csv="$SUB/data/lab5.csv"
	[ -f "$csv" ] || { echo "data/lab5.csv is missing; reproduce: make lab5"; return 1; }
	awk -F, 'NR == 1 { next }
		{ k = $1 "," $2 "," $5; n[k]++; v[k, n[k]] = $17 }
		$1 == "read-size" && $2 == "cached" { warm++; cached += ($22 >= 50) }
		$1 == "read-size" && $2 != "cached" { dropped++; empty += ($22 < 50) }
		function median(k,   i, j, t, x) {
			if (!n[k]) { split(k, w, ","); print "no " w[1] " " w[2] " point at " w[3] " bytes"; exit 1 }
			for (i = 1; i <= n[k]; i++) x[i] = v[k, i]
			for (i = 1; i <= n[k]; i++) for (j = i + 1; j <= n[k]; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
			return n[k] % 2 ? x[(n[k] + 1) / 2] : (x[n[k] / 2] + x[n[k] / 2 + 1]) / 2 }
		END {
			if (!warm || cached < warm || empty < dropped) exit 0
			c = median("read-size,cached,4096"); d = median("read-size,direct,4096")
			if (c < 3 * d) { printf "read-size at 4 KiB: cached %.4g bytes/ns is not 3x direct %.4g (medians), with the cache emptied for direct\n", c, d; exit 1 }
			big = median("read-size,direct,1048576")
			if (big < 2 * d) { printf "read-size direct: 1 MiB I/Os at %.4g bytes/ns are not 2x faster than 4 KiB ones at %.4g: one device round trip per I/O should dominate small ones\n", big, d; exit 1 }
			c = median("write-size,cached,4096"); e = median("write-size,fsync-each,4096")
			if (c < 3 * e) { printf "write-size at 4 KiB: cached %.4g bytes/ns is not 3x fsync-each %.4g: an fsync per write waits for the device\n", c, e; exit 1 }
		}' "$csv" || { echo "reproduce: make lab5"; return 1; }
}

grade_lab5() {
	check lab5 3 "iopattern: --print-offsets as the kit's for seq, stride and random" lab5_offsets
	check lab5 2 "iopattern: -h, usage errors, an existing FILE, O_DIRECT alignment" lab5_usage
	check lab5 3 "iopattern: CSV rows, statistics and bytes moved as the kit's" lab5_csv
	check lab5 2 "iopattern: --cold and --direct as the kit's on this file system" lab5_cold_direct
	check lab5 2 "iopattern: cached-read throughput within 3x of the kit's" lab5_measure
	check lab5 2 "data/lab5.csv: six experiments, consistent rows, 3+ real trials" lab5_data_plausible
	check lab5 2 "data/lab5.csv: cache, O_DIRECT and fsync trends where a device is underneath" lab5_data_trends
}
