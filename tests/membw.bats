#!/usr/bin/env bats
# bin/membw: the plain-memcpy ceiling for Lab 3's copy phase.

load helpers

@test "membw: -h prints the usage, exit 0" {
	run "$BIN/membw" --help
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "usage: membw "* ]]
}

@test "membw: a table row per copy, 5 by default" {
	run "$BIN/membw" -s 1M
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 6 ]
	[[ ${lines[0]} == "rep"*"ms"*"MiB/s" ]]
	[[ ${lines[5]} == "  5 "* ]]
}

@test "membw: --csv: a header, then one row per copy with positive time and MiB/s" {
	run "$BIN/membw" -s 3M -r 3 --csv
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "bytes,rep,wall_s,mib_s" ]
	[ "${#lines[@]}" -eq 4 ]
	[ "$(printf '%s\n' "${lines[@]:1}" | cut -d, -f1,2 | tr '\n' ' ')" = \
		"3145728,1 3145728,2 3145728,3 " ]
	[ -z "$(printf '%s\n' "${lines[@]:1}" | awk -F, 'NF != 4 || !($3 > 0 && $4 > 0)')" ]
}

@test "membw: odd sizes and 1 byte work" {
	run "$BIN/membw" -s 1 -r 1 --csv
	[ "$status" -eq 0 ]
	[[ ${lines[1]} == "1,1,"* ]]
	run "$BIN/membw" -s 1000003 -r 2 --csv
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 3 ]
}

@test "membw: bad arguments exit 2 with a message naming them" {
	for bad in "-s 0" "-s 5G" "-s 1X" "-r 0" "-r 1001" "-r x" "--bogus" "extra"; do
		run "$BIN/membw" $bad
		usage_fails
	done
	run "$BIN/membw" -r 0
	[ "${lines[0]}" = "membw: -r: 0 is out of range (1 to 1000)" ]
	run "$BIN/membw" -s 5G
	[[ ${lines[0]} == "membw: -s: 5G is out of range"* ]]
}
