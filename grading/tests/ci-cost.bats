#!/usr/bin/env bats
# .ci/cost.py: the line a CI run ends with, what it cost the machine (its
# CPU, the processes it started and their price here), for comparing CI's
# time across machines.

load ../../tests/helpers

@test "ci cost: the price of a process start, then the CPU used and the processes started since" {
	python3 -B "$ROOT/.ci/cost.py" start state
	python3 -B -c 'import json; d = json.load(open("state")); assert 0 < d["price_ms"] < 1000, d'
	# /proc/stat's count of processes started, inside the run's window
	local before after
	before=$(sed -n 's/^processes //p' /proc/stat)
	bash -c 'for ((i = 0; i < 300; i++)); do /bin/true; done'
	after=$(sed -n 's/^processes //p' /proc/stat)
	run python3 -B "$ROOT/.ci/cost.py" end state
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ $output =~ ^CI\'s\ cost:\ [0-9,]+\ CPU-s\ in\ [0-9,]+\ s\ on\ [0-9]+\ cores\ \([0-9]+%.*\)\;\ ([0-9,]+)\ processes\ and\ threads\ started,\ at\ [0-9.]+\ ms ]]
	# at least those (the 300 above among them)
	[ "${BASH_REMATCH[1]//,/}" -ge $((after - before)) ]
}

@test "ci cost: bad arguments exit 2 with the usage; a state that is not there, 1, in one line" {
	run python3 -B "$ROOT/.ci/cost.py" middle state
	[ "$status" -eq 2 ]
	[ "$output" = "usage: cost.py start STATE | end STATE" ]
	run python3 -B "$ROOT/.ci/cost.py" end no-such-state
	[ "$status" -eq 1 ]
	[ "$output" = "cost.py: [Errno 2] No such file or directory: 'no-such-state'" ]
}
