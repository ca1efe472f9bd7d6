# shellcheck shell=bash
# grading/lab3.sh - Lab 3 checks, sourced by grade.sh.
# Sizes, thread and file counts are drawn at random for every grading run,
# so that no answer can be written into a program in advance. fillcopy's
# thread K seeds its generator with K + 1, so the kit's fillcopy, run with
# the same -s and -t, fills its buffer with the same bytes: its dump files
# say what every file of the student's must hold.

# lab3_dump_same NAME SIZE THREADS FILES [OPTIONS...]: the kit's fillcopy
# and the student's, with these arguments and --keep --verify, each into a
# directory of its own; the student's leaves FILES files, file K of the
# length slice() gives it and with the bytes of the kit's file K.
lab3_dump_same() {
	local name=$1 size=$2 threads=$3 files=$4 k status again want got at part kit=() yours=()
	shift 4
	local args=(-s "$size" -t "$threads" -f "$files" "$@" --keep --verify)
	again="mkdir d; bin/fillcopy ${args[*]} -d d; ls -l d"
	mkdir "kit-$name" "yours-$name"
	reference fillcopy "${args[@]}" -d "kit-$name" >/dev/null ||
		{ echo "the kit's fillcopy failed: ask your instructor"; return 1; }
	student 10 fillcopy "${args[@]}" -d "yours-$name" >/dev/null 2>err.txt
	status=$?
	[ $status -eq 0 ] || { timed_out $status fillcopy; head -2 err.txt; echo "exit status $status; reproduce: $again"; return 1; }
	# "K BYTES" a line, for the files named fillcopy-PID-K.dmp (other names as they are)
	want=$(awk -v s="$size" -v f="$files" 'BEGIN { p = int(s / f); for (k = 0; k < f; k++) print k, k == f - 1 ? s - k * p : p }')
	got=$(cd "yours-$name" && find . -type f -printf '%P %s\n' | sed -E 's/^fillcopy-[0-9]+-([0-9]+)\.dmp /\1 /' | sort -n)
	[ "$got" = "$want" ] || {
		echo "-s $size -f $files: files fillcopy-PID-K.dmp of SIZE/FILES bytes, the last one also the remainder, expected."
		echo "As 'K BYTES' (< expected, > yours): $(diff <(echo "$want") <(echo "$got") | grep '^[<>]' | head -4 | tr '\n' ' ')"
		echo "reproduce: $again"
		return 1
	}
	for ((k = 0; k < files; k++)); do
		kit+=("kit-$name"/fillcopy-*-"$k".dmp) yours+=("yours-$name"/fillcopy-*-"$k".dmp)
	done
	cat "${kit[@]}" >kit.bin && cat "${yours[@]}" >yours.bin || return 1
	cmp -s kit.bin yours.bin || {
		# the first byte of the buffer that differs, in file K at offset AT - K x SIZE/FILES
		at=$(cmp kit.bin yours.bin | sed -n 's/.* differ: [a-z]* \([0-9]*\).*/\1/p')
		part=$((size / files)) at=$((${at:-1} - 1))
		k=$((files - 1))
		[ $part -eq 0 ] || [ $((at / part)) -ge $k ] || k=$((at / part))
		echo "file $k is not slice $k of the buffer: its byte $((at - k * part)) differs from the kit's fillcopy's with the same -s and -t"
		echo "(thread K seeds its generator with K + 1; a byte the fill skips stays 0); reproduce: $again"
		return 1
	}
}

# Three runs: the default generator with many threads; rand_r with the byte
# copy and --prefault; more files than bytes (empty files, the bytes in the
# last one) and often more threads than bytes.
lab3_fillcopy_slices() {
	built fillcopy || return 1
	fresh_run
	local tiny
	tiny=$(random_between 1 9)
	lab3_dump_same default "$(random_between 100000 1500000)" "$(random_between 1 16)" "$(random_between 2 20)" &&
		lab3_dump_same rand_r "$(random_between 1000 100000)" "$(random_between 2 9)" "$(random_between 1 12)" \
			--rng rand_r --copy bytes --prefault &&
		lab3_dump_same tiny "$tiny" "$(random_between 1 12)" "$(random_between $((tiny + 1)) 30)"
}

