# shellcheck shell=bash
# grading/lab2.sh - Lab 2 checks, sourced by grade.sh.
# Characters, line counts and batch sizes are drawn at random for every
# grading run, so that no answer can be written into a program in advance.
# The kit's lockbench takes the locks the student's programs must respect,
# and the kit's runs judges the files they write.
#
# The kit's lockbench runs outside the sandbox, the student's writers each
# in their own: the locks still meet, since they belong to the file, and
# the grader reads /proc/locks in its own PID namespace, where every
# waiting request shows, the sandboxed ones too.

# lab2_pick WORD...: one of the words.
lab2_pick() { shift $((RANDOM % $#)); echo "$1"; }

# lab2_new FILE: an empty FILE that the student's programs, which run as
# another user, can write (check runs with umask 000).
lab2_new() { rm -f "$1" && : >"$1"; }

# lab2_hold KIND FILE: the kit's lockbench writes "H" into FILE under a
# KIND lock, then keeps the lock 30 s, or until lab2_release. Returns once
# the "H" is there: from then on the lock is held.
LAB2_HOLDER=""
lab2_hold() {
	"$KIT/bin/lockbench" -c H -n 1 -k 1 --lock "$1" --hold-ms 30000 "$2" >/dev/null &
	LAB2_HOLDER=$!
	for _ in $(seq 500); do
		[ -s "$2" ] && return 0
		sleep 0.01
	done
	echo "the kit's lockbench did not take its $1 lock on $2: ask your instructor"
	lab2_release
	return 1
}

# lab2_release: ends the holder; its lock goes with it.
lab2_release() {
	[ -n "$LAB2_HOLDER" ] || return 0
	kill "$LAB2_HOLDER" 2>/dev/null
	wait "$LAB2_HOLDER" 2>/dev/null
	LAB2_HOLDER=""
}

# lab2_wait_for N FILE [PID]: waits until N lock requests wait on FILE, as
# /proc/locks shows, or FILE holds more than the holder's "H", or process
# PID has ended; at most 3 s (where /proc/locks cannot be read, say).
lab2_wait_for() {
	local n=$1 file=$2 pid=${3:-} inode end
	inode=$(stat -c %i "$file")
	end=$((${EPOCHREALTIME//[!0-9]/} + 3000000))
	while [ "${EPOCHREALTIME//[!0-9]/}" -lt $end ]; do
		[ "$(grep -c -- "-> .*:$inode " /proc/locks 2>/dev/null)" -ge "$n" ] && return
		[ "$(stat -c %s "$file")" -gt 2 ] && return
		[ -z "$pid" ] || kill -0 "$pid" 2>/dev/null || return
		sleep 0.02
	done
}

# lab2_writers KIND PROG OPTION...: writers A and B (the student's PROG
# -c A|B OPTION...) on a fresh file f, released together: the kit's holder
# takes a KIND lock first, both writers queue behind it, then the holder
# ends and its "H" line is removed from f. Prints how many runs of lines f
# then holds; returns non-zero, saying why, if a writer failed.
lab2_writers() {
	local kind=$1 prog=$2 a b status_a status_b
	shift 2
	lab2_new f
	lab2_hold "$kind" f || return 1
	student 20 "$prog" -c A "$@" f >/dev/null 2>a.err &
	a=$!
	student 20 "$prog" -c B "$@" f >/dev/null 2>b.err &
	b=$!
	lab2_wait_for 2 f
	lab2_release
	wait "$a"
	status_a=$?
	wait "$b"
	status_b=$?
	[ $status_a -eq 0 ] && [ $status_b -eq 0 ] || {
		timed_out $status_a "$prog" || timed_out $status_b "$prog"
		echo "exit statuses $status_a and $status_b: $(cat a.err b.err | head -1)"
		return 1
	}
	tail -n +2 f >g && mv g f
	reference runs --csv f | tail -n +2 | wc -l
}

# lab2_again KIND N K PROG OPTION...: how a student does what lab2_writers
# does, for the reproduce line.
lab2_again() {
	local kind=$1 n=$2 k=$3 prog=$4
	shift 4
	echo "rm -f t; bin/lockbench -c H -n 1 -k 1 --lock $kind --hold-ms 1000 t & sleep 0.3;" \
		"bin/$prog -c A -n $n -k $k${*:+ $*} t & bin/$prog -c B -n $n -k $k${*:+ $*} t; wait;" \
		"tail -n +2 t >u; bin/runs -q --expect A=$n,B=$n --multiple $k u"
}

# Exact counts: flock-writer appends N lines of the character; lockbench
# too, with a random kind of lock, flush or not, sync or not, and its --csv
# row says what it did as the kit's does.
lab2_counts() {
	built flock-writer lockbench || return 1
	fresh_run
	local c n k status opts want got
	c=$(random_char) n=$(random_between 1000 30000) k=$(random_between 1 3000)
	lines_of X 3 >f
	student 10 flock-writer -c "$c" -n "$n" -k "$k" f >/dev/null 2>err.txt
	status=$?
	[ $status -eq 0 ] || { timed_out $status flock-writer; head -1 err.txt; echo "exit status $status; reproduce: bin/flock-writer -c $c -n $n -k $k f"; return 1; }
	{ lines_of X 3; lines_of "$c" "$n"; } | cmp -s - f ||
		{ echo "3 lines of X, then $n lines of '$c' expected; reproduce: printf 'X\\nX\\nX\\n' >f; bin/flock-writer -c $c -n $n -k $k f"; return 1; }

	c=$(random_char) n=$(random_between 1000 30000) k=$(random_between 1 3000)
	opts=(--lock "$(lab2_pick flock fcntl ofd none)")
	[ $((RANDOM % 2)) -eq 0 ] || opts+=(--no-flush)
	# a sync per batch waits for the disk: only a few batches with one
	[ $((n / k)) -gt 16 ] || opts+=(--sync "$(lab2_pick none fdatasync fsync)")
	lines_of X 3 >f
	student 10 lockbench -c "$c" -n "$n" -k "$k" "${opts[@]}" --csv f >got.csv 2>err.txt
	status=$?
	[ $status -eq 0 ] || { timed_out $status lockbench; head -1 err.txt; echo "exit status $status; reproduce: bin/lockbench -c $c -n $n -k $k ${opts[*]} --csv f"; return 1; }
	{ lines_of X 3; lines_of "$c" "$n"; } | cmp -s - f ||
		{ echo "3 lines of X, then $n lines of '$c' expected; reproduce: printf 'X\\nX\\nX\\n' >f; bin/lockbench -c $c -n $n -k $k ${opts[*]} f"; return 1; }
	# The kit's header, and its row up to the batches; then three times.
	want=$(reference lockbench -c "$c" -n "$n" -k "$k" "${opts[@]}" --csv kit.txt | cut -d, -f1-7)
	got=$(cut -d, -f1-7 got.csv)
	[ "$got" = "$want" ] && [ "$(wc -l <got.csv)" -eq 2 ] &&
		awk -F, 'NR == 2 { exit !(NF == 10 && $8 ~ /^[0-9]+\.[0-9]+$/ && $9 ~ /^[0-9]+\.[0-9]+$/ &&
			$10 ~ /^[0-9]+\.[0-9]+$/ && $8 > 0 && $9 + $10 <= $8 + 2e-6) }' got.csv || {
		echo "--csv: expected the kit's header and a row starting $(tail -1 <<<"$want"),"
		echo "then wall_s > 0 and lock_wait_s + lock_held_s <= wall_s; got: $(tr '\n' ' ' <got.csv)"
		echo "reproduce: bin/lockbench -c $c -n $n -k $k ${opts[*]} --csv f"
		return 1
	}
}

# lab2_locked_runs KIND PROG OPTION...: two writers of the student's PROG,
# released together, with a KIND lock and the flush, K lines per lock: more
# than a stdio buffer holds, so several write(2)s per batch that only the
# lock keeps together. No line may be lost and every run must be a
# multiple of K. The writers interleave almost always; up to 3 tries for a
# file that shows it, and a correct program passes whatever the scheduler
# does.
lab2_locked_runs() {
	local kind=$1 prog=$2 n k runs again
	shift 2
	# N a multiple of K: the last batch is whole too
	k=$(random_between 3000 8000)
	n=$((k * $(random_between 150 250)))
	again=$(lab2_again "$kind" "$n" "$k" "$prog" "$@")
	for _ in 1 2 3; do
		runs=$(lab2_writers "$kind" "$prog" -n "$n" -k "$k" "$@") || { echo "$runs"; echo "reproduce: $again"; return 1; }
		reference runs -q --expect "A=$n,B=$n" --multiple "$k" f >/dev/null 2>err.txt ||
			{ echo "two writers, $prog -k $k $*: $(head -1 err.txt)"; echo "reproduce: $again"; return 1; }
		[ "$runs" -gt 2 ] && return 0
	done
	# never interleaved: nothing to judge, and no reason to take points
	return 0
}

# lab2_inside_lock PROG OPTION...: one writer of the student's PROG, its
# system calls recorded by strace: every write to the file comes while a
# lock is held. Two writers catch a write after the unlock only when the
# other one takes the lock in that moment; strace catches it every time.
lab2_inside_lock() {
	local prog=$1 k n calls status
	shift
	k=$(random_between 3000 8000) n=$((k * 3))
	lab2_new f
	contain 20 strace -o trace.txt -e trace=flock,fcntl,write,writev,pwrite64 \
		"$STUDENT/bin/$prog" -c A -n "$n" -k "$k" "$@" f >/dev/null 2>err.txt
	status=$?
	[ $status -eq 0 ] || { timed_out $status "$prog"; echo "$prog under strace: exit $status: $(head -1 err.txt)"; return 1; }
	# "inside outside": writes to descriptors 3 and up, under a lock or not
	calls=$(awk '
		/^flock\(.* = 0$/ { if (/LOCK_EX/) held = 1; else if (/LOCK_UN/) held = 0 }
		/^fcntl\(.*SETLKW?, .* = 0$/ { if (/F_WRLCK/) held = 1; else if (/F_UNLCK/) held = 0 }
		/^(write|writev|pwrite64)\([0-9]+,/ {
			if (substr($0, index($0, "(") + 1) + 0 >= 3) { if (held) inside++; else outside++ }
		}
		END { print inside + 0, outside + 0 }' trace.txt)
	[ "${calls#* }" -eq 0 ] && return 0
	echo "$prog -n $n -k $k $*: ${calls#* } of $((${calls% *} + ${calls#* })) write(2)s to the file came with no lock held:"
	echo "flush the batch before the unlock"
	echo "reproduce: strace -e trace=flock,fcntl,write bin/$prog -n $n -k $k $* t"
	return 1
}

lab2_together() {
	built flock-writer lockbench || return 1
	fresh_run
	local kind
	kind=$(lab2_pick flock fcntl ofd)
	# Where strace is missing or cannot trace in the sandbox (a container
	# without ptrace), the two writers' runs are the whole check.
	if command -v strace >/dev/null && contain 10 strace -o /dev/null true 2>/dev/null; then
		lab2_inside_lock flock-writer &&
			lab2_inside_lock lockbench --lock "$kind" || return 1
	fi
	lab2_locked_runs flock flock-writer &&
		lab2_locked_runs "$kind" lockbench --lock "$kind"
}

# --no-flush: the batches stay in the stdio buffer past the unlock, so once
# the writers interleave, the runs are whole buffers (2048 lines for a
# 4 KiB buffer; a power of two), not multiples of K = 1000. Still no line
# is lost: every write(2) is O_APPEND. Up to 6 tries for a file where the
# writers interleaved; none (most unlikely) leaves nothing to judge.
lab2_no_flush() {
	built lockbench || return 1
	fresh_run
	local kind n runs again
	kind=$(lab2_pick flock fcntl ofd) n=$(($(random_between 300 500) * 1000))
	again=$(lab2_again "$kind" "$n" 1000 lockbench --lock "$kind" --no-flush)
	for _ in 1 2 3 4 5 6; do
		runs=$(lab2_writers "$kind" lockbench -n "$n" -k 1000 --lock "$kind" --no-flush) ||
			{ echo "$runs"; echo "reproduce: $again"; return 1; }
		reference runs -q --expect "A=$n,B=$n" f >/dev/null 2>err.txt ||
			{ echo "two writers with --no-flush lost or changed lines: $(head -1 err.txt)"; echo "reproduce: $again"; return 1; }
		[ "$runs" -gt 2 ] || continue
		reference runs -q --multiple 1000 f >/dev/null 2>&1 || return 0
		echo "--no-flush -k 1000: the writers interleaved in $runs runs, all multiples of 1000:"
		echo "the batches were still written inside the lock, as with the flush"
		echo "reproduce: $again"
		return 1
	done
	# never interleaved: nothing to judge, and no reason to take points
	return 0
}

# lab2_excluded HOLDER PROG OPTION...: while the kit holds a HOLDER lock on
# f, the student's PROG -c B OPTION... f writes nothing; once the holder is
# gone it writes its lines.
lab2_excluded() {
	local holder=$1 prog=$2 m writer status again
	shift 2
	m=$(random_between 1 50)
	again="rm -f t; bin/lockbench -c H -n 1 -k 1 --lock $holder --hold-ms 2000 t & sleep 0.3; bin/$prog -c B -n $m${*:+ $*} t; cat t"
	lab2_new f
	lab2_hold "$holder" f || return 1
	student 10 "$prog" -c B -n "$m" "$@" f >/dev/null 2>err.txt &
	writer=$!
	lab2_wait_for 1 f $writer
	sleep 0.1	# a writer that took no lock would have written by now
	[ "$(cat f)" = H ] || {
		lab2_release
		wait $writer
		echo "$prog $* wrote while another process held an $holder lock on the file"
		echo "reproduce: $again"
		return 1
	}
	lab2_release
	wait $writer
	status=$?
	[ $status -eq 0 ] && { echo H; lines_of B "$m"; } | cmp -s - f || {
		timed_out $status "$prog"
		echo "$prog $*: exit status $status, and not 'H' then $m lines of B once the $holder lock was released"
		echo "reproduce: $again"
		return 1
	}
}

# lab2_ignored HOLDER PROG OPTION...: while the kit holds a HOLDER lock on
# f, the student's PROG -c B OPTION... f writes its lines and ends: the
# locks are advisory, and flock and record locks do not meet.
lab2_ignored() {
	local holder=$1 prog=$2 m status
	shift 2
	m=$(random_between 1 50)
	lab2_new f
	lab2_hold "$holder" f || return 1
	student 5 "$prog" -c B -n "$m" "$@" f >/dev/null 2>err.txt
	status=$?
	lab2_release
	[ $status -eq 0 ] && { echo H; lines_of B "$m"; } | cmp -s - f || {
		timed_out $status "$prog"
		echo "$prog $*: exit status $status, and not 'H' then $m lines of B, while another process held an $holder lock"
		echo "reproduce: rm -f t; bin/lockbench -c H -n 1 -k 1 --lock $holder --hold-ms 2000 t & sleep 0.3; bin/$prog -c B -n $m${*:+ $*} t; cat t"
		return 1
	}
}

# An flock excludes the flock writers until it is released, and a record
# lock, fcntl or OFD (drawn at random: they conflict with each other), the
# fcntl and OFD writers; --lock none and an fcntl lock go ahead while an
# flock is held.
lab2_exclusion() {
	built flock-writer lockbench || return 1
	fresh_run
	local k
	k=$(random_between 1 20)
	lab2_excluded flock flock-writer -k "$k" &&
		lab2_excluded flock lockbench -k "$k" --lock flock &&
		lab2_excluded "$(lab2_pick fcntl ofd)" lockbench -k "$k" --lock fcntl &&
		lab2_excluded "$(lab2_pick fcntl ofd)" lockbench -k "$k" --lock ofd &&
		lab2_ignored flock lockbench -k "$k" --lock none &&
		lab2_ignored flock lockbench -k "$k" --lock fcntl
}

# lab2_fails STATUS MESSAGE PROG ARGS...: the student's PROG ARGS exits
# STATUS and its stderr holds MESSAGE.
lab2_fails() {
	local want=$1 message=$2 prog=$3 status
	shift 3
	student 5 "$prog" "$@" >/dev/null 2>err.txt
	status=$?
	[ $status -eq "$want" ] && grep -qF -- "$message" err.txt && return 0
	timed_out $status "$prog"
	echo "$prog $*: expected exit status $want and '$message' on stderr; got $status and: $(head -1 err.txt)"
	echo "reproduce: bin/$prog $*; echo \$?"
	return 1
}

# Runtime failures exit 1 naming the call; bad arguments exit 2 with the
# usage. /dev/null cannot be synced; /dev/full takes no byte.
lab2_errors() {
	built flock-writer lockbench || return 1
	fresh_run
	local sync n
	sync=$(lab2_pick fsync fdatasync) n=$(random_between 1 5000)
	lab2_fails 1 "/dev/null: $sync: Invalid argument" lockbench -n "$n" --sync "$sync" --lock "$(lab2_pick flock fcntl ofd none)" /dev/null &&
		lab2_fails 1 "/dev/full: No space left on device" flock-writer -n "$n" /dev/full &&
		lab2_fails 1 "/dev/full: No space left on device" lockbench -n "$n" "$(lab2_pick --no-flush --csv)" /dev/full &&
		lab2_fails 2 "usage:" flock-writer -k 0 f &&
		lab2_fails 2 "usage:" flock-writer -c "$(random_char)$(random_char)" f &&
		lab2_fails 2 "usage:" lockbench --lock "$(lab2_pick flok posix lockf)" f &&
		lab2_fails 2 "usage:" lockbench --sync "$(lab2_pick always msync sometimes)" f
}

# The awk the data checks share: fields by name, and a median.
LAB2_AWK='BEGIN { FS = ","; split("experiment lines_per_lock flush lock sync trial writer lines_written wall_s " \
		"user_s sys_s vol_cs invol_cs start_delay_s lock_wait_s lock_held_s lines_found lost_lines runs " \
		"median_run_lines max_run_lines runs_multiple_of_k", names, " ") }
	function median(a, n,   i, j, x) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++)
		if (a[j] < a[i]) { x = a[i]; a[i] = a[j]; a[j] = x }
		return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
	NR > 1 { for (i = 1; i <= NF; i++) v[names[i]] = $i }'

# Every experiment of the lab in data/lab2.csv, values that agree with each
# other, and real trials: both writers in every trial, 2 trials or more of
# plain and every sweep setting, timings not all the same.
lab2_data_plausible() {
	local csv="$SUB/data/lab2.csv"
	[ -f "$csv" ] || { echo "data/lab2.csv is missing; reproduce: make lab2"; return 1; }
	awk "$LAB2_AWK"'
		function bad(why) { print "data/lab2.csv line " NR ": " why ": " $0; failed = 1; exit }
		NR == 1 { next }
		NF != 22 { bad(NF " fields, not 22") }
		v["experiment"] !~ /^(plain|sweep|locks|sync)$/ || v["flush"] !~ /^[01]$/ ||
		v["lock"] !~ /^(none|flock|fcntl|ofd)$/ || v["sync"] !~ /^(none|fdatasync|fsync)$/ ||
		v["writer"] !~ /^[AB]$/ || v["runs_multiple_of_k"] !~ /^[01]$/ { bad("unknown experiment, flush, lock, sync or writer") }
		{ for (i = 1; i <= 22; i++) if (i ~ /^(2|6|8|12|13|17|18|19|21)$/ && $i !~ /^[0-9]+$/) bad(names[i] " is not a whole number") }
		!(v["lines_per_lock"] > 0 && v["trial"] > 0 && v["lines_written"] > 0) { bad("lines_per_lock, trial or lines_written is 0") }
		!(v["wall_s"] > 0 && v["wall_s"] < 600 && v["user_s"] >= 0 && v["sys_s"] >= 0 &&
		  v["start_delay_s"] >= 0 && v["start_delay_s"] < 10) {
			bad("wall_s must be positive and below 600 s, CPU times and start_delay_s not negative") }
		# 2-byte lines; no memory moves 10^5 MiB/s
		v["lines_written"] * 2 / 1048576 / v["wall_s"] >= 1e5 { bad("more than 10^5 MiB/s") }
		# flock-writer measures no lock times; lockbench measures both, within its elapsed time
		(v["experiment"] == "plain") != (v["lock_wait_s"] == "" && v["lock_held_s"] == "") {
			bad("lock_wait_s and lock_held_s are empty for plain (flock-writer) only") }
		v["experiment"] != "plain" && !(v["lock_wait_s"] >= 0 && v["lock_held_s"] >= 0 &&
		  v["lock_wait_s"] + v["lock_held_s"] <= v["wall_s"] + 2e-6) {
			bad("lock_wait_s + lock_held_s is more than wall_s") }
		v["lines_found"] + v["lost_lines"] != v["lines_written"] { bad("lines_found + lost_lines is not lines_written") }
		!(v["median_run_lines"] <= v["max_run_lines"] && v["max_run_lines"] <= v["lines_found"] &&
		  (v["lines_found"] == 0 || v["runs"] >= 1)) { bad("run lengths that do not add up") }
		{
			conf = v["experiment"] " K=" v["lines_per_lock"] " flush=" v["flush"] " lock=" v["lock"] " sync=" v["sync"]
			if ((conf, v["trial"], v["writer"]) in seen) bad("a second row for " conf " trial " v["trial"] " writer " v["writer"])
			seen[conf, v["trial"], v["writer"]] = 1
			wall[conf, ++rows[conf]] = v["wall_s"]
			if (!((conf, v["trial"]) in trial)) { trial[conf, v["trial"]] = 1; trials[conf]++ }
			if (v["experiment"] == "sweep") { k[v["lines_per_lock"]] = 1; swept[v["lines_per_lock"], v["flush"]] = trials[conf] }
			if (v["experiment"] == "plain") plain = trials[conf]
			if (v["experiment"] == "locks" && v["lines_per_lock"] == 1) kinds[v["lock"]] = 1
			if (v["experiment"] == "sync") syncs[v["sync"]] = 1
		}
		END {
			if (failed) exit 1
			if (NR < 2) { print "data/lab2.csv has no rows"; exit 1 }
			for (c in rows) if (rows[c] != 2 * trials[c]) {
				print "data/lab2.csv: " c ": not one row for writer A and one for B in every trial"; exit 1 }
			if (plain < 2) { print "data/lab2.csv: " plain + 0 " trials of plain (at least 2)"; exit 1 }
			for (kk in k) nk++
			if (nk < 5 || !(1 in k) || !(1000 in k)) {
				print "data/lab2.csv: sweep at " nk + 0 " values of K; the lab sweeps 5, from 1 to 10000"; exit 1 }
			for (kk in k) for (f = 0; f <= 1; f++) if (swept[kk, f] < 2) {
				print "data/lab2.csv: " swept[kk, f] + 0 " trials of sweep K=" kk " flush=" f " (at least 2)"; exit 1 }
			if (!("none" in kinds && "flock" in kinds && "fcntl" in kinds && "ofd" in kinds)) {
				print "data/lab2.csv: locks at K=1 lacks one of none, flock, fcntl, ofd"; exit 1 }
			if (!("none" in syncs && "fdatasync" in syncs && "fsync" in syncs)) {
				print "data/lab2.csv: sync lacks one of none, fdatasync, fsync"; exit 1 }
			# A and B of one trial may tie to the microsecond; 4 rows or more may not.
			for (c in rows) if (rows[c] >= 4) {
				same = 1
				for (i = 2; i <= rows[c]; i++) if (wall[c, i] != wall[c, 1]) same = 0
				if (same) { print "data/lab2.csv: every writer of " c " took exactly " wall[c, 1] " s: not measured"; exit 1 }
			}
		}' "$csv" || { echo "reproduce: make lab2"; return 1; }
}

# What holds on any machine, disk or tmpfs, one core or many, idle or busy:
#  - no line is lost: every write(2) is O_APPEND (on a network file system,
#    whose appends are not atomic, only writes made inside a lock count);
#  - with a lock and the flush, every run is a multiple of K;
#  - a lock per line costs more than a lock per 1000 lines, flush or not:
#    at least twice the median time (10 to 100 times at SCALE=quick; 2 is
#    safe at SCALE=tiny, where starting the writers weighs most).
# Not checked, since a machine may not show it: runs that are not multiples
# of K without the flush (the writers may not overlap), a sync that costs
# more than none (a tmpfs), and with no lock either way.
lab2_data_trends() {
	local csv="$SUB/data/lab2.csv" fs
	[ -f "$csv" ] || { echo "data/lab2.csv is missing; reproduce: make lab2"; return 1; }
	fs=$(sed -n 's/^scratch_dir_fs: //p' "$SUB/data/machine.txt" 2>/dev/null)
	awk -v fs="$fs" "$LAB2_AWK"'
		NR == 1 { next }
		{ locked = v["flush"] == 1 && v["lock"] != "none" }
		v["lost_lines"] != 0 && (locked || fs !~ /^(nfs|cifs|smb|9p|v9fs|afs|ceph|lustre|glusterfs|fuse)/) {
			print "line " NR ": " v["lost_lines"] " lines lost; O_APPEND loses none: " $0; failed = 1; exit }
		locked && v["runs_multiple_of_k"] != 1 {
			print "line " NR ": a lock and the flush, yet a run that is not a multiple of K: " $0; failed = 1; exit }
		v["experiment"] == "sweep" && (v["lines_per_lock"] == 1 || v["lines_per_lock"] == 1000) {
			c = v["lines_per_lock"] "," v["flush"]; t[c, ++n[c]] = v["wall_s"] }
		function med(c,   i, a) { for (i = 1; i <= n[c]; i++) a[i] = t[c, i]; return median(a, n[c]) }
		END {
			if (failed) exit 1
			for (f = 0; f <= 1; f++) {
				if (!n["1," f] || !n["1000," f]) { print "no sweep at K=1 and K=1000 with flush=" f; exit 1 }
				if (med("1," f) < 2 * med("1000," f)) {
					printf "sweep, flush=%d: median wall_s %s s at K=1, not twice the %s s at K=1000: a lock per line costs more\n",
						f, med("1," f), med("1000," f); exit 1 }
			}
		}' "$csv" || { echo "reproduce: make lab2"; return 1; }
}

grade_lab2() {
	check lab2 2 "flock-writer and lockbench: N lines of the character, lockbench --csv" lab2_counts
	check lab2 3 "two writers with a lock and the flush: nothing lost, runs multiples of K, writes inside the lock" lab2_together
	check lab2 2 "two writers with --no-flush: nothing lost, runs no longer multiples of K" lab2_no_flush
	check lab2 3 "locks exclude writers until released; --lock none and fcntl ignore flock" lab2_exclusion
	check lab2 1 "failed writes and syncs exit 1, bad arguments exit 2" lab2_errors
	check lab2 2 "data/lab2.csv: every experiment, plausible values, 2+ real trials" lab2_data_plausible
	check lab2 2 "data/lab2.csv: nothing lost, locked runs multiples of K, K=1 slower than K=1000" lab2_data_trends
}
