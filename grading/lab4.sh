# shellcheck shell=bash
# grading/lab4.sh - Lab 4 checks, sourced by grade.sh.
# Sizes, counts and seeds are drawn at random for every grading run, so that
# no answer can be written into a program in advance; the kit's own pwriters
# and datagen say what the right bytes are.

# lab4_missing_dir PROG ARGS...: with -d naming a directory that does not
# exist, the student's PROG exits 1 with a message naming the path.
lab4_missing_dir() {
	local prog=$1 dir status
	shift
	dir=/nonexistent-$RANDOM
	student 5 "$prog" "$@" -d "$dir" >/dev/null 2>err.txt
	status=$?
	[ $status -eq 1 ] && grep -q "$dir" err.txt && return 0
	timed_out $status "$prog"
	echo "$prog $* -d $dir should exit 1 with a message naming $dir (got exit $status)"
	echo "reproduce: bin/$prog $* -d $dir; echo \$?"
	return 1
}

# Every strategy, each with other options, writes exactly the kit's files,
# and its --csv row describes the run as the kit's does.
lab4_pwriters() {
	built pwriters || return 1
	fresh_run
	local files size batch k s args again status f num mine yours header row want_header want_row r
	local a=abcdefghijklmnopqrstuvwxyz
	files=$(random_between 3 9) size=$(random_between 20000 70000) batch=$(random_between 1000 16000)
	k=$(random_between 2 8)
	# A batch that is no multiple of 26 shifts the alphabet from one write to
	# the next, and the last write of a file is a short one.
	[ $((batch % 26)) -ne 0 ] || batch=$((batch + 1))
	[ $((size % batch)) -ne 0 ] || size=$((size + 1))
	# fsync only in seq: it changes no byte, and costs time on a busy disk.
	local -A extra=([seq]="" [per-file]="--no-fsync" [io-thread]="--no-fsync --append" ["pool:$k"]="--no-fsync")
	for s in seq per-file io-thread "pool:$k"; do
		# shellcheck disable=SC2206 # extra holds whole options, split on purpose
		args=(-F "$files" -S "$size" -B "$batch" --strategy "$s" ${extra[$s]} --keep)
		again="mkdir d; bin/pwriters ${args[*]} -d d"
		mkdir "kit-$s" "yours-$s"
		reference pwriters "${args[@]}" --csv -d "kit-$s" >want.csv
		student 10 pwriters "${args[@]}" --csv -d "yours-$s" >got.csv 2>err.txt
		status=$?
		[ $status -eq 0 ] || { timed_out $status pwriters; head -2 err.txt; echo "exit status $status; reproduce: $again"; return 1; }
		yours=("yours-$s"/*)
		[ -e "${yours[0]}" ] || yours=()
		[ ${#yours[@]} -eq "$files" ] || { echo "--strategy $s wrote ${#yours[@]} files, not $files; reproduce: $again; ls d"; return 1; }
		for f in "kit-$s"/pwriters.*; do
			num=${f##*.}
			mine=("yours-$s"/pwriters.*."$num")
			[ -e "${mine[0]}" ] || { echo "--strategy $s: no file named pwriters.PID.$num; reproduce: $again; ls d"; return 1; }
			cmp -s "$f" "${mine[0]}" || {
				r=$((10#$num % 26))	# file NUM: the alphabet over and over, from letter NUM % 26
				echo "--strategy $s: file $num is not $size bytes of the alphabet over and over from '${a:r:1}'"
				echo "reproduce: $again; cmp d/pwriters.*.$num <(yes ${a:r}${a:0:r} | tr -d '\n' | head -c $size)"
				return 1
			}
		done
		# The header, and the row up to the times: strategy, threads, files,
		# sizes, options.
		{ read -r want_header; read -r want_row; } <want.csv
		{ read -r header; read -r row; } <got.csv
		[ "$header" = "$want_header" ] && [ "${row%,*,*,*,*}" = "${want_row%,*,*,*,*}" ] || {
			echo "--csv with --strategy $s: expected the kit's header and a row starting ${want_row%,*,*,*,*},"
			echo "got: ${row%,*,*,*,*}"
			echo "reproduce: $again --csv"
			return 1
		}
	done
}

# Without --keep nothing is left behind; bad arguments and a missing
# directory are reported as the kit's conventions say.
lab4_pwriters_cleanup_errors() {
	built pwriters || return 1
	fresh_run
	local files s status
	files=$(random_between 5 30)
	mkdir d
	for s in seq per-file io-thread pool; do
		student 5 pwriters -F "$files" -S 8K --no-fsync --strategy "$s" -d d >/dev/null 2>&1
		status=$?
		[ $status -eq 0 ] || { timed_out $status pwriters; echo "exit status $status; reproduce: bin/pwriters -F $files -S 8K --no-fsync --strategy $s"; return 1; }
		[ -z "$(ls -A d)" ] ||
			{ echo "--strategy $s without --keep left $(ls -A d | wc -l) files behind; reproduce: mkdir d; bin/pwriters -F $files -S 8K --no-fsync --strategy $s -d d; ls d"; return 1; }
	done
	usage_refused pwriters -F 0 &&
		usage_refused pwriters -F "$(random_between 10001 99999)" &&
		usage_refused pwriters -B 0 &&
		usage_refused pwriters --strategy pool:0 &&
		usage_refused pwriters --strategy "threads$RANDOM" &&
		usage_refused pwriters -F 3 extra &&
		lab4_missing_dir pwriters -F 2 -S 1K
}

# lab4_datagen_run DIR KITDIR ARGS...: the student's datagen, run with ARGS
# into DIR, writes the same four files as the kit's in KITDIR.
lab4_datagen_run() {
	local dir=$1 kit=$2 again status f
	shift 2
	again="mkdir d; bin/datagen $* -d d"
	student 5 datagen "$@" -d "$dir" --csv >got.csv 2>err.txt
	status=$?
	[ $status -eq 0 ] || { timed_out $status datagen; head -2 err.txt; echo "exit status $status; reproduce: $again"; return 1; }
	for f in students contacts exams grades; do
		cmp -s "$kit/$f.txt" "$dir/$f.txt" || {
			echo "datagen $*: $f.txt is not what the kit's datagen writes with the same -s, -e and --seed"
			echo "reproduce: $again, and compare d/$f.txt with the original kit's bin/datagen's"
			return 1
		}
	done
}

# The four files, threaded with a small buffer (many rounds) and with -z,
# are byte for byte the kit's for the same seed, and the kit's for another
# seed: so the same seed gives the same files and another seed other ones.
lab4_datagen() {
	built datagen || return 1
	fresh_run
	local records exams seed small big want
	records=$(random_between 800 3000) exams=$(random_between 0 15) seed=$(random_between 1 999999)
	small=$(random_between 1 40) big=$(random_between 100 "$records")
	mkdir kit kit2 threaded sequential threaded2
	reference datagen -s "$records" -e "$exams" --seed "$seed" -d kit >/dev/null
	reference datagen -s "$records" -e "$exams" --seed $((seed + 1)) -d kit2 >/dev/null
	lab4_datagen_run threaded kit -s "$records" -e "$exams" -b "$small" --seed "$seed" &&
		lab4_datagen_run sequential kit -s "$records" -e "$exams" -b "$big" -z --seed "$seed" &&
		lab4_datagen_run threaded2 kit2 -s "$records" -e "$exams" -b "$big" --seed $((seed + 1)) || return 1
	# The last row: bytes is what the four files hold.
	want="threaded,$records,$exams,$big,$((seed + 1)),$(cat kit2/*.txt | wc -c)"
	[ "$(sed -n 2p got.csv | cut -d, -f1-6)" = "$want" ] || {
		echo "--csv: expected a row starting $want, got $(sed -n 2p got.csv | cut -d, -f1-6)"
		echo "reproduce: bin/datagen -s $records -e $exams -b $big --seed $((seed + 1)) --csv"
		return 1
	}
}

lab4_datagen_errors() {
	built datagen || return 1
	fresh_run
	usage_refused datagen -s 0 &&
		usage_refused datagen -e "$(random_between 1001 9999)" &&
		usage_refused datagen -b 0 &&
		usage_refused datagen -s 10 extra &&
		lab4_missing_dir datagen -s "$(random_between 1 50)"
}

# data/lab4-writers.csv: every strategy with and without fsync at each file
# count, values that agree with each other and with what memory can do, and
# 3+ trials of each configuration that are not copies of one another.
lab4_writers_data() {
	local csv="$SUB/data/lab4-writers.csv"
	[ -f "$csv" ] || { echo "data/lab4-writers.csv is missing; reproduce: make lab4"; return 1; }
	awk -F, 'BEGIN { split("seq per-file io-thread pool", word, " ") }
		function bad(why) { print "line " NR ": " why ": " $0; failed = 1; exit }
		NR == 1 { next }
		NF != 12 { bad(NF " fields, not 12") }
		$2 !~ /^(seq|per-file|io-thread|pool)$/ { bad("unknown strategy " $2) }
		!($1 ~ /^[0-9]+$/ && $3 ~ /^[1-9][0-9]*$/ && $4 ~ /^[1-9][0-9]*$/ && $5 ~ /^[1-9][0-9]*$/ &&
		  $6 ~ /^[1-9][0-9]*$/ && $7 ~ /^[01]$/ && $8 ~ /^[01]$/) { bad("not whole numbers where expected") }
		($2 == "seq" || $2 == "io-thread") && $3 != 1 { bad($2 " runs one writer thread, not " $3) }
		$2 == "per-file" && $3 != $4 { bad("per-file runs one thread per file: " $4 " files, " $3 " threads") }
		# Times are positive; no more than 100 GiB/s, beyond what memory can copy.
		!($9 > 0 && $10 > 0 && $11 > 0 && $12 > 0 && $11 < 102400 && $12 < 102400) { bad("implausible times or rates") }
		# The rates are the bytes over the times (to 1%, or the times rounding).
		{ mib = $4 * $5 / 1048576 }
		(mib / $11 - $9) ^ 2 > (0.01 * $9 + 1e-6) ^ 2 { bad("mib_s is not files x bytes_per_file / 2^20 / wall_s") }
		(mib / $12 - $10) ^ 2 > (0.01 * $10 + 1e-6) ^ 2 { bad("cpu_mib_s is not files x bytes_per_file / 2^20 / cpu_s") }
		# One thread cannot run longer than the time that passed.
		$2 == "seq" && $10 > 1.1 * $9 + 0.001 { bad("seq has one thread, yet cpu_s is more than wall_s") }
		{
			key = $2 " with " $4 " files of " $5 " bytes, fsync " $7 ", append " $8
			n = ++trials[key]; wall[key, n] = $9; cpu[key, n] = $10
			strategies[$4, $5, $7, $2] = 1; counts[$4 "," $5] = 1
		}
		END {
			if (failed) exit 1
			if (NR < 2) { print "no rows"; exit 1 }
			for (k in trials) {
				if (trials[k] < 3) { print "only " trials[k] " trials of " k " (at least 3)"; exit 1 }
				same = 1
				for (i = 2; i <= trials[k]; i++) if (wall[k, i] != wall[k, 1] || cpu[k, i] != cpu[k, 1]) same = 0
				if (same) { print "every trial of " k " took exactly " wall[k, 1] " s: not measured"; exit 1 }
			}
			n = 0
			for (c in counts) {
				n++
				split(c, fb, ",")
				for (f = 0; f <= 1; f++) for (s = 1; s <= 4; s++)
					if (!((fb[1], fb[2], f, word[s]) in strategies)) {
						print "no " word[s] " run with " fb[1] " files of " fb[2] " bytes and fsync " f; exit 1 }
			}
			if (n < 2) { print "only one file count: the lab sweeps several"; exit 1 }
		}' "$csv" || { echo "reproduce: make lab4"; return 1; }
}

# data/lab4-datagen.csv: both modes, 3+ runs each that are not copies, the
# same output for the same arguments, a size the file format allows, and
# elapsed time that holds the filling and writing it is split into.
lab4_datagen_data() {
	local csv="$SUB/data/lab4-datagen.csv"
	[ -f "$csv" ] || { echo "data/lab4-datagen.csv is missing; reproduce: make lab4"; return 1; }
	awk -F, 'function bad(why) { print "line " NR ": " why ": " $0; failed = 1; exit }
		NR == 1 { next }
		NF != 11 { bad(NF " fields, not 11") }
		$2 !~ /^(threaded|sequential)$/ { bad("mode is not threaded or sequential") }
		!($1 ~ /^[0-9]+$/ && $3 ~ /^[1-9][0-9]*$/ && $4 ~ /^[0-9]+$/ && $5 ~ /^[1-9][0-9]*$/ &&
		  $6 ~ /^[0-9]+$/ && $7 ~ /^[1-9][0-9]*$/) { bad("not whole numbers where expected") }
		# Per student: a students, a contacts and a grades line (95 to 109
		# bytes with 6-digit ids, more with longer ones) and 27 to 29 bytes per exam.
		$7 < $3 * (95 + 27 * $4) || $7 > $3 * (125 + 32 * $4) { bad($7 " bytes is not what " $3 " students with " $4 " exams take") }
		!($8 > 0 && $9 > 0 && $10 >= 0 && $11 >= 0) { bad("times must be positive") }
		$10 + $11 > $8 + 2e-6 { bad("fill_s + write_s is more than wall_s, which holds both") }
		$2 == "sequential" && $9 > 1.1 * $8 + 0.001 { bad("sequential has one thread, yet cpu_s is more than wall_s") }
		{
			args = "-s " $3 " -e " $4 " --seed " $6
			if ((args in bytes) && bytes[args] != $7) bad("other bytes than line " line[args] " for the same " args)
			bytes[args] = $7; line[args] = NR
			key = $2 " runs with " args " -b " $5
			n = ++runs[key]; wall[key, n] = $8; cpu[key, n] = $9; modes[$2] = 1
		}
		END {
			if (failed) exit 1
			if (!("threaded" in modes) || !("sequential" in modes)) { print "both modes are needed: threaded and sequential (-z)"; exit 1 }
			for (k in runs) {
				if (runs[k] < 3) { print "only " runs[k] " " k " (at least 3)"; exit 1 }
				same = 1
				for (i = 2; i <= runs[k]; i++) if (wall[k, i] != wall[k, 1] || cpu[k, i] != cpu[k, 1]) same = 0
				if (same) { print "all " k " took exactly " wall[k, 1] " s: not measured"; exit 1 }
			}
		}' "$csv" || { echo "reproduce: make lab4"; return 1; }
}

# A trend any machine shows, on any file system, loaded or idle: without
# fsync, a thread per file costs more CPU per MiB than one thread (creating,
# scheduling and ending a thread per file), where creating a thread is a visible
# part of writing a file: files of at most 256 KiB (SCALE=full writes 4 MiB
# files, where the difference drowns in the spread between trials). CPU time,
# not elapsed time: a busy machine delays threads but does not bill them.
# datagen has no such trend: at SCALE=tiny on a busy machine, the fastest
# threaded run took 0.4 to 3.8 times as long as the fastest sequential one,
# and even its fill_s, the same work in both modes, 0.3 to 1.4 times.
lab4_writers_trend() {
	local csv="$SUB/data/lab4-writers.csv"
	[ -f "$csv" ] || { echo "data/lab4-writers.csv is missing; reproduce: make lab4"; return 1; }
	awk -F, 'function median(a, n,   i, j, x) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
			if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
			return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
		NR > 1 && $7 == 0 && $5 <= 262144 && ($2 == "seq" || $2 == "per-file") {
			if ($4 > most) most = $4
			v[$2, $4, ++n[$2, $4]] = $12
		}
		END {
			if (!most) exit 0
			if (!n["seq", most] || !n["per-file", most]) {
				print "no seq or no per-file run without fsync at " most " files"; exit 1 }
			for (i = 1; i <= n["seq", most]; i++) a[i] = v["seq", most, i]
			seq = median(a, n["seq", most])
			for (i = 1; i <= n["per-file", most]; i++) b[i] = v["per-file", most, i]
			per = median(b, n["per-file", most])
			if (per >= seq) {
				printf "without fsync at %d files, the median cpu_mib_s of per-file (%s) is not below seq'\''s (%s): but creating a thread per file costs CPU\n", most, per, seq
				exit 1
			}
		}' "$csv" || { echo "reproduce: make lab4"; return 1; }
}

grade_lab4() {
	check lab4 4 "pwriters: every strategy writes the kit's bytes, --csv as the kit's" lab4_pwriters
	check lab4 2 "pwriters: files removed without --keep, exit codes" lab4_pwriters_cleanup_errors
	check lab4 3 "datagen: threaded and -z write the kit's bytes, per seed" lab4_datagen
	check lab4 1 "datagen: exit codes" lab4_datagen_errors
	check lab4 2 "data/lab4-writers.csv: every configuration, plausible values, 3+ real trials" lab4_writers_data
	check lab4 2 "data/lab4-datagen.csv: both modes, plausible values, 3+ real runs" lab4_datagen_data
	check lab4 2 "data/lab4-writers.csv: without fsync, a thread per file costs CPU" lab4_writers_trend
}
