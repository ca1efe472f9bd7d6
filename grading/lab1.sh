# shellcheck shell=bash
# grading/lab1.sh - Lab 1 checks, sourced by grade.sh.
# Inputs are drawn at random for every grading run (random_between and
# random_char in grade.sh); the kit's own programs say what the right
# output is.

lab1_writer() {
	built writer || return 1
	fresh_run
	local c n status
	c=$(random_char) n=$(random_between 1000 40000)
	student 10 writer -c "$c" -n "$n" plain.txt
	status=$?
	[ $status -eq 0 ] || { timed_out $status writer; echo "exit status $status; reproduce: bin/writer -c $c -n $n plain.txt"; return 1; }
	lines_of "$c" "$n" >expected.txt
	cmp -s plain.txt expected.txt || { echo "not $n lines of '$c'; reproduce: bin/writer -c $c -n $n plain.txt"; return 1; }

	# append adds at the end; overwrite starts at 0 and does not truncate
	lines_of X 50 >append.txt
	lines_of X $((n + 100)) >overwrite.txt
	student 10 writer -c "$c" -n "$n" -m append -b 0 append.txt &&
		student 10 writer -c "$c" -n "$n" -m overwrite overwrite.txt ||
		{ echo "writer failed in append or overwrite mode"; return 1; }
	{ lines_of X 50; lines_of "$c" "$n"; } | cmp -s - append.txt ||
		{ echo "append mode (-b 0) did not add $n lines after the 50 there; reproduce: bin/writer -c $c -n $n -m append -b 0 FILE"; return 1; }
	{ lines_of "$c" "$n"; lines_of X 100; } | cmp -s - overwrite.txt ||
		{ echo "overwrite mode did not write $n lines over the start of a longer file; reproduce: bin/writer -c $c -n $n -m overwrite FILE"; return 1; }
	student 10 writer -n 0 x.txt >/dev/null 2>&1
	[ $? -eq 2 ] || { echo "writer -n 0 should be a usage error (exit 2)"; return 1; }
}

lab1_launch() {
	built launch || return 1
	fresh_run
	local trials out status
	trials=$(random_between 2 4)
	# Each command waits for the other's mark: only concurrent starts pass.
	cat >meet.sh <<-'SH'
	touch "$1"
	for i in $(seq 50); do [ -e "$2" ] && exit 0; sleep 0.1; done
	exit 3
	SH
	printf 'echo x >>count.txt\n' >count.sh
	out=$(student 30 launch --csv -r "$trials" -f count.txt "sh meet.sh a b" "sh meet.sh b a" "sh count.sh")
	status=$?
	[ $status -eq 0 ] || { timed_out $status launch; echo "exit status $status: are the children started together?"; echo "reproduce: bin/launch -r $trials 'sh meet.sh a b' 'sh meet.sh b a'"; return 1; }
	[ "$(head -1 <<<"$out")" = "trial,child,command,start_delay_s,wall_s,user_s,sys_s,vol_cs,invol_cs,exit_status" ] ||
		{ echo "the CSV header is not the one in the handout"; return 1; }
	[ "$(grep -c '^[0-9]*,[123],' <<<"$out")" -eq $((3 * trials)) ] ||
		{ echo "expected $((3 * trials)) rows for -r $trials and 3 commands"; return 1; }
	[ "$(wc -l <count.txt)" -eq 1 ] || { echo "-f did not remove the file before each trial"; return 1; }

	# elapsed time and rusage: a sleep takes time but no CPU; a loop takes CPU
	out=$(student 30 launch --csv "sleep 0.3" "awk BEGIN{for(i=0;i<4000000;i++)s+=i}" "false")
	status=$?
	[ $status -ne 0 ] || { echo "a child exited 1 but launch exited 0; reproduce: bin/launch true false"; return 1; }
	awk -F, '$2 == 1 && $1 == 1 { exit !($(NF-5) >= 0.3 && $(NF-4) + $(NF-3) < 0.15) }' <<<"$out" ||
		{ echo "'sleep 0.3' should take >= 0.3 s elapsed and almost no CPU"; return 1; }
	awk -F, '$2 == 2 && $1 == 1 { exit !($(NF-4) > 0) }' <<<"$out" ||
		{ echo "a CPU-bound child should show user CPU time (wait4's rusage)"; return 1; }
	awk -F, '$2 == 3 && $1 == 1 { exit !($NF == 1) }' <<<"$out" ||
		{ echo "'false' should show exit status 1"; return 1; }
}

