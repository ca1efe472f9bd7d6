#!/usr/bin/env bats
# .ci/cost.py: the line a CI run ends with, what it cost the machine (its
# CPU, the processes it started and their price here), so that CI times
# from different machines can be compared.

load ../../tests/helpers

# counters: the test's own reading of /proc/stat, the machine's busy CPU
# seconds (user, nice, system, irq, softirq) and its processes started
counters() {
	python3 -B -c 'import os
lines = open("/proc/stat").read().splitlines()
t = list(map(int, lines[0].split()[1:8]))
forks = next(line.split()[1] for line in lines if line.startswith("processes "))
print((t[0] + t[1] + t[2] + t[5] + t[6]) / os.sysconf("SC_CLK_TCK"), forks)'
}

@test "ci cost: the price of a process start, then the CPU used and the processes started since, within the machine's counts" {
	local busy1 forks1 busy2 forks2
	python3 -B "$ROOT/.ci/cost.py" start state
	# a second and a half of CPU, and 300 processes
	python3 -B -c 'import time
t = time.process_time()
while time.process_time() - t < 1.5: pass'
	bash -c 'for ((i = 0; i < 300; i++)); do /bin/true; done'
	read -r busy1 forks1 < <(counters)
	run python3 -B "$ROOT/.ci/cost.py" end state
	read -r busy2 forks2 < <(counters)
	[ "$status" -eq 0 ]
	# what it says lies between the counts before and after it ran, less the start's
	python3 -B - "$output" state "$busy1" "$forks1" "$busy2" "$forks2" <<-'PY'
	import json, re, sys
	out, state = sys.argv[1], json.load(open(sys.argv[2]))
	busy1, forks1, busy2, forks2 = map(float, sys.argv[3:])
	m = re.fullmatch(r"CI's cost: ([\d,]+) CPU-s in ([\d,]+) s on (\d+) cores \((\d+)% of what they could give\); "
	                 r"([\d,]+) processes and threads started; a process start costs ([\d.]+) ms of CPU here "
	                 r"\(a shell starting /bin/true\), and as many would take ([\d,]+) CPU-s \((\d+)% of it\)", out)
	assert m, out
	cpu, started = int(m[1].replace(",", "")), int(m[5].replace(",", ""))
	assert cpu >= 1 and busy1 - state["busy"] - 0.5 <= cpu <= busy2 - state["busy"] + 0.5, \
	    (cpu, busy1 - state["busy"], busy2 - state["busy"])
	assert started >= 300 and forks1 - state["forks"] <= started <= forks2 - state["forks"], \
	    (started, forks1 - state["forks"], forks2 - state["forks"])
	assert 0 < state["price_ms"] < 1000 and m[6] == f"{state['price_ms']:.2f}", (m[6], state["price_ms"])
	PY
}

@test "ci cost: bad arguments exit 2 with the usage; a state missing or not its own, 1, in one line" {
	run python3 -B "$ROOT/.ci/cost.py" middle state
	[ "$status" -eq 2 ]
	[ "$output" = "usage: cost.py start STATE | end STATE" ]
	run python3 -B "$ROOT/.ci/cost.py" end no-such-state
	[ "$status" -eq 1 ]
	[ "$output" = "cost.py: no-such-state: [Errno 2] No such file or directory: 'no-such-state'" ]
	echo '{"time": 1}' >other
	run python3 -B "$ROOT/.ci/cost.py" end other
	[ "$status" -eq 1 ]
	[ "$output" = "cost.py: other: no 'busy' in it: not written by cost.py start" ]
}
