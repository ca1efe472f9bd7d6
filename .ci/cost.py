"""cost.py - what a CI run cost the machine, in figures that let CI times
from different machines be compared (docs/kit.md, "CI's time").

    python3 .ci/cost.py start STATE   before the tests: the price of a
                                      process start here, then a snapshot
                                      of the machine's counters, into STATE
    python3 .ci/cost.py end STATE     after them: one line of what the run
                                      used, from STATE and the counters now

CI's parts run beside each other and keep every core busy, so its time is
the CPU it needs over the cores there are, and much of that CPU goes to
starting and ending processes, whose price is the machine's. The counters
are the whole machine's (/proc/stat), as on a CI machine that runs
nothing else; they count threads as well as processes.
"""

import json
import os
import resource
import subprocess
import sys
import time

USAGE = "usage: cost.py start STATE | end STATE"


def counters():
    """(CPU seconds the cores were busy, CPU seconds the hypervisor took
    from them, processes and threads started), all since boot."""
    with open("/proc/stat") as f:
        lines = f.read().splitlines()
    # cpu  user nice system idle iowait irq softirq steal ...: in clock ticks
    # (guest time is inside user and nice; iowait is idle)
    user, nice, system, _idle, _iowait, irq, softirq, steal = map(int, lines[0].split()[1:9])
    forks = next((int(line.split()[1]) for line in lines if line.startswith("processes ")), None)
    if forks is None:
        raise ValueError("/proc/stat has no 'processes' line")
    tick = os.sysconf("SC_CLK_TCK")
    return (user + nice + system + irq + softirq) / tick, steal / tick, forks


def batch(n):
    """(milliseconds of CPU a start took, seconds elapsed) for n starts of
    /bin/true by a shell (fork, exec, exit)."""
    before, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic()
    subprocess.run(["bash", "-c", 'for ((i = 0; i < $1; i++)); do /bin/true; done', "_", str(n)], check=True)
    after, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.monotonic() - wall
    return 1000 * (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) / n, wall


def start_price():
    """Milliseconds of CPU one process start takes here: the median of three
    batches of as many starts as last a second (a machine not yet quiet
    moves one of them)."""
    n = 100
    while (first := batch(n))[1] < 1 and n < 100_000:
        n *= 2
    return sorted([first[0], batch(n)[0], batch(n)[0]])[1]


def start(path):
    price = start_price()    # first: the counters leave the probe out
    busy, steal, forks = counters()
    with open(path, "w") as f:
        json.dump({"time": time.monotonic(), "busy": busy, "steal": steal, "forks": forks, "price_ms": price}, f)


def end(path):
    """The line of what the run used since start."""
    with open(path) as f:
        then = json.load(f)
    busy, steal, forks = counters()
    elapsed = time.monotonic() - then["time"]
    cpu, started, price = busy - then["busy"], forks - then["forks"], then["price_ms"]
    cores = os.cpu_count() or 1
    # what the cores could give: less what the hypervisor took from them
    capacity = cores * elapsed - (steal - then["steal"])
    line = (f"CI's cost: {cpu:,.0f} CPU-s in {elapsed:,.0f} s on {cores} cores "
            f"({100 * cpu / capacity:.0f}% of what they could give); {started:,} processes and threads started; "
            f"a process start costs {price:.2f} ms of CPU here (a shell starting /bin/true)")
    if cpu > 0:
        line += f", and as many would take {started * price / 1000:,.0f} CPU-s ({started * price / 10 / cpu:.0f}% of it)"
    return line


def main(argv):
    if len(argv) != 3 or argv[1] not in ("start", "end"):
        print(USAGE, file=sys.stderr)
        return 2
    what, path = argv[1], argv[2]
    try:
        if what == "start":
            start(path)
        else:
            print(end(path))
    except KeyError as e:
        print(f"cost.py: {path}: no {e} in it: not written by cost.py start", file=sys.stderr)
        return 1
    except (OSError, ValueError, TypeError, ZeroDivisionError, subprocess.CalledProcessError) as e:
        print(f"cost.py: {path}: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
