#!/usr/bin/env bats
# bin/runs: the run-length analyzer.

load ../../../tests/helpers

# alternate N LEN: N runs of LEN lines, A first, then B, A, ...
alternate() {
	local i
	for ((i = 0; i < $1; i++)); do
		if ((i % 2)); then lines B "$2"; else lines A "$2"; fi
	done
}

@test "runs: reports changes in the source's format" {
	alternate 33 2048 >f
	run "$BIN/runs" f
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "Change on line    2049 - A's: 2048" ]
	[ "${lines[31]}" = "Change on line   65537 - B's: 2048" ]
	[ "$(grep -c '^Change on line' <<<"$output")" -eq 32 ]
	[[ $output == *"67584 lines in 33 runs; 0 malformed"* ]]
}

@test "runs: the summary gives lines, runs and run lengths per character" {
	{ lines A 3; lines B 1; lines A 5; lines B 2; lines A 4; } >f
	run "$BIN/runs" -q f
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "15 lines in 5 runs; 0 malformed" ]
	[[ ${lines[2]} =~ ^A\ +12\ +3\ +3\ +4\.0\ +5$ ]]
	[[ ${lines[3]} =~ ^B\ +3\ +2\ +1\ +1\.5\ +2$ ]]
	[ "${lines[4]}" = "most common run lengths: 1 (1 runs), 2 (1 runs), 3 (1 runs), 4 (1 runs), 5 (1 runs)" ]
	[[ $output != *"Change on line"* ]]
}

@test "runs: --csv prints one row per run, the last one included" {
	printf 'A\nA\nB\nA\n' >f
	run "$BIN/runs" --csv f
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'start_line,char,length\n1,A,2\n3,B,1\n4,A,1')" ]
}

@test "runs: --summary-csv prints one row per character" {
	{ lines A 3; lines B 1; lines A 5; lines B 2; } >f
	run "$BIN/runs" --summary-csv f
	[ "$output" = "$(printf 'char,lines,runs,min_run,median_run,max_run\nA,8,2,3,4,5\nB,3,2,1,1.5,2')" ]
}

@test "runs: malformed lines count as '?', consecutive ones are one run" {
	# line 3 empty, 4 too long, 5 CRLF, 6 a lone CR, 8 without a final newline
	printf 'A\nA\n\nAB\nA\r\n\r\nB\nB' >f
	run "$BIN/runs" --csv f
	[ "$output" = "$(printf 'start_line,char,length\n1,A,2\n3,?,4\n7,B,1\n8,?,1')" ]
	run "$BIN/runs" -q f
	[[ $output == *"8 lines in 4 runs; 5 malformed"* ]]
	[[ $output == *"malformed lines: 5, first at line 3, 4, 5, 6, 8"* ]]
}

