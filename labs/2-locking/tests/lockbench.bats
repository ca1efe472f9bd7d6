#!/usr/bin/env bats
# bin/lockbench: lines per lock, flush or not, the kind of lock, a sync
# inside the lock; and what it measures.

load ../../../tests/helpers
load locking

# excludes HOLDER_KIND WRITER_KIND: a writer with a WRITER_KIND lock, started
# while the holder holds its HOLDER_KIND lock, waits, and writes nothing
# until the holder is gone; its --csv row goes to b.csv.
excludes() {
	hold "$1"
	"$BIN/lockbench" -c B -n 1 -k 1 --lock "$2" --csv f >b.csv &
	local writer=$!
	blocked || true
	sleep 0.3		# so that the wait shows in lock_wait_s
	[ "$(cat f)" = H ] || { echo "the $2 writer did not wait for the $1 lock"; return 1; }
	kill "$holder"		# its lock goes with it
	wait "$writer"
	[ "$(cat f)" = "$(printf 'H\nB')" ]
}

# ignores HOLDER_KIND WRITER_KIND: the writer finishes while the holder
# still holds its lock.
ignores() {
	hold "$1"
	"$BIN/lockbench" -c B -n 1 -k 1 --lock "$2" f >/dev/null
	[ "$(cat f)" = "$(printf 'H\nB')" ]
	kill -0 "$holder"	# still there, still holding
}

@test "lockbench: --csv prints a header and one row; the file gets the lines" {
	run "$BIN/lockbench" --csv -c X -n 2500 -k 1000 --lock fcntl --sync fdatasync f
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "char,lines,lines_per_lock,flush,lock,sync,batches,wall_s,lock_wait_s,lock_held_s" ]
	[[ ${lines[1]} =~ ^X,2500,1000,1,fcntl,fdatasync,3,[0-9]+\.[0-9]{6},[0-9]+\.[0-9]{6},[0-9]+\.[0-9]{6}$ ]]
	[ "${#lines[@]}" -eq 2 ]
	[ "$(cat f)" = "$(lines X 2500)" ]
	run "$BIN/lockbench" --csv -c , -n 1 --no-flush --lock none g
	[[ ${lines[1]} == '",",1,1000,0,none,none,1,'* ]]
}

@test "lockbench: without --csv, a report of the run and where the time went" {
	run "$BIN/lockbench" -n 3000 -k 1000 f
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "f: 3000 lines of A, 1000 per lock (3 batches), lock flock, flush, sync none" ]
	[[ ${lines[1]} =~ ^elapsed:\ [0-9.]+\ s$ ]]
	[[ ${lines[2]} =~ ^waiting\ for\ the\ lock:\ [0-9.]+\ s$ ]]
	[[ ${lines[3]} =~ ^holding\ the\ lock:\ [0-9.]+\ s$ ]]
}

@test "lockbench: --hold-ms keeps the lock longer, and the time shows as holding" {
	run "$BIN/lockbench" --csv -n 2 -k 1 --hold-ms 200 f
	[ "$status" -eq 0 ]
	# two batches of 200 ms: wall_s and lock_held_s at least 0.4 s
	awk -F, 'NR == 2 { exit !($8 >= 0.4 && $10 >= 0.4 && $10 <= $8) }' <<<"$output"
}

