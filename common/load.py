#!/usr/bin/env python3
"""load.py - how busy the machine was while a lab ran, and what that means.

  python3 common/load.py start STATE PID
  python3 common/load.py end STATE PID LAB OUT [--scale SCALE] [--spread CSV:BY:VALUE[:COL=V]]...
                          [--needs-cores QN.M[,QN.M]...]

start, before the lab's first experiment, keeps in STATE what end needs:
the machine's CPU time from /proc/stat, the load average, the clock, the
CPU time of process PID (the lab's shell) and of the children it has
waited for, from /proc/PID/stat, and that of each of the kernel's threads.

end, after the lab's last experiment, prints a few lines and writes them to
OUT as "key: value" lines (data/labN-load.txt):
  - the scale the lab ran at (--scale: tiny, quick or full), which the
    handin carries to the grader (a tiny run's data is refused) and to
    the class results (left out of the figures).
  - other programs' CPU: the machine's CPU time during the lab less the
    lab's own (its shell and every program it ran) and less the kernel's
    threads', in cores: what the lab competed with. The load average alone
    cannot say it: it counts the lab's own programs too. The kernel's
    threads are counted apart: during the labs that write files most of
    their work is the lab's own I/O (on the kit's virtual machine, kblockd
    and ext4-rsv-conversion took about 0.12 cores during Lab 6, with
    nothing else running, more than half of the 0.2 that reads as busy).
  - steal: the share of CPU time the hypervisor gave to other virtual
    machines (/proc/stat's 8th field; "none" where the kernel does not
    count it).
  - the load average at the start and at the end.
  - for each --spread (a lab CSV, group-by columns joined by +, a value
    column, optionally one COL=VALUE filter): the largest max/min of VALUE
    over the rows of one group, the repeated trials of one setting, and
    how long one of its trials takes (the CSV's wall_s, where it has one).
Then a verdict: BUSY when other programs used more than a fifth of a core
(close them) or steal was over 2% (another tenant of the host, which no
one here can close: add trials or run at a quieter hour), a line for each
cause seen (busy_cause: programs, steal, both or none) and, with
--needs-cores, a line naming the lab's questions whose lesson needs the
cores for the lab alone (busy_questions: the list, or none): a busy run's
data can show the opposite of what they expect (a thread or a mode that
sleeps gets the core back before one that never sleeps, two writers meant
to run at once take turns on one core). NOISY when the
trials of one setting that last 10 ms or more differ by more than 2x, SHORT TRIALS when only shorter ones do
(one time slice of another program can double those on any machine), each
with what to do: re-run when the machine is idle, or add trials
(TRIALS=N make labN). Exit status 0 either way: the verdict informs,
it does not stop anything.
"""
import csv
import os
import sys
import time

from columns import median  # common/columns.py: the kit's one median, the grader's too

HZ = os.sysconf("SC_CLK_TCK")
BUSY_CORES = 0.2        # other programs' average CPU, in cores
BUSY_STEAL = 0.02       # share of CPU time stolen
NOISY_SPREAD = 2.0      # max/min of one setting's trials
SHORT_TRIAL = 0.01      # seconds: a trial this short, one time slice of another program can double
PF_KTHREAD = 0x00200000  # /proc/PID/stat's flags: a kernel thread


def cpu_jiffies(stat="/proc/stat"):
    """(busy, steal, total) jiffies of all CPUs since boot, from stat's
    first line (/proc/stat's "cpu" line)."""
    with open(stat) as f:
        fields = [int(x) for x in f.readline().split()[1:]]
    # user nice system idle iowait irq softirq steal (guest is inside user)
    idle = fields[3] + fields[4]
    steal = fields[7] if len(fields) > 7 else None
    busy = sum(fields[:8]) - idle - (steal or 0)
    return busy, steal, busy + idle + (steal or 0)


def kernel_threads(proc="/proc"):
    """{pid: (start time, CPU jiffies)} of the kernel's own threads (flags
    with PF_KTHREAD) under proc."""
    threads = {}
    for pid in os.listdir(proc):
        if not pid.isdigit():
            continue
        try:
            with open(os.path.join(proc, pid, "stat")) as f:
                after_name = f.read().rsplit(")", 1)[1].split()
        except (OSError, IndexError):   # gone since the listing
            continue
        # fields of proc(5): 9 flags (after_name[6]), 14 and 15 utime and
        # stime, 22 the start time, which tells a reused pid
        if int(after_name[6]) & PF_KTHREAD:
            threads[pid] = (int(after_name[19]), int(after_name[11]) + int(after_name[12]))
    return threads