# --verify finds the byte --corrupt K damaged (the middle of file K), exits
# 1 and removes the files; a run without --keep leaves nothing either.
lab3_fillcopy_verify() {
	built fillcopy || return 1
	fresh_run
	local size threads files k byte status again
	size=$(random_between 10000 500000) threads=$(random_between 1 8) files=$(random_between 2 12)
	k=$(random_between 0 $((files - 1)))
	# --corrupt flips the middle byte of file K: SIZE/FILES bytes, the last file also the remainder
	byte=$((size / files / 2))
	[ "$k" -lt $((files - 1)) ] || byte=$(((size - k * (size / files)) / 2))
	again="mkdir d; bin/fillcopy -s $size -t $threads -f $files --verify --corrupt $k -d d; echo \$?; ls d"
	mkdir d
	student 5 fillcopy -s "$size" -t "$threads" -f "$files" --verify --corrupt "$k" -d d >/dev/null 2>err.txt
	status=$?
	[ $status -eq 1 ] || { timed_out $status fillcopy; echo "--verify after --corrupt $k: exit status $status, not 1; reproduce: $again"; return 1; }
	grep -q "fillcopy-[0-9]*-$k\.dmp: byte $byte differs" err.txt || {
		echo "--verify --corrupt $k: expected a message naming file $k and 'byte $byte differs', got: $(head -1 err.txt)"
		echo "reproduce: $again"
		return 1
	}
	[ -z "$(ls -A d)" ] || { echo "a failed --verify left $(ls -A d | wc -l) files behind; reproduce: $again"; return 1; }
	again="mkdir d; bin/fillcopy -s $size -t $threads -f $files --verify -d d; echo \$?; ls d"
	student 5 fillcopy -s "$size" -t "$threads" -f "$files" --verify -d d >/dev/null 2>err.txt
	status=$?
	[ $status -eq 0 ] || { timed_out $status fillcopy; head -2 err.txt; echo "exit status $status, not 0; reproduce: $again"; return 1; }
	[ -z "$(ls -A d)" ] || { echo "without --keep, $(ls -A d | wc -l) files were left behind; reproduce: $again"; return 1; }
}

# -s 1024G is refused before anything is allocated: two such buffers fit
# in no machine's memory.
lab3_fillcopy_errors() {
	built fillcopy || return 1
	fresh_run
	usage_refused fillcopy -t "$(random_between 257 9999)" &&
		usage_refused fillcopy --rng mt &&
		usage_refused fillcopy -s 1024G
}

lab3_membw() {
	built membw || return 1
	fresh_run
	local size reps status
	# At least 1 MiB: a smaller copy can take under the CSV's 1 us resolution.
	size=$(random_between 1048576 8000000) reps=$(random_between 2 9)
	student 5 membw -s "$size" -r "$reps" --csv >got.csv 2>err.txt
	status=$?
	[ $status -eq 0 ] || { timed_out $status membw; head -2 err.txt; echo "exit status $status; reproduce: bin/membw -s $size -r $reps --csv"; return 1; }
	[ "$(head -1 got.csv)" = "bytes,rep,wall_s,mib_s" ] && [ "$(wc -l <got.csv)" -eq $((reps + 1)) ] &&
		awk -F, -v size="$size" 'NR > 1 && !(NF == 4 && $1 == size && $2 == NR - 1 && $3 > 0 && $4 > 0) { exit 1 }' got.csv || {
		echo "expected the header bytes,rep,wall_s,mib_s and $reps rows $size,1,... to $size,$reps,... with positive times"
		echo "reproduce: bin/membw -s $size -r $reps --csv"
		return 1
	}
	usage_refused membw -r "$(random_between 1001 9999)"
}

