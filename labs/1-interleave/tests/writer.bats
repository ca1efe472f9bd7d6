#!/usr/bin/env bats
# bin/writer: N lines of one character, append or overwrite, stdio buffer size.

load ../../../tests/helpers

@test "writer: default is 1,000,000 lines of A, 2,000,000 bytes" {
	"$BIN/writer" f
	[ "$(stat -c %s f)" -eq 2000000 ]
	[ "$(grep -c -x A f)" -eq 1000000 ]
}

@test "writer: -c and -n set the character and the count" {
	"$BIN/writer" -c B -n 10 f
	[ "$(cat f)" = "$(lines B 10)" ]
	"$BIN/writer" -c '#' -n 3 g
	[ "$(cat g)" = "$(printf '#\n#\n#')" ]
}

@test "writer: append mode adds at the end of what is there" {
	printf 'X\n' >f
	"$BIN/writer" -n 3 -m append f
	[ "$(cat f)" = "$(printf 'X\nA\nA\nA')" ]
}

@test "writer: overwrite mode starts at offset 0 and does not truncate" {
	lines X 10 >f
	"$BIN/writer" -n 3 -m overwrite f
	[ "$(cat f)" = "$(lines A 3; lines X 7)" ]
}

@test "writer: two writers in append mode lose no line" {
	"$BIN/writer" -c A -n 50000 f &
	"$BIN/writer" -c B -n 50000 f
	wait
	[ "$(grep -c -x A f)" -eq 50000 ]
	[ "$(grep -c -x B f)" -eq 50000 ]
	[ "$(stat -c %s f)" -eq 200000 ]
}

@test "writer: -b sets the stdio buffer: one write(2) per buffer, -b 0 one per line" {
	command -v strace >/dev/null || skip "strace is not installed"
	export ASAN_OPTIONS=detect_leaks=0	# LeakSanitizer cannot run under ptrace
	strace -e trace=write -o log0 "$BIN/writer" -n 100 -b 0 f0
	[ "$(grep -c '^write([0-9]*, "A\\n", 2)' log0)" -eq 100 ]
	strace -e trace=write -o log128 "$BIN/writer" -n 300 -b 128 f128
	# 600 bytes in 128-byte buffers: 4 full ones and the rest at fclose()
	[ "$(grep -o '= [0-9]*$' log128 | tr '\n' ' ')" = "= 128 = 128 = 128 = 128 = 88 " ]
	[ "$(cat f0)" = "$(lines A 100)" ]
	[ "$(cat f128)" = "$(lines A 300)" ]
}

@test "writer: bad arguments exit 2 with a message naming them" {
	run "$BIN/writer" -n 0 f
	usage_fails
	[[ ${lines[0]} == "writer: -n: 0 is out of range"* ]]
	run "$BIN/writer" -n abc f
	usage_fails
	run "$BIN/writer" -n -5 f
	usage_fails
	run "$BIN/writer" -n 99999999999 f
	usage_fails
	run "$BIN/writer" -c AB f
	usage_fails
	[[ ${lines[0]} == "writer: -c: 'AB' is not a single visible character" ]]
	run "$BIN/writer" -c '' f
	usage_fails
	run "$BIN/writer" -m sideways f
	usage_fails
	[[ ${lines[0]} == "writer: -m: 'sideways' is not append or overwrite" ]]
	run "$BIN/writer" -b 1X f
	usage_fails
	run "$BIN/writer"
	usage_fails
	run "$BIN/writer" f g
	usage_fails
	run "$BIN/writer" --frobnicate f
	usage_fails
	[ ! -e f ] && [ ! -e g ]
}

@test "writer: --help prints the usage and exits 0" {
	run "$BIN/writer" --help
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "usage: writer "* ]]
}

@test "writer: I/O failures exit 1 naming the path" {
	run "$BIN/writer" -n 10 no/such/dir/f
	[ "$status" -eq 1 ]
	[ "$output" = "writer: no/such/dir/f: No such file or directory" ]
	run "$BIN/writer" -n 10000 /dev/full
	[ "$status" -eq 1 ]
	[ "$output" = "writer: /dev/full: No space left on device" ]
}
