#!/usr/bin/env bats
# bin/launch: children released together, timed, reaped with their rusage.

load ../../../tests/helpers

# A script that proves two commands run at the same time: each makes its own
# mark, then waits (up to 10 s) for the other's. Run one after the other,
# the first would give up.
rendezvous() {
	cat >meet.sh <<-'SH'
	touch "$1"
	for i in $(seq 100); do [ -e "$2" ] && exit 0; sleep 0.1; done
	exit 3
	SH
}

@test "launch: children run at the same time" {
	rendezvous
	run "$BIN/launch" --csv "sh meet.sh a b" "sh meet.sh b a"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "trial,child,start_delay_s,wall_s,user_s,sys_s,vol_cs,invol_cs,exit_status,command" ]
	[[ ${lines[1]} == "1,1,"*",0,sh meet.sh a b" ]]
	[[ ${lines[2]} == "1,2,"*",0,sh meet.sh b a" ]]
}

@test "launch: -r gives one CSV row per trial and child, -f removes the file each trial" {
	run "$BIN/launch" --csv -r 3 -f f "$BIN/writer -n 10 f"
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 4 ]
	[ "$(cut -d, -f1,2 <<<"$output" | tail -n 3 | tr '\n' ' ')" = "1,1 2,1 3,1 " ]
	# Without -f the three trials would have appended 30 lines.
	[ "$(wc -l <f)" -eq 10 ]
}

@test "launch: times and rusage are real: a 0.3 s sleep, a CPU-bound loop" {
	run "$BIN/launch" --csv "sleep 0.3" "awk BEGIN{for(i=0;i<3000000;i++)s+=i}"
	[ "$status" -eq 0 ]
	# sleep: elapsed >= 0.3 s, almost no CPU; awk: user CPU > 0.
	awk -F, 'NR == 2 { exit !($4 >= 0.3 && $5 + $6 < 0.1) }' <<<"$output"
	awk -F, 'NR == 3 { exit !($5 > 0) }' <<<"$output"
	# start delays are non-negative and small
	awk -F, 'NR > 1 { if ($3 < 0 || $3 > 1) exit 1 }' <<<"$output"
}

@test "launch: the table ends with per-child statistics over the trials" {
	run "$BIN/launch" -r 3 "true" "sleep 0.01"
	[ "$status" -eq 0 ]
	[[ $output == *"child 1 over 3 trials: true"* ]]
	[[ $output == *"child 2 over 3 trials: sleep 0.01"* ]]
	[ "$(grep -c '^  wall_s ' <<<"$output")" -eq 2 ]
	[ "$(grep -c '^ *[1-3] *[12] ' <<<"$output")" -eq 6 ]
}

@test "launch: with one trial there is no spread: stddev is '-', never nan" {
	run "$BIN/launch" -r 1 "true"
	[ "$status" -eq 0 ]
	[[ $output != *nan* ]]
	[[ $(grep '^  wall_s ' <<<"$output") =~ ^\ \ wall_s\ +[0-9.]+\ +[0-9.]+\ +-\ +[0-9.]+\ +[0-9.]+$ ]]
}

@test "launch: the children meet at its second barrier (writer --together), a command alone cannot" {
	run "$BIN/launch" --csv -f f "$BIN/writer -t -c A -n 1000 f" "$BIN/writer -t -c B -n 1000 f"
	[ "$status" -eq 0 ]
	[ "$("$BIN/runs" --summary-csv f | cut -d, -f1,2 | tr '\n' ' ')" = "char,lines A,1000 B,1000 " ]
	run env -u IOLAB_BARRIER_FD "$BIN/writer" -t f
	usage_fails
	[[ ${lines[0]} == "writer: --together: not started by launch (no IOLAB_BARRIER_FD)" ]]
}

@test "launch: a failing child makes the exit status 1 and shows its status" {
	printf 'kill -KILL $$\n' >die.sh
	run "$BIN/launch" --csv "true" "false" "sh die.sh"
	[ "$status" -eq 1 ]
	[[ ${lines[1]} == *",0,true" ]]
	[[ ${lines[2]} == *",1,false" ]]
	[[ ${lines[3]} == *",137,sh die.sh" ]]
	[[ $output == *"launch: a child exited with a non-zero status"* ]]
}

@test "launch: a command that cannot run is named, exit 1" {
	run "$BIN/launch" "true" "no-such-command-xyz arg"
	[ "$status" -eq 1 ]
	[[ $output == *"launch: cannot run 'no-such-command-xyz arg': No such file or directory"* ]]
}

@test "launch: commands are split on white space, with no shell" {
	run "$BIN/launch" --csv "touch  a	b" "echo \$HOME;touch c"
	[ "$status" -eq 0 ]
	[ -e a ] && [ -e b ] && [ ! -e c ]
	# the command, last in the CSV, is quoted as one field when it holds a comma
	run "$BIN/launch" --csv "echo a,b"
	[ "${lines[2]##*,0,}" = '"echo a,b"' ]
}

@test "launch: bad arguments exit 2" {
	run "$BIN/launch"
	usage_fails
	[[ ${lines[0]} == "launch: no command to launch" ]]
	run "$BIN/launch" -r 0 true
	usage_fails
	run "$BIN/launch" -r x true
	usage_fails
	run "$BIN/launch" true "   "
	usage_fails
	[[ ${lines[0]} == "launch: command 2 is empty" ]]
	run "$BIN/launch" --bogus true
	usage_fails
	run "$BIN/launch" -h
	[ "$status" -eq 0 ]
}