# lab3_cpu_s BIN ARGS...: "FILL COPY", the cpu_s of the fill and copy rows
# of one contained run of BIN ARGS --csv; nothing if it failed.
lab3_cpu_s() {
	contain 10 "$@" --csv 2>/dev/null |
		awk -F, '$8 == "fill" { f = $10 } $8 == "copy" { c = $10 } END { if (f != "" && c != "") print f, c }'
}

# Speed, against the kit's fillcopy run alongside, both contained: the fill
# and the copy of 8 MiB in one thread, prefaulted. Their CPU time, not
# their elapsed time: on a busy machine a thread can wait milliseconds
# for a core, longer than the work itself; and CPU time still varies 2 to
# 3-fold with what else uses the memory bus. Best of 5 alternating runs each.
lab3_speed() {
	built fillcopy || return 1
	fresh_run
	local mine=() theirs=() m t args=(-s 8M -t 1 -f 1 --prefault)
	for _ in 1 2 3 4 5; do
		t=$(lab3_cpu_s "$REFBIN/fillcopy" "${args[@]}")
		[ -n "$t" ] || { echo "the kit's fillcopy failed in the sandbox: ask your instructor"; return 1; }
		theirs+=("$t")
		m=$(lab3_cpu_s "$STUDENT/bin/fillcopy" "${args[@]}")
		[ -n "$m" ] || {
			echo "no fill and copy rows from fillcopy ${args[*]} --csv (it failed, or did not finish in 10 s)"
			echo "reproduce: bin/fillcopy ${args[*]} --csv"
			return 1
		}
		mine+=("$m")
	done
	m=$(printf '%s\n' "${mine[@]}" | awk 'NR == 1 || $1 < f { f = $1 } NR == 1 || $2 < c { c = $2 } END { print f, c }')
	t=$(printf '%s\n' "${theirs[@]}" | awk 'NR == 1 || $1 < f { f = $1 } NR == 1 || $2 < c { c = $2 } END { print f, c }')
	echo "CPU time of the fill and the copy of 8 MiB, 1 thread, prefaulted, best of 5: yours ${m/ / s and } s, the kit's ${t/ / s and } s"
	awk -v m="$m" -v t="$t" 'BEGIN { split(m, a, " "); split(t, b, " ")
		exit !(a[1] <= 3 * b[1] + 0.001 && a[2] <= 3 * b[2] + 0.001) }' ||
		{ echo "slower than 3x the kit's (+1 ms); reproduce: bin/fillcopy ${args[*]}, or bash labs/3-threads/bench-fillcopy.sh"; return 1; }
}

# The awk functions the data checks share.
LAB3_AWK_MEDIAN='function median(a, n,   i, j, x) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }'
# rate_ok(bytes, wall_s, mib_s): mib_s is bytes / 2^20 / wall_s, allowing
# for the rounding of both to the digits the programs print.
LAB3_AWK_RATE='function rate_ok(b, w, r,   d) { d = r * w - b / 1048576; if (d < 0) d = -d
		return d <= 0.01 * b / 1048576 + 6e-7 * r + 0.06 * w }'