# batches_whole KIND: two lockbench writers with a KIND lock and the flush
# lose no line, and every run is a multiple of K, at K = 1000 (a batch is
# one write(2), which O_APPEND alone keeps whole) and at K = 5000 (a batch
# is 10000 bytes, more than one stdio buffer: several write(2)s that only
# the lock keeps together).
batches_whole() {
	local k
	needs runs
	for k in 1000 5000; do
		together "$1" lockbench -n 400000 -k $k --lock "$1" || return 1
		run "$BIN/runs" -q --expect A=400000,B=400000 --multiple $k f
		[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	done
}

@test "lockbench: flock, two writers lose nothing and every run is a multiple of K" {
	batches_whole flock
}

@test "lockbench: fcntl, two writers lose nothing and every run is a multiple of K" {
	batches_whole fcntl
}

@test "lockbench: ofd, two writers lose nothing and every run is a multiple of K" {
	batches_whole ofd
}

@test "lockbench: --no-flush, runs are no longer multiples of K, though no line is lost" {
	needs runs
	together flock lockbench -n 400000 -k 1000 --no-flush
	run "$BIN/runs" -q --expect A=400000,B=400000 --multiple 1000 f
	[ "$status" -eq 1 ]
	[[ $output == *"is not a multiple of 1000"* ]]
	[[ $output != *"expected"* ]]
}

@test "lockbench: --no-flush leaves the last write(2) for after the last unlock" {
	command -v strace >/dev/null || skip "strace is not installed"
	export ASAN_OPTIONS=detect_leaks=0	# LeakSanitizer cannot run under ptrace
	# 3>&-: bats keeps descriptor 3 open; without it, the file would be 4
	strace -e trace=flock,write -o log "$BIN/lockbench" -n 3000 -k 1000 --no-flush f 3>&- >/dev/null
	calls=$(awk '/^flock\(3, LOCK_UN\)/ { printf "UN " } /^write\(3,/ { printf "write " }' log)
	[[ $calls == *"UN write " ]]
	strace -e trace=flock,write -o log "$BIN/lockbench" -n 3000 -k 1000 g 3>&- >/dev/null
	calls=$(awk '/^flock\(3, LOCK_UN\)/ { printf "UN " } /^write\(3,/ { printf "write " }' log)
	[ "$calls" = "write UN write UN write UN " ]
	[ "$(cat f)" = "$(cat g)" ]
}

@test "lockbench: --sync calls fdatasync or fsync after the flush, inside the lock" {
	command -v strace >/dev/null || skip "strace is not installed"
	export ASAN_OPTIONS=detect_leaks=0
	for sync in fdatasync fsync; do
		strace -e trace=flock,write,fdatasync,fsync -o log "$BIN/lockbench" -n 2000 -k 1000 \
			--sync $sync f 3>&- >/dev/null
		calls=$(awk -v s=$sync '/^flock\(3, LOCK_EX\)/ { printf "EX " } /^flock\(3, LOCK_UN\)/ { printf "UN " }
			/^write\(3,/ { printf "write " } $0 ~ "^" s "\\(3\\)" { printf "%s ", s }' log)
		[ "$calls" = "EX write $sync UN EX write $sync UN " ]
	done
}

@test "lockbench: an flock excludes another flock writer until it is released; the wait is measured" {
	excludes flock flock
	# the writer waited at least 0.3 s for the lock, and held it a moment
	awk -F, 'NR == 2 { exit !($9 >= 0.3 && $10 < $9) }' b.csv
}

@test "lockbench: an fcntl record lock excludes another fcntl writer" {
	excludes fcntl fcntl
}

@test "lockbench: an OFD lock excludes another OFD writer" {
	excludes ofd ofd
}

@test "lockbench: OFD and fcntl record locks exclude each other" {
	excludes ofd fcntl
	rm f
	excludes fcntl ofd
}

@test "lockbench: locks are advisory: --lock none writes at once, and flock ignores fcntl locks" {
	ignores flock none
	kill "$holder"
	rm f
	ignores flock fcntl
}

@test "lockbench: bad arguments exit 2 with a message naming them" {
	run "$BIN/lockbench" --lock flok f
	usage_fails
	[[ ${lines[0]} == "lockbench: --lock: 'flok' is not none, flock, fcntl or ofd" ]]
	run "$BIN/lockbench" --sync sometimes f
	usage_fails
	[[ ${lines[0]} == "lockbench: --sync: 'sometimes' is not none, fdatasync or fsync" ]]
	run "$BIN/lockbench" -k 0 f
	usage_fails
	[[ ${lines[0]} == "lockbench: -k: 0 is out of range"* ]]
	run "$BIN/lockbench" -n -1 f
	usage_fails
	run "$BIN/lockbench" --hold-ms 1.5 f
	usage_fails
	run "$BIN/lockbench" -c '' f
	usage_fails
	run "$BIN/lockbench" --no-flush=yes f
	usage_fails
	run "$BIN/lockbench"
	usage_fails
	run "$BIN/lockbench" f g
	usage_fails
	[ ! -e f ] && [ ! -e g ]
}

@test "lockbench: --help prints the usage and exits 0" {
	run "$BIN/lockbench" --help
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "usage: lockbench "* ]]
	for opt in --no-flush --lock --sync --hold-ms --csv; do
		[[ $output == *"$opt"* ]]
	done
}

@test "lockbench: a failed write or sync ends the run with exit 1 naming the call" {
	run "$BIN/lockbench" -n 10 no/such/dir/f
	[ "$status" -eq 1 ]
	[ "$output" = "lockbench: no/such/dir/f: No such file or directory" ]
	run "$BIN/lockbench" -n 10 /dev/full
	[ "$status" -eq 1 ]
	[ "$output" = "lockbench: /dev/full: No space left on device" ]
	# --no-flush: the error comes when the buffer fills, or at the end
	run "$BIN/lockbench" -n 10 --no-flush /dev/full
	[ "$status" -eq 1 ]
	[ "$output" = "lockbench: /dev/full: No space left on device" ]
	# a character device cannot be synced
	run "$BIN/lockbench" -n 10 --sync fsync /dev/null
	[ "$status" -eq 1 ]
	[ "$output" = "lockbench: /dev/null: fsync: Invalid argument" ]
	run "$BIN/lockbench" -n 10 --sync fdatasync --lock ofd /dev/null
	[ "$status" -eq 1 ]
	[ "$output" = "lockbench: /dev/null: fdatasync: Invalid argument" ]
}

# --lockstep: the writers meet before every batch, so every round both
# write one batch, in either order: 40 batches each give at least 41 runs.
@test "lockbench --lockstep: under launch every batch is contended; kept whole with fflush, broken without" {
	run "$BIN/launch" -f f "$BIN/lockbench -c A -n 4000 -k 100 --lockstep f" \
		"$BIN/lockbench -c B -n 4000 -k 100 --lockstep f"
	[ "$status" -eq 0 ]
	run "$BIN/runs" --summary-csv --multiple 100 --expect A=4000,B=4000 f
	[ "$status" -eq 0 ]
	[ "$(awk -F, 'NR > 1 { n += $3 } END { print n }' <<<"$output")" -ge 41 ]
	# without fflush stdio writes 2048-line buffers, whatever the lock
	run "$BIN/launch" -f f "$BIN/lockbench -c A -n 4000 -k 100 --lockstep --no-flush f" \
		"$BIN/lockbench -c B -n 4000 -k 100 --lockstep --no-flush f"
	[ "$status" -eq 0 ]
	run "$BIN/runs" -q --multiple 100 --expect A=4000,B=4000 f
	[ "$status" -eq 1 ]
	[[ $output == *"is not a multiple of 100"* ]]
}

@test "lockbench --lockstep: outside launch it is a usage error" {
	run env -u IOLAB_BARRIER_FD "$BIN/lockbench" --lockstep -n 1 f
	usage_fails
	[[ ${lines[0]} == "lockbench: --lockstep: not started by launch (no IOLAB_BARRIER_FD)" ]]
	[ ! -e f ]
}
