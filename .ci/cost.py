"""cost.py - what a CI run cost the machine, in figures that compare
across machines (docs/speed-goals.md, "CI's time").

    python3 .ci/cost.py start STATE   before the tests: a snapshot of the
                                      machine's counters, and the price of
                                      a process start here, into STATE
    python3 .ci/cost.py end STATE     after them: one line of what the run
                                      used, from STATE and the counters now

CI's parts run beside each other and keep every core busy, so its time is
the CPU it needs over the cores there are. Much of that CPU goes to
starting and ending processes (bats, the tests' shell, the grader's
sandboxes: some 70,000 of them), whose price is the machine's: on a
virtual machine whose kernel leaves every page-table change to the
hypervisor, 4 to 5 ms of CPU for a shell to start /bin/true. The
counters are the whole machine's (/proc/stat), as on a CI machine that
runs nothing else.
"""

import json
import os
import resource
import subprocess
import sys
import time

USAGE = "usage: cost.py start STATE | end STATE"


def counters():
    """(CPU seconds the cores were busy, processes and threads started) since boot."""
    with open("/proc/stat") as f:
        lines = f.read().splitlines()
    # cpu  user nice system idle iowait irq softirq steal ...: in clock ticks
    user, nice, system, _idle, _iowait, irq, softirq = map(int, lines[0].split()[1:8])
    forks = next(int(line.split()[1]) for line in lines if line.startswith("processes "))
    return (user + nice + system + irq + softirq) / os.sysconf("SC_CLK_TCK"), forks


def start_price():
    """Milliseconds of CPU one process start takes here: a shell starting
    /bin/true (fork, exec, exit), in batches doubled until one lasts a second."""
    n = 100
    while True:
        before, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
        subprocess.run(["bash", "-c", 'for ((i = 0; i < $1; i++)); do /bin/true; done', "_", str(n)], check=True)
        after, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic() - wall
        if wall >= 1 or n >= 100_000:
            cpu = after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime
            return 1000 * cpu / n
        n *= 2


def main(argv):
    if len(argv) != 3 or argv[1] not in ("start", "end"):
        print(USAGE, file=sys.stderr)
        return 2
    what, path = argv[1], argv[2]
    try:
        if what == "start":
            price = start_price()    # first: the counters leave the probe out
            busy, forks = counters()
            with open(path, "w") as f:
                json.dump({"time": time.monotonic(), "busy": busy, "forks": forks, "price_ms": price}, f)
            return 0
        with open(path) as f:
            then = json.load(f)
        busy, forks = counters()
    except (OSError, ValueError, KeyError, subprocess.CalledProcessError) as e:
        print(f"cost.py: {e}", file=sys.stderr)
        return 1
    elapsed, cpu, started = time.monotonic() - then["time"], busy - then["busy"], forks - then["forks"]
    cores = os.cpu_count() or 1
    price = then["price_ms"]
    spent = started * price / 1000
    print(f"CI's cost: {cpu:,.0f} CPU-s in {elapsed:,.0f} s on {cores} cores "
          f"({100 * cpu / (cores * elapsed):.0f}% of what they could give); {started:,} processes and threads "
          f"started, at {price:.2f} ms of CPU a process start here (a shell starting /bin/true), "
          f"about {spent:,.0f} CPU-s ({100 * spent / cpu:.0f}%)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
