#!/usr/bin/env bats
# bin/membw: the store and copy ceilings for Lab 3's fill and copy phases.

load ../../../tests/helpers

@test "membw: -h prints the usage, exit 0" {
	run "$BIN/membw" --help
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "usage: membw "* ]]
}

@test "membw: a table row per store and per copy, 5 of each by default" {
	run "$BIN/membw" -s 1M
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 11 ]
	[[ ${lines[0]} == "op"*"rep"*"ms"*"MiB/s" ]]
	[[ ${lines[1]} == "store    1 "* ]]
	[[ ${lines[2]} == "copy     1 "* ]]
	[[ ${lines[10]} == "copy     5 "* ]]
}

@test "membw: --csv: a header, then a store and a copy per rep, with positive time and MiB/s = bytes / 2^20 / wall_s" {
	run "$BIN/membw" -s 3M -r 3 -t 2 --csv
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "threads,op,bytes,passes,rep,wall_s,mib_s" ]
	[ "${#lines[@]}" -eq 7 ]
	[ "$(printf '%s\n' "${lines[@]:1}" | cut -d, -f1-5 | tr '\n' ' ')" = \
		"2,store,3145728,1,1 2,copy,3145728,1,1 2,store,3145728,1,2 2,copy,3145728,1,2 2,store,3145728,1,3 2,copy,3145728,1,3 " ]
	# mib_s agrees with wall_s to the digits printed (1 us, 0.1 MiB/s)
	[ -z "$(printf '%s\n' "${lines[@]:1}" |
		awk -F, 'NF != 7 || !($6 > 0 && $7 > 0) || ($7 * $6 - 3 > 0.01 * 3 + 1e-6 * $7 || 3 - $7 * $6 > 0.01 * 3 + 1e-6 * $7)')" ]
}

@test "membw: -p PASSES: every pass inside the timing, MiB/s counts them all" {
	run "$BIN/membw" -s 1M -r 2 -p 40 --csv
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "${lines[@]:1}" | cut -d, -f4 | sort -u)" = 40 ]
	# 40 MiB per row: mib_s x wall_s = 40 to the digits printed
	[ -z "$(printf '%s\n' "${lines[@]:1}" | awk -F, '$7 * $6 < 39.5 || $7 * $6 > 40.5')" ]
}

@test "membw: every thread count from 1 to more threads than bytes, odd sizes" {
	for t in 1 2 3 7; do
		run "$BIN/membw" -s 1000003 -r 2 -t "$t" --csv
		[ "$status" -eq 0 ]
		[ "${#lines[@]}" -eq 5 ]
		[ -z "$(printf '%s\n' "${lines[@]:1}" | awk -F, -v t="$t" '$1 != t || $3 != 1000003')" ]
	done
	run "$BIN/membw" -s 1 -r 1 -t 4 --csv
	[ "$status" -eq 0 ]
	[[ ${lines[1]} == "4,store,1,1,1,"* ]]
}

@test "membw: bad arguments exit 2 with a message naming them" {
	for bad in "-s 0" "-s 5G" "-s 1X" "-r 0" "-r 1001" "-r x" "-p 0" "-t 0" "-t 257" "--bogus" "extra"; do
		run "$BIN/membw" $bad
		usage_fails
	done
	run "$BIN/membw" -r 0
	[ "${lines[0]}" = "membw: -r: 0 is out of range (1 to 1000)" ]
	run "$BIN/membw" -t 257
	[ "${lines[0]}" = "membw: -t: 257 is out of range (1 to 256)" ]
	run "$BIN/membw" -s 5G
	[[ ${lines[0]} == "membw: -s: 5G is out of range"* ]]
}

@test "membw: -g adds a gen row per rep: the generator alone, MiB/s = passes x bytes / 2^20 / wall_s" {
	run "$BIN/membw" -s 1M -r 2 -p 4 -t 2 -g --csv
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 7 ]
	[ "$(printf '%s\n' "${lines[@]:1}" | cut -d, -f2,5 | tr '\n' ' ')" = "store,1 copy,1 gen,1 store,2 copy,2 gen,2 " ]
	# 4 MiB a row, to the digits printed (1 us of wall_s, 0.1 MiB/s)
	[ -z "$(printf '%s\n' "${lines[@]:1}" |
		awk -F, '$7 * $6 - 4 > 0.01 * 4 + 1e-6 * $7 || 4 - $7 * $6 > 0.01 * 4 + 1e-6 * $7')" ]
}
