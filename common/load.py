#!/usr/bin/env python3
"""load.py - how busy the machine was while a lab ran, and what that means.

  python3 common/load.py start STATE PID
  python3 common/load.py end STATE PID LAB OUT [--spread CSV:BY:VALUE[:COL=V]]...

start, before the lab's first experiment, keeps in STATE what end needs:
the machine's CPU time from /proc/stat, the load average, the clock and
the CPU time of process PID (the lab's shell) and of the children it has
waited for, from /proc/PID/stat.

end, after the lab's last experiment, prints a few lines and writes them to
OUT as "key: value" lines (data/labN-load.txt):
  - other programs' CPU: the machine's CPU time during the lab less the
    lab's own (its shell and every program it ran), in cores: what the lab
    competed with. The load average alone cannot say it: it counts the
    lab's own programs too.
  - steal: the share of CPU time the hypervisor gave to other virtual
    machines (/proc/stat's 8th field; "none" where the kernel does not
    count it).
  - the load average at the start and at the end.
  - for each --spread (a lab CSV, group-by columns joined by +, a value
    column, optionally one COL=VALUE filter): the largest max/min of VALUE
    over the rows of one group, the repeated trials of one setting.
Then a verdict: BUSY when other programs used more than a fifth of a core
or steal was over 2%, NOISY when the trials of one setting differ by more
than 2x, each with what to do: re-run when the machine is idle, or add
trials (TRIALS=N make labN). Exit status 0 either way: the verdict informs,
it does not stop anything.
"""
import csv
import os
import sys
import time

HZ = os.sysconf("SC_CLK_TCK")
BUSY_CORES = 0.2        # other programs' average CPU, in cores
BUSY_STEAL = 0.02       # share of CPU time stolen
NOISY_SPREAD = 2.0      # max/min of one setting's trials


def cpu_jiffies():
    """(busy, steal, total) jiffies of all CPUs since boot, from /proc/stat."""
    with open("/proc/stat") as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal (guest is inside user)
    idle = fields[3] + fields[4]
    steal = fields[7] if len(fields) > 7 else None
    busy = sum(fields[:8]) - idle - (steal or 0)
    return busy, steal, busy + idle + (steal or 0)


def own_jiffies(pid):
    """CPU jiffies of pid and of the children it has waited for."""
    with open(f"/proc/{pid}/stat") as f:
        after_name = f.read().rsplit(")", 1)[1].split()
    # fields 14-17 of proc(5): utime stime cutime cstime (after_name[0] is field 3)
    return sum(int(x) for x in after_name[11:15])


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def spread(spec):
    """(max/min, group) of the widest group of spec CSV:BY:VALUE[:COL=V], or None."""
    parts = spec.split(":")
    path, by, value = parts[0], parts[1].split("+"), parts[2]
    col, _, want = parts[3].partition("=") if len(parts) > 3 else ("", "", "")
    groups = {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if (not col or row[col] == want) and row.get(value):
                groups.setdefault(tuple(row[c] for c in by), []).append(float(row[value]))
    ratios = [(max(v) / min(v), key) for key, v in groups.items() if len(v) > 1 and min(v) > 0]
    return max(ratios) if ratios else None


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("start", "end"):
        sys.exit("usage: load.py start STATE PID | end STATE PID LAB OUT [--spread CSV:BY:VALUE[:COL=V]]...")
    what, state, pid = sys.argv[1:4]
    if what == "start":
        busy, steal, total = cpu_jiffies()
        with open(state, "w") as f:
            print(busy, steal if steal is not None else -1, total, loadavg(), time.monotonic(),
                  own_jiffies(pid), file=f)
        return
    lab, out, rest = sys.argv[4], sys.argv[5], sys.argv[6:]
    with open(state) as f:
        b0, s0, t0, load0, clock0, own0 = (float(x) for x in f.read().split())
    busy, steal, total = cpu_jiffies()
    seconds = max(time.monotonic() - clock0, 1e-3)
    others = max(busy - b0 - (own_jiffies(pid) - own0), 0) / HZ / seconds
    stolen = (steal - s0) / max(total - t0, 1) if steal is not None and s0 >= 0 else None
    cores = os.cpu_count()
    facts = {
        "seconds": f"{seconds:.0f}",
        "cores": str(cores),
        "other_programs_cores": f"{others:.2f}",
        "steal_percent": f"{100 * stolen:.1f}" if stolen is not None else "none",
        "load_average_start": f"{load0:.2f}",
        "load_average_end": f"{loadavg():.2f}",
    }
    lines = [f"== The machine while {lab} ran ({facts['seconds']} s, {cores} cores): other programs used "
             f"{others:.2f} cores; steal {facts['steal_percent']}"
             f"{'%' if stolen is not None else ''}; load average {load0:.2f} at the start, "
             f"{facts['load_average_end']} at the end (it counts the lab's own programs too)"]
    widest = None
    for spec in (a for i, a in enumerate(rest) if i and rest[i - 1] == "--spread"):
        found = spread(spec)
        if found:
            value = spec.split(":")[2]
            facts[f"spread_{value}"] = f"{found[0]:.2f}"
            lines.append(f"   trials of one setting differ by up to {found[0]:.2f}x in {value} "
                         f"({' '.join(k for k in found[1] if k) or 'one setting'})")
            widest = max(widest or 0, found[0])
    label = lab.lower().replace(" ", "")
    busy_now = others > BUSY_CORES or (stolen or 0) > BUSY_STEAL
    if busy_now:
        lines.append(f"   BUSY: other programs competed with the lab; its times carry their noise. Re-run "
                     f"when the machine is idle (close other programs; `uptime` load average under 0.5), "
                     f"or add trials: TRIALS=10 make {label}. Say so where you quote these numbers.")
    if widest is not None and widest > NOISY_SPREAD:
        lines.append(f"   NOISY: trials of one setting differ by more than {NOISY_SPREAD:g}x: quote medians "
                     f"with their (min-max), and add trials (TRIALS=10 make {label}) before you trust a "
                     f"difference smaller than that spread.")
    if not busy_now and (widest is None or widest <= NOISY_SPREAD):
        lines.append("   quiet enough: the medians above mean something; their (min-max) is the spread.")
    facts["verdict"] = ("busy " if busy_now else "") + ("noisy" if widest and widest > NOISY_SPREAD else "")
    facts["verdict"] = facts["verdict"].strip() or "quiet"
    print("\n".join(lines))
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        f.writelines(f"{k}: {v}\n" for k, v in facts.items())
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