# data/lab3.csv and data/lab3-memcpy.csv: every configuration the lab runs,
# values that agree with each other and with what memory can do (under
# 10^6 MiB/s), and 3+ trials of each configuration that are not copies.
lab3_data_plausible() {
	local csv="$SUB/data/lab3.csv" mem="$SUB/data/lab3-memcpy.csv"
	[ -f "$csv" ] && [ -f "$mem" ] || { echo "data/lab3.csv or data/lab3-memcpy.csv is missing; reproduce: make lab3"; return 1; }
	awk -F, "$LAB3_AWK_RATE"'
		function bad(why) { print "data/lab3.csv line " NR ": " why ": " $0; failed = 1; exit }
		NR == 1 { next }
		NF != 13 { bad(NF " fields, not 13") }
		!($1 ~ /^[0-9]+$/ && $2 ~ /^[1-9][0-9]*$/ && $3 ~ /^[1-9][0-9]*$/ && $4 ~ /^[1-9][0-9]*$/ &&
		  $7 ~ /^[01]$/ && $8 ~ /^[01]$/ && $13 ~ /^[0-9]+$/) { bad("not whole numbers where expected") }
		$5 !~ /^(xoshiro|rand_r|rand)$/ || $6 !~ /^(memcpy|bytes)$/ || $9 !~ /^(fill|copy|dump)$/ {
			bad("unknown rng, copy or phase") }
		NR == 2 { bytes = $3 }
		$3 != bytes { bad("bytes differs from line 2: every run of the lab fills the same buffer size") }
		!($10 > 0 && $11 >= 0 && $12 > 0 && $12 < 1e6) { bad("wall_s and mib_s must be positive, cpu_s not negative, mib_s below 10^6") }
		!rate_ok($3, $10, $12) { bad("mib_s is not bytes / 2^20 / wall_s") }
		# Each thread runs at most for the whole phase (a 1% and 1 ms margin).
		$11 > 1.01 * $2 * $10 + 0.001 { bad("cpu_s is more than threads x wall_s") }
		{
			key = "threads " $2 ", rng " $5 ", prefault " $7 ", phase " $9
			n = ++trials[key]; wall[key, n] = $10
			if ($2 > most) most = $2
		}
		END {
			if (failed) exit 1
			if (NR < 2) { print "data/lab3.csv has no rows"; exit 1 }
			if (most < 2) { print "data/lab3.csv: only 1 thread; the lab runs 1 to at least 3"; exit 1 }
			split("xoshiro rand", rngs, " "); split("fill copy dump", phases, " ")
			for (t = 1; t <= most; t++) for (r = 1; r <= 2; r++) for (p = 0; p <= 1; p++) for (f = 1; f <= 3; f++) {
				key = "threads " t ", rng " rngs[r] ", prefault " p ", phase " phases[f]
				if (trials[key] < 3) { print "data/lab3.csv: " trials[key] + 0 " trials of " key " (at least 3)"; exit 1 }
			}
			# Equal to the microsecond in every trial: likely for a phase of
			# some microseconds, not for one of half a millisecond or more.
			for (k in trials) {
				same = wall[k, 1] >= 0.0005
				for (i = 2; i <= trials[k]; i++) if (wall[k, i] != wall[k, 1]) same = 0
				if (same) { print "data/lab3.csv: every trial of " k " took exactly " wall[k, 1] " s: not measured"; exit 1 }
			}
		}' "$csv" || { echo "reproduce: make lab3"; return 1; }
	awk -F, "$LAB3_AWK_RATE$LAB3_AWK_MEDIAN"'
		function bad(why) { print "data/lab3-memcpy.csv line " NR ": " why ": " $0; failed = 1; exit }
		NR == 1 { next }
		NF != 5 { bad(NF " fields, not 5") }
		!($1 ~ /^[0-9]+$/ && $2 ~ /^[1-9][0-9]*$/ && $3 ~ /^[1-9][0-9]*$/) { bad("not whole numbers where expected") }
		!($4 > 0 && $5 > 0 && $5 < 1e6) { bad("wall_s and mib_s must be positive, mib_s below 10^6") }
		!rate_ok($2, $4, $5) { bad("mib_s is not bytes / 2^20 / wall_s") }
		!($1 in trials) { trials[$1] = 1; ntrials++ }
		{ rate[++rows] = $5; if (rows == 1) first = $4; else if ($4 != first) varied = 1 }
		END {
			if (failed) exit 1
			if (ntrials < 3) { print "data/lab3-memcpy.csv: " ntrials + 0 " trials (at least 3)"; exit 1 }
			if (!varied) { print "data/lab3-memcpy.csv: every copy took exactly " first " s: not measured"; exit 1 }
			# Any machine of this century copies faster than 100 MiB/s.
			if (median(rate, rows) <= 100) { print "data/lab3-memcpy.csv: median " median(rate, rows) " MiB/s: no memory is that slow"; exit 1 }
		}' "$mem" || { echo "reproduce: make lab3"; return 1; }
}