def kernel_jiffies(before, after):
    """CPU jiffies the kernel's threads used between two kernel_threads()
    readings: a thread started since counts from 0; one gone since is lost
    (a worker thread's last few jiffies)."""
    return sum(j - (before[pid][1] if before.get(pid, (None,))[0] == started else 0)
               for pid, (started, j) in after.items())


def own_jiffies(pid):
    """CPU jiffies of pid and of the children it has waited for."""
    with open(f"/proc/{pid}/stat") as f:
        after_name = f.read().rsplit(")", 1)[1].split()
    # fields 14-17 of proc(5): utime stime cutime cstime (after_name[0] is field 3)
    return sum(int(x) for x in after_name[11:15])


def loadavg():
    with open("/proc/loadavg") as f:
        return float(f.read().split()[0])


def spreads(spec):
    """[(max/min, group, its median wall_s or None)] of every group of two
    or more rows of spec CSV:BY:VALUE[:COL=V]."""
    parts = spec.split(":")
    path, by, value = parts[0], parts[1].split("+"), parts[2]
    col, _, want = parts[3].partition("=") if len(parts) > 3 else ("", "", "")
    groups, walls = {}, {}
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if (not col or row[col] == want) and row.get(value):
                key = tuple(row[c] for c in by)
                groups.setdefault(key, []).append(float(row[value]))
                if row.get("wall_s"):
                    walls.setdefault(key, []).append(float(row["wall_s"]))
    return [(max(v) / min(v), key, median(walls[key]) if key in walls else None)
            for key, v in groups.items() if len(v) > 1 and min(v) > 0]


def spread_line(found, value, lead):
    """The line for found (max/min, group, wall): lead, the ratio, the
    setting and how long one of its trials takes."""
    ratio, key, wall = found
    said = ""
    if wall is not None:
        said = f"; a trial takes {wall * 1e3:.3g} ms" if wall < 1 else f"; a trial takes {wall:.3g} s"
        said += ", a few time slices of another program" if wall < SHORT_TRIAL else ""
    return f"   {lead} {ratio:.2f}x in {value} ({' '.join(k for k in key if k) or 'one setting'}{said})"


def shares(start, end, accounted, seconds):
    """(other programs' CPU in cores, steal as a share of all CPU time or
    None) between two cpu_jiffies() readings, start and end, less the
    accounted jiffies (the lab's own and the kernel's threads')."""
    others = max(end[0] - start[0] - accounted, 0) / HZ / seconds
    if start[1] is None or end[1] is None:
        return others, None
    return others, (end[1] - start[1]) / max(end[2] - start[2], 1)


def busy_lines(others, stolen, label):
    """The BUSY lines, one per cause seen: other programs on this machine
    (others, in cores), which the student can close, and steal (stolen, a
    share, or None), another tenant of the host, which no one here can."""
    lines = []
    if others > BUSY_CORES:
        lines.append(f"   BUSY: other programs on this machine used {others:.2f} cores: close them (`top` "
                     f"names them) and re-run, or add trials (TRIALS=10 make {label}).")
    if (stolen or 0) > BUSY_STEAL:
        lines.append(f"   BUSY (steal): another tenant of this virtual machine's host took {100 * stolen:.1f}% "
                     f"of the CPU: add trials (TRIALS=10 make {label}) or run at a quieter hour.")
    return lines