# runs_same FILE ARGS...: the student's runs prints what the kit's prints.
runs_same() {
	local file=$1 status
	shift
	student 20 runs "$@" "$file" >got.out 2>/dev/null
	status=$?
	reference runs "$@" "$file" >want.out 2>/dev/null
	[ $status -eq $? ] || { timed_out $status runs; echo "exit status $status; reproduce: bin/runs $* $(basename "$file")"; return 1; }
	cmp -s got.out want.out || { echo "output differs from the kit's; reproduce: bin/runs $* $(basename "$file")"; diff want.out got.out | head -4; return 1; }
}

lab1_runs() {
	built runs || return 1
	fresh_run
	local f seed
	cp "$KIT"/grading/fixtures/lab1/*.txt "$RUN/"
	seed=$RANDOM
	# A random 2 MB file: runs of A, B and '?' lines among malformed ones.
	awk -v seed="$seed" 'BEGIN { srand(seed)
		while (bytes < 2000000) {
			r = rand(); n = 1 + int(rand() * 700)
			line = r < 0.02 ? "AB" : r < 0.03 ? "" : r < 0.05 ? "?" : rand() < 0.5 ? "A" : "B"
			for (i = 0; i < n; i++) print line
			bytes += n * (length(line) + 1) } }' >"$RUN/random-$seed.txt"
	for f in "$RUN"/*.txt; do
		runs_same "$f" --csv || return 1
		runs_same "$f" --summary-csv || return 1
	done
	student 20 runs "$RUN/random-$seed.txt" | grep '^Change on line' >got.out
	reference runs "$RUN/random-$seed.txt" | grep '^Change on line' >want.out
	cmp -s got.out want.out || { echo "the 'Change on line' lines differ from the kit's; reproduce: bin/runs FILE"; return 1; }
}

lab1_runs_expect() {
	built runs || return 1
	fresh_run
	local a b status
	a=$(random_between 10 5000) b=$(random_between 10 5000)
	{ lines_of A "$a"; lines_of B "$b"; } >ab.txt
	student 10 runs -q --expect "A=$a,B=$b" ab.txt >/dev/null 2>&1
	status=$?
	[ $status -eq 0 ] || { echo "--expect A=$a,B=$b on a matching file: exit $status, not 0"; return 1; }
	student 10 runs -q --expect "A=$a,B=$((b + 1))" ab.txt >/dev/null 2>err.out
	status=$?
	[ $status -eq 1 ] && grep -q "$((b + 1))" err.out ||
		{ echo "--expect with a wrong count: exit $status (not 1) or no message naming the counts"; return 1; }
	student 10 runs --expect "A=x" ab.txt >/dev/null 2>&1
	[ $? -eq 2 ] || { echo "a malformed --expect should be a usage error (exit 2)"; return 1; }
}

# Speed, against the kit's runs on the same 40 MB file in the same grading
# run, timed by the kit's launch. Best of 5 alternating runs each: the
# fastest run is the one least disturbed by whatever else the machine does.
lab1_runs_speed() {
	built runs || return 1
	fresh_run
	reference launch -f big.txt "$KIT/bin/writer -n 10000000 big.txt" "$KIT/bin/writer -c B -n 10000000 big.txt" >/dev/null
	local mine=() theirs=() m t
	for _ in 1 2 3 4 5; do
		theirs+=("$(contain 30 "$REFBIN/launch" --csv "$REFBIN/runs -q big.txt" | awk -F, '/^1,1,/ { print $(NF-5) }')")
		mine+=("$(contain 30 "$REFBIN/launch" --csv "$STUDENT/bin/runs -q big.txt" | awk -F, '/^1,1,/ { print $(NF-5) }')")
	done
	m=$(printf '%s\n' "${mine[@]}" | sort -g | grep -m1 .)
	t=$(printf '%s\n' "${theirs[@]}" | sort -g | grep -m1 .)
	echo "runs -q on 40 MB, best of 5: yours ${m:-?} s, the kit's $t s"
	awk -v m="$m" -v t="$t" 'BEGIN { exit !(m != "" && m <= 3 * t + 0.05) }' ||
		{ echo "slower than 3x the kit's runs (+50 ms); reproduce: make bench"; return 1; }
}

# data/lab1.csv: plausible numbers, real trials, and trends any machine shows.
lab1_data_plausible() {
	local csv="$SUB/data/lab1.csv"
	[ -f "$csv" ] || { echo "data/lab1.csv is missing; reproduce: make lab1"; return 1; }
	awk -F, 'NR == 1 { next }
		NF != 17 { print "line " NR ": " NF " fields, not 17"; bad = 1; exit }
		!($4 ~ /^[0-9]+$/ && $6 ~ /^[0-9]+$/ && $6 > 0 && $7 > 0 && $7 < 600 && $8 >= 0 && $9 >= 0 &&
		  $12 >= 0 && $12 < 10 && $13 >= 0 && $13 <= $6 && $14 == $6 - $13 && $16 <= $17 && $17 <= $13) {
			print "line " NR ": implausible values: " $0; bad = 1; exit }
		{ key = $1 "," $3 "," $5; trials[key]++; wall[key, trials[key]] = $7 }
		END {
			if (bad) exit 1
			if (NR < 2) { print "no rows"; exit 1 }
			for (k in trials) {
				if (trials[k] < 3) { print "only " trials[k] " trials for " k " (at least 3)"; exit 1 }
				same = 1
				for (i = 2; i <= trials[k]; i++) if (wall[k, i] != wall[k, 1]) same = 0
				if (same) { print "every trial of " k " took exactly " wall[k, 1] " s: not measured"; exit 1 }
			}
		}' "$csv" || { echo "reproduce: make lab1"; return 1; }
}

lab1_data_trends() {
	local csv="$SUB/data/lab1.csv"
	[ -f "$csv" ] || { echo "data/lab1.csv is missing; reproduce: make lab1"; return 1; }
	awk -F, 'NR == 1 { next }
		$2 == "append" && $14 != 0 { print "line " NR ": lines lost in append mode"; exit 1 }
		$2 == "overwrite" { lost[$4] += $14; written[$4] = $6; over = 1 }
		$1 == "default" { d[++nd] = $7 }
		$1 == "buffer" && $3 == 0 { u[++nu] = $7 }
		function median(a, n,   i, j, x) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
		END {
			if (!over) { print "no overwrite experiment"; exit 1 }
			for (t in lost) if (lost[t] != written[t]) {
				print "overwrite trial " t ": " lost[t] " lines lost, not one writer'\''s " written[t]; exit 1 }
			if (!nd || !nu) { print "no default or unbuffered (-b 0) experiment"; exit 1 }
			if (median(u, nu) <= median(d, nd)) {
				print "unbuffered writers were not slower than buffered ones"; exit 1 }
		}' "$csv" || { echo "reproduce: make lab1"; return 1; }
}

grade_lab1() {
	check lab1 3 "writer: line counts, append and overwrite modes" lab1_writer
	check lab1 3 "launch: concurrent start, -r, -f, times and rusage" lab1_launch
	check lab1 4 "runs: --csv and --summary-csv as the kit's on fixtures and a random file" lab1_runs
	check lab1 1 "runs: --expect exit codes" lab1_runs_expect
	check lab1 2 "runs: speed within 3x the kit's" lab1_runs_speed
	check lab1 2 "data/lab1.csv: plausible values, 3+ real trials" lab1_data_plausible
	check lab1 2 "data/lab1.csv: no loss in append mode, one writer's worth in overwrite" lab1_data_trends
}