# Trends any machine shows, loaded or idle, at SCALE=tiny (256 KiB, where a
# thread may wait longer for a core than it works) as at quick:
#  - rand() costs a locked call per byte, xoshiro one call per 8 bytes in
#    registers: the prefaulted 1-thread fill takes at least 3x more CPU time
#    with rand() (100x at quick scale; CPU time, not elapsed, because at
#    tiny scale the elapsed time is mostly waiting to be scheduled);
#  - rand()'s lock lets one thread at a time call it: 2 threads cannot fill
#    in much less elapsed time than the CPU time 1 thread needs for the same
#    calls. A busy machine only makes the elapsed time longer. (Not the
#    elapsed times of 1 and 2 threads: on a busy machine 2 threads get more
#    of its cores and can come out faster.)
#  - prefaulted, the fill and copy fault only for the threads' stacks: at
#    most 50 + 4 per thread, whatever the buffer size and page size.
lab3_data_trends() {
	local csv="$SUB/data/lab3.csv"
	[ -f "$csv" ] || { echo "data/lab3.csv is missing; reproduce: make lab3"; return 1; }
	awk -F, "$LAB3_AWK_MEDIAN"'
		NR == 1 { next }
		$7 == 1 && $9 != "dump" && $13 > 50 + 4 * $2 {
			print "line " NR ": " $13 " page faults in a prefaulted " $9 " with " $2 " threads: --prefault should leave only a few"
			failed = 1; exit }
		$7 == 1 && $9 == "fill" && ($5 == "xoshiro" || $5 == "rand") && $2 <= 2 {
			k = $5 "," $2; n = ++count[k]; wall[k, n] = $10; cpu[k, n] = $11 }
		function med(values, k,   i, a) { for (i = 1; i <= count[k]; i++) a[i] = values[k, i]; return median(a, count[k]) }
		END {
			if (failed) exit 1
			if (!count["xoshiro,1"] || !count["rand,1"] || !count["rand,2"]) {
				print "no prefaulted fill with xoshiro at 1 thread, or with rand at 1 and 2 threads"; exit 1 }
			x = med(cpu, "xoshiro,1"); r = med(cpu, "rand,1"); w = med(wall, "rand,2")
			if (r < 3 * x) {
				printf "prefaulted fill, 1 thread: median cpu_s %s s with rand, not 3x xoshiro'\''s %s s: rand() is a locked call per byte\n", r, x; exit 1 }
			if (w < 0.6 * r) {
				printf "prefaulted rand fill: median wall_s %s s with 2 threads, less than 0.6x the %s s of CPU 1 thread needs: rand() has one lock, one thread at a time\n", w, r; exit 1 }
		}' "$csv" || { echo "reproduce: make lab3"; return 1; }
}

grade_lab3() {
	check lab3 4 "fillcopy: file K holds slice K of the kit's buffer, exact sizes" lab3_fillcopy_slices
	check lab3 2 "fillcopy: --verify catches --corrupt; no files left behind" lab3_fillcopy_verify
	check lab3 1 "fillcopy: bad arguments exit 2 with the usage" lab3_fillcopy_errors
	check lab3 1 "membw: --csv rows, exit codes" lab3_membw
	check lab3 2 "fillcopy: fill and copy speed within 3x the kit's" lab3_speed
	check lab3 2 "data/lab3*.csv: every configuration, plausible values, 3+ real trials" lab3_data_plausible
	check lab3 2 "data/lab3.csv: rand() slow and not faster with 2 threads, --prefault removes the faults" lab3_data_trends
}