def needs_cores_line(questions):
    """The line that names the questions (QN.M, ...) whose data a busy
    machine can turn around."""
    one = len(questions) == 1
    said = questions[0] if one else ", ".join(questions[:-1]) + " and " + questions[-1]
    return (f"   {said} {'needs' if one else 'need'} the cores for the lab alone, which it did not have: "
            f"this run's data may show the opposite of what {'it expects' if one else 'they expect'}. "
            f"Say so in your answer, quoting these lines, or re-run when the machine is idle.")


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("start", "end"):
        sys.exit("usage: load.py start STATE PID | end STATE PID LAB OUT [--scale SCALE] "
                 "[--spread CSV:BY:VALUE[:COL=V]]... [--needs-cores QN.M[,QN.M]...]")
    what, state, pid = sys.argv[1:4]
    if what == "start":
        busy, steal, total = cpu_jiffies()
        with open(state, "w") as f:
            print(busy, steal if steal is not None else -1, total, loadavg(), time.monotonic(),
                  own_jiffies(pid), file=f)
            print(" ".join(f"{p}:{started}:{j}" for p, (started, j) in kernel_threads().items()), file=f)
        return
    lab, out, rest = sys.argv[4], sys.argv[5], sys.argv[6:]
    with open(state) as f:
        b0, s0, t0, load0, clock0, own0 = (float(x) for x in f.readline().split())
        kernel0 = {p: (int(started), int(j)) for p, started, j in (t.split(":") for t in f.readline().split())}
    busy, steal, total = cpu_jiffies()
    seconds = max(time.monotonic() - clock0, 1e-3)
    kernel = kernel_jiffies(kernel0, kernel_threads())
    others, stolen = shares((b0, s0 if s0 >= 0 else None, t0), (busy, steal, total),
                            own_jiffies(pid) - own0 + kernel, seconds)
    cores = os.cpu_count()
    scale = next((rest[i + 1] for i, a in enumerate(rest[:-1]) if a == "--scale"), None)
    facts = {"scale": scale} if scale else {}
    facts.update({
        "seconds": f"{seconds:.0f}",
        "cores": str(cores),
        "other_programs_cores": f"{others:.2f}",
        "kernel_threads_cores": f"{kernel / HZ / seconds:.2f}",
        "steal_percent": f"{100 * stolen:.1f}" if stolen is not None else "none",
        "load_average_start": f"{load0:.2f}",
        "load_average_end": f"{loadavg():.2f}",
    })
    lines = [f"== The machine while {lab} ran ({facts['seconds']} s, {cores} cores): other programs used "
             f"{others:.2f} cores (the kernel's threads {facts['kernel_threads_cores']} more, mostly the lab's "
             f"own I/O); steal {facts['steal_percent']}"
             f"{'%' if stolen is not None else ''}; load average {load0:.2f} at the start, "
             f"{facts['load_average_end']} at the end (it counts the lab's own programs too)"]
    # The widest spread of all settings, and of those whose trials last
    # SHORT_TRIAL or more: a time slice of another program can double a
    # shorter one on any machine, which says nothing of this one.
    widest = widest_long = None
    for spec in (a for i, a in enumerate(rest) if i and rest[i - 1] == "--spread"):
        found = spreads(spec)
        if not found:
            continue
        value = spec.split(":")[2]
        top = max(found)
        facts[f"spread_{value}"] = f"{top[0]:.2f}"
        lines.append(spread_line(top, value, "trials of one setting differ by up to"))
        long = max((f for f in found if f[2] is None or f[2] >= SHORT_TRIAL), default=None)
        if long and long != top and top[0] > NOISY_SPREAD:
            lines.append(spread_line(long, value, f"of those whose trials take {SHORT_TRIAL * 1e3:g} ms or more, by up to"))
        widest = max(widest or 0, top[0])
        widest_long = max(widest_long or 0, long[0] if long else 0)
    label = lab.lower().replace(" ", "")
    causes = (("programs", others > BUSY_CORES), ("steal", (stolen or 0) > BUSY_STEAL))
    busy_now = any(on for _, on in causes)
    noisy = widest_long is not None and widest_long > NOISY_SPREAD
    short = not noisy and widest is not None and widest > NOISY_SPREAD
    lines += busy_lines(others, stolen, label)
    questions = [q for i, a in enumerate(rest) if i and rest[i - 1] == "--needs-cores" for q in a.split(",") if q]
    if busy_now and questions:
        lines.append(needs_cores_line(questions))
    if noisy:
        lines.append(f"   NOISY: trials of one setting differ by more than {NOISY_SPREAD:g}x: quote medians "
                     f"with their (min-max), and add trials (TRIALS=10 make {label}) before you trust a "
                     f"difference smaller than that spread.")
    if short:
        lines.append(f"   SHORT TRIALS: only settings whose trials take under {SHORT_TRIAL * 1e3:g} ms differ by "
                     f"more than {NOISY_SPREAD:g}x: read those points beside their neighbours, or add trials "
                     f"(TRIALS=10 make {label}); the longer settings' medians mean something.")
    if not busy_now and not noisy and not short:
        lines.append("   quiet enough: the medians above mean something; their (min-max) is the spread.")
    facts["busy_cause"] = " ".join(w for w, on in causes if on) or "none"
    facts["busy_questions"] = " ".join(questions) if busy_now and questions else "none"
    facts["verdict"] = " ".join(w for w, on in (("busy", busy_now), ("noisy", noisy), ("short", short)) if on) or "quiet"
    print("\n".join(lines))
    tmp = out + ".tmp"
    with open(tmp, "w") as f:
        f.writelines(f"{k}: {v}\n" for k, v in facts.items())
    os.replace(tmp, out)


if __name__ == "__main__":
    main()
