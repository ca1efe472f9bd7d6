#!/usr/bin/env bats
# bin/flock-writer: N lines of one character, an flock() and an fflush()
# around every batch of K lines.

load ../../../tests/helpers
load locking

@test "flock-writer: default is 1,000,000 lines of A, 2,000,000 bytes" {
	"$BIN/flock-writer" f
	[ "$(stat -c %s f)" -eq 2000000 ]
	[ "$(grep -c -x A f)" -eq 1000000 ]
}

@test "flock-writer: -c, -n and -k; it appends to what is there" {
	printf 'X\n' >f
	"$BIN/flock-writer" -c '#' -n 5 -k 2 f
	[ "$(cat f)" = "$(printf 'X\n#\n#\n#\n#\n#')" ]
}

@test "flock-writer: each batch is lock, one write(2) of K lines, unlock; the last is shorter" {
	command -v strace >/dev/null || skip "strace is not installed"
	export ASAN_OPTIONS=detect_leaks=0	# LeakSanitizer cannot run under ptrace
	# 3>&-: bats keeps descriptor 3 open; without it, the file would be 4
	strace -e trace=flock,write -o log "$BIN/flock-writer" -n 2500 -k 1000 f 3>&-
	# the calls on the file (descriptor 3), in order
	calls=$(awk '/^flock\(3, LOCK_EX\)/ { printf "EX " } /^flock\(3, LOCK_UN\)/ { printf "UN " }
		/^write\(3,/ { printf "w%s ", $NF }' log)
	[ "$calls" = "EX w2000 UN EX w2000 UN EX w1000 UN " ]
	[ "$(grep -c -x A f)" -eq 2500 ]
}

@test "flock-writer: two writers lose nothing, and every run is a multiple of K" {
	needs lockbench runs	# the lock holder and the check
	together flock flock-writer -n 400000 -k 1000
	run "$BIN/runs" -q --expect A=400000,B=400000 --multiple 1000 f
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# K = 5000: more than one stdio buffer per batch, so several write(2)s
	# that only the lock keeps together
	together flock flock-writer -n 400000 -k 5000
	run "$BIN/runs" -q --expect A=400000,B=400000 --multiple 5000 f
	[ "$status" -eq 0 ] || { echo "$output"; false; }
}

@test "flock-writer: it waits while another process holds an flock on the file" {
	needs lockbench		# the lock holder
	hold flock
	"$BIN/flock-writer" -c B -n 3 f &
	writer=$!
	blocked || true
	[ "$(cat f)" = H ]	# still waiting: nothing written
	kill "$holder"		# its lock goes with it
	wait "$writer"
	[ "$(cat f)" = "$(printf 'H\nB\nB\nB')" ]
}

@test "flock-writer: bad arguments exit 2 with a message naming them" {
	run "$BIN/flock-writer" -k 0 f
	usage_fails
	[[ ${lines[0]} == "flock-writer: -k: 0 is out of range"* ]]
	run "$BIN/flock-writer" -k x f
	usage_fails
	[[ ${lines[0]} == "flock-writer: -k: 'x' is not a whole number" ]]
	run "$BIN/flock-writer" -n 0 f
	usage_fails
	run "$BIN/flock-writer" -n 2000000000 f
	usage_fails
	run "$BIN/flock-writer" -c AB f
	usage_fails
	[[ ${lines[0]} == "flock-writer: -c: 'AB' is not a single visible character" ]]
	run "$BIN/flock-writer"
	usage_fails
	[[ ${lines[0]} == "flock-writer: expected one FILE, got 0 arguments" ]]
	run "$BIN/flock-writer" f g
	usage_fails
	run "$BIN/flock-writer" --no-flush f
	usage_fails
	[ ! -e f ] && [ ! -e g ]
}

@test "flock-writer: --help prints the usage and exits 0" {
	run "$BIN/flock-writer" --help
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "usage: flock-writer "* ]]
	[[ $output == *"-k, --per-lock"* ]]
}

@test "flock-writer: I/O failures exit 1 naming the path" {
	run "$BIN/flock-writer" -n 10 no/such/dir/f
	[ "$status" -eq 1 ]
	[ "$output" = "flock-writer: no/such/dir/f: No such file or directory" ]
	# the first fflush() fails: nothing is left for later
	run "$BIN/flock-writer" -n 10 /dev/full
	[ "$status" -eq 1 ]
	[ "$output" = "flock-writer: /dev/full: No space left on device" ]
}