@test "runs: commas and quotes are quoted in CSV" {
	printf ',\n"\n' >f
	run "$BIN/runs" --csv f
	[ "$output" = "$(printf 'start_line,char,length\n1,",",1\n2,"""",1')" ]
}

@test "runs: an empty file has no runs" {
	: >f
	run "$BIN/runs" --csv f
	[ "$output" = "start_line,char,length" ]
	run "$BIN/runs" -q f
	[ "${lines[0]}" = "0 lines in 0 runs; 0 malformed" ]
}

@test "runs: a random 3 MB file agrees with a reference implementation in awk" {
	# Runs of 1..1000 lines of A, B or '?', with malformed lines among them,
	# so that runs and lines cross the 1 MiB read blocks at every offset.
	awk 'BEGIN {
		srand(7)
		while (bytes < 3000000) {
			r = rand(); n = 1 + int(rand() * 1000)
			if (r < 0.02) { n = 1 + int(rand() * 3); line = (rand() < 0.5) ? "" : "AB" }
			else if (r < 0.04) line = "?"
			else line = (rand() < 0.5) ? "A" : "B"
			for (i = 0; i < n; i++) print line
			bytes += n * (length(line) + 1)
		}
	}' >f
	awk '{
		c = (length($0) == 1) ? $0 : "?"
		if (NR > 1 && c != prev) { print start "," prev "," n; n = 0 }
		if (n == 0) { start = NR; prev = c }
		n++
	} END { print start "," prev "," n }' f >expected
	"$BIN/runs" --csv f | tail -n +2 >got
	[ "$(wc -l <got)" -gt 1000 ]  # about 2000 runs
	cmp expected got
}

@test "runs: --expect passes when every character's count matches" {
	{ lines A 5; lines B 7; } >f
	run "$BIN/runs" -q --expect A=5,B=7 f
	[ "$status" -eq 0 ]
	run "$BIN/runs" -q --expect B=7,A=5 f
	[ "$status" -eq 0 ]
}

@test "runs: --expect fails with exit 1 naming expected and found counts" {
	{ lines A 5; lines B 7; printf 'xx\n'; } >f
	run "$BIN/runs" -q --expect A=5,B=8 f
	[ "$status" -eq 1 ]
	[[ $output == *"runs: f: B: expected 8 lines, found 7"* ]]
	# characters not listed are expected 0 times: the malformed line counts
	[[ $output == *"runs: f: ?: expected 0 lines, found 1"* ]]
	[[ $output != *"A: expected"* ]]
}

@test "runs: --expect reads any character, even , and =" {
	printf ',\n=\n' >f
	run "$BIN/runs" -q --expect ,=1,==1 f
	[ "$status" -eq 0 ]
}

@test "runs: bad arguments exit 2, a missing file exits 1" {
	printf 'A\n' >f
	for bad in "" A A= A=x A=1, =1 AB=1 A=1,,B=2 A=-1; do
		run "$BIN/runs" --expect "$bad" f
		usage_fails
		[[ ${lines[0]} == "runs: --expect: '$bad' is not C=N[,C=N...]" ]]
	done
	run "$BIN/runs"
	usage_fails
	run "$BIN/runs" f f
	usage_fails
	run "$BIN/runs" --nope f
	usage_fails
	run "$BIN/runs" missing
	[ "$status" -eq 1 ]
	[ "$output" = "runs: missing: No such file or directory" ]
	run "$BIN/runs" .
	[ "$status" -eq 1 ]
	[ "$output" = "runs: .: Is a directory" ]
}

@test "runs: --multiple K passes when every run is a whole number of K-line batches" {
	{ lines A 2000; lines B 1000; lines A 3000; lines B 1000; } >f
	run "$BIN/runs" -q --multiple 1000 f
	[ "$status" -eq 0 ]
	[[ $output != *"not a multiple"* ]]
	# every length is a multiple of 1; 500 divides all four runs too
	run "$BIN/runs" -q --multiple 1 f
	[ "$status" -eq 0 ]
	run "$BIN/runs" -q --multiple 500 f
	[ "$status" -eq 0 ]
}

@test "runs: --multiple K fails with exit 1, naming the first run that is not a multiple" {
	# a lock without fflush: runs of a whole stdio buffer (2048 lines)
	{ lines A 2000; lines B 1000; lines A 2048; lines B 1500; } >f
	run "$BIN/runs" --summary-csv --multiple 1000 f
	[ "$status" -eq 1 ]
	# the summary as usual, then one line about the first bad run only
	[ "${lines[0]}" = "char,lines,runs,min_run,median_run,max_run" ]
	[ "${lines[1]}" = "A,4048,2,2000,2024,2048" ]
	[ "${lines[3]}" = "runs: f: the run of 2048 A's at line 3001 is not a multiple of 1000" ]
	[ "${#lines[@]}" -eq 4 ]
}

@test "runs: --multiple checks the last run and malformed runs, and adds to --expect" {
	{ lines A 1000; lines B 999; } >f
	run "$BIN/runs" -q --multiple 1000 f
	[ "$status" -eq 1 ]
	[[ $output == *"runs: f: the run of 999 B's at line 1001 is not a multiple of 1000" ]]
	printf 'A\nA\nxx\n' >g
	run "$BIN/runs" -q --multiple 2 g
	[ "$status" -eq 1 ]
	[[ $output == *"runs: g: the run of 1 ?'s at line 3 is not a multiple of 2" ]]
	# both checks report; either one failing is exit 1
	run "$BIN/runs" -q --expect A=1000,B=1000 --multiple 1000 f
	[ "$status" -eq 1 ]
	[[ $output == *"runs: f: B: expected 1000 lines, found 999"* ]]
	[[ $output == *"the run of 999 B's at line 1001 is not a multiple of 1000"* ]]
	run "$BIN/runs" -q --expect A=1000,B=999 --multiple 1 f
	[ "$status" -eq 0 ]
}

@test "runs: --multiple takes a whole number of at least 1" {
	printf 'A\n' >f
	for bad in 0 -1 x 1.5 "" 1K; do
		run "$BIN/runs" --multiple "$bad" f
		usage_fails
		[[ ${lines[0]} == "runs: --multiple: "* ]]
	done
	run "$BIN/runs" --help
	[[ $output == *"--multiple K"* ]]
}
