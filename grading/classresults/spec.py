"""What the class results read from each lab's data, in one place.

Which data files are merged, their columns, the kind of value each must
hold and which the figures and checks need (a file without one is left
out) are the labs' declarations, labs/N-topic/columns.csv, read here into
FILES (a lab script may add columns, which are ignored, or reorder them).
This file adds how each is read: what makes a configuration (for the
forged-trials check) and how one row can be impossible (READING). Then
what each lab contributes per submission: the points of its class figure
(SUMMARIES, with their columns in POINTS) and the one-number measures a
student is placed by (METRICS). The labs the class results know are the
labs whose files are merged (LABS).
"""

import os
import re
import statistics
import sys

from .values import Bad, declared

MIB = 1 << 20
GIB = 1 << 30
# Times below this are too close to the CSV's resolution (microseconds) for
# equal trials to mean anything; above it, 3 equal trials are a forgery.
FORGE_MIN_SECONDS = 1e-3
FORGE_MIN_SAMPLES = 3

# Rates no machine a student has reaches, whatever the other columns say.
# Bytes: 1 TiB/s per thread is past the L1 cache bandwidth of any core (two
# 64-byte loads a cycle at 6 GHz, 768 GB/s), so past memory (a whole
# server's DDR5, about 0.5 TB/s) and far past any disk (PCIe 5 NVMe, about
# 14 GB/s). I/Os: 10^7 a second per thread is under 100 ns per read or
# write, less than a system call's entry and exit with a file lookup take
# (an io_uring request costs the kernel about as much).
MAX_MIB_S_PER_THREAD = float(1 << 20)
MAX_IOPS_PER_THREAD = 1e7
# A save (Lab 6) opens, writes and closes a file at the least: three system
# calls and a path lookup, more than a microsecond together on any machine
# (the cheapest strategy, in place on a tmpfs, took 14 us on a 2-core VM).
MIN_US_PER_SAVE = 1.0


class DataFile:
    def __init__(self, name, lab, columns, config=(), check=None, timing=("wall_s",)):
        self.name, self.lab, self.check = name, lab, check
        # (name, kind, required); kind ends in '?' when the field may be empty
        self.columns = [(c, k, use == "need") for c, k, use in columns]
        self.config = config	# columns that make a configuration (trial and writer excluded)
        # what a trial measured: equal in every trial of a configuration, a
        # forgery; the first, in a run of rows two submissions share, a copy
        # (none in a file READING says nothing of and without wall_s: a
        # lab's counts only)
        if timing == ("wall_s",) and "wall_s" not in self.column_names and not config and not check:
            timing = ()
        self.timing = timing
        # a reading of columns the lab no longer merges would switch its
        # checks off without a word (wall_s: every timed or checked file's)
        wanted = {*config, *timing, *(("wall_s",) if timing or check else ())}
        unread = sorted(c for c in wanted if c not in self.column_names)
        if unread:
            raise ValueError(f"grading/classresults/spec.py reads {name} by {', '.join(unread)}, "
                             f"which labs/{lab}-*/columns.csv does not merge (class need or keep)")

    @property
    def column_names(self):
        return [c for c, _, _ in self.columns]


def half_unit(text):
    """Half the last printed digit of a number as the CSV wrote it: the
    most its rounding moved it ("0.000012" -> 5e-7, "2e-06" -> 5e-7)."""
    m = re.fullmatch(r"[0-9]*(?:\.([0-9]*))?(?:[eE]([-+]?[0-9]+))?", text)
    if not m:
        return 0.0
    return 0.5 * 10.0 ** (int(m.group(2) or 0) - len(m.group(1) or ""))


def rate_agrees(rate, amount, wall, half, rel=0.02, absolute=0.06):
    """rate agrees with amount / the true time, which lies within half of
    the printed wall: at any duration, even one printed as 0 (then the rate
    must be at least amount / half). rel and absolute allow for the
    rounding of the rate itself."""
    low = amount / (wall + half) if wall + half > 0 else 0.0
    high = amount / (wall - half) if wall > half else float("inf")
    return low * (1 - rel) - absolute <= rate <= high * (1 + rel) + absolute


def lines_add_up(v, half):
    if v["lost_lines"] + v["lines_found"] != v["lines_written"]:
        return "lines_found + lost_lines is not lines_written"
    return None


# A row's check: v its values, half the rounding of its printed wall_s.
def lab3_check(v, half):
    if v["threads"] < 1 or v["bytes"] < 1:
        return "threads and bytes must be at least 1"
    # --passes N: the fill and the copy go N times over the buffer, the dump once
    passes = (v.get("passes") or 1) if v["phase"] != "dump" else 1
    if not rate_agrees(v["mib_s"], passes * v["bytes"] / MIB, v["wall_s"], half):
        return f"mib_s {v['mib_s']:g} is not bytes / wall_s ({v['wall_s']:g} s)"
    return None


def writers_check(v, half):
    total = v["files"] * v["bytes_per_file"]
    if v["files"] < 1:
        return "files must be at least 1"
    if not rate_agrees(v["mib_s"], total / MIB, v["wall_s"], half):
        return "mib_s is not files * bytes_per_file / wall_s"
    return None


def lab5_check(v, half):
    if not rate_agrees(v["iops"], v["ios"], v["wall_s"], half, absolute=1):
        return f"iops {v['iops']:g} is not ios / wall_s ({v['wall_s']:g} s)"
    if not rate_agrees(v["mib_s"], v["bytes"] / MIB, v["wall_s"], half):
        return "mib_s is not bytes / wall_s"
    if v["ios"] > 0 and v["bytes"] == 0:
        return "ios without bytes"
    return None


def lab6_check(v, half):
    if v["saves"] < 1:
        return "saves must be at least 1"
    # wall_s printed to the microsecond, us_per_save to the nanosecond
    low, high = ((v["wall_s"] + d) * 1e6 / v["saves"] for d in (-half, half))
    if not low * 0.98 - 0.001 <= v["us_per_save"] <= high * 1.02 + 0.001:
        return (f"us_per_save {v['us_per_save']:g} is not wall_s / saves "
                f"({v['wall_s']:g} s, {v['saves']} saves)")
    if v["us_per_save"] < MIN_US_PER_SAVE:
        return (f"us_per_save {v['us_per_save']:g}: under {MIN_US_PER_SAVE:g} us, less than "
                "the open(), write() and close() of a save take")
    return None


def physical(v):
    """A rate no machine reaches (MAX_*_PER_THREAD), or None."""
    threads = max(v.get("threads") or 1, v.get("jobs") or 1)
    if v.get("mib_s") is not None and v["mib_s"] > MAX_MIB_S_PER_THREAD * threads:
        return (f"mib_s {v['mib_s']:g} with {threads} thread(s): more than "
                f"{MAX_MIB_S_PER_THREAD * threads:g}, past any machine's memory")
    if v.get("iops") is not None and v["iops"] > MAX_IOPS_PER_THREAD * threads:
        return (f"iops {v['iops']:g} with {threads} thread(s): more than "
                f"{MAX_IOPS_PER_THREAD * threads:g}, under 100 ns an I/O")
    return None


# How the class reads each lab's results: what makes a configuration (for
# the forged-trials check), a row's own check, and what a trial measured.
# Their columns, kinds and which are merged are the lab's declaration,
# labs/N-topic/columns.csv (values.declared): a declared file with a merged
# column (class need or keep) is merged, with the reading given here or,
# for a lab that gives none, no configuration and no row check. What a lab
# computes from them for its figures (data/labN-*-medians.csv) is not
# declared nor merged; nor is Lab 6's lab6-states.csv, the same on every
# machine.
READING = {
    "lab1.csv": dict(config=("experiment", "mode", "buffer_bytes"), check=lines_add_up),
    "lab2.csv": dict(config=("experiment", "lines_per_lock", "flush", "lock", "sync"), check=lines_add_up),
    "lab3.csv": dict(config=("threads", "bytes", "rng", "prefault", "pages", "passes", "phase"),
                     check=lab3_check),
    "lab3-membw.csv": dict(config=("threads", "op", "bytes", "passes")),
    "lab4-writers.csv": dict(config=("strategy", "threads", "files", "bytes_per_file", "fsync", "append"),
                             check=writers_check),
    "lab4-datagen.csv": dict(config=("mode", "records")),
    "lab5.csv": dict(config=("experiment", "series", "op", "pattern", "io_bytes", "stride_bytes",
                             "direct", "cold", "sync"), check=lab5_check),
    # several I/Os in flight (io_uring depth, threads of pread)
    "lab5-depth.csv": dict(config=("experiment", "series", "op", "pattern", "io_bytes", "direct", "iodepth",
                                   "jobs"), check=lab5_check),
    # wall_s is about the same in every trial (each saves for --ms MS)
    "lab6-cost.csv": dict(config=("strategy", "records"), check=lab6_check,
                          timing=("us_per_save", "saves", "wall_s")),
}
KIT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
try:
    FILES = [DataFile(name, lab, [(c.name, c.kind, c.use) for c in columns if c.use], **READING.get(name, {}))
             for name, (lab, columns) in declared(KIT).items() if any(c.use for c in columns)]
except ValueError as e:	# the kit's fault: one line, for make class and grade.sh --class-data
    sys.exit(str(e))
BY_NAME = {f.name: f for f in FILES}
LABS = sorted({f.lab for f in FILES})

# The kinds of storage common/machine.sh tells apart (scratch_dir_storage's
# first word), in the order the class figure draws them: memory, local
# disks, virtual ones, then across a network. A machine.txt from before it
# told them, or a word not among them, reads as "unknown".
STORAGE_KINDS = ("memory", "nvme", "ssd", "hdd", "mmc", "loop", "vm-disk", "host-share",
                 "network", "unknown")


def storage(machine):
    """The kind of storage under a submission's scratch directory."""
    kind = machine.get("scratch_dir_storage", "").split(" ")[0]
    return kind if kind in STORAGE_KINDS else "unknown"


def check_file(spec, rows):
    """Rows that cannot be (their own columns disagree at the precision
    printed, or a rate past what any machine reaches), and forged trials:
    every trial of one configuration with exactly the same time. Raises Bad."""
    times = {}
    # wall_s is there wherever a file is checked or timed (DataFile); a
    # file with no time (a lab's counts only) has no trial to forge
    wall = spec.column_names.index("wall_s") if spec.check else None
    for line, (v, raw) in enumerate(rows, start=2):
        why = spec.check(v, half_unit(raw[wall])) if spec.check else None
        why = why or physical(v)
        if why:
            raise Bad(f"{spec.name} line {line}: {why}")
        if spec.timing:
            times.setdefault(tuple(v.get(c) for c in spec.config), []).append(
                (v["wall_s"], tuple(v[c] for c in spec.timing)))
    for conf, trials in times.items():
        if len(trials) >= FORGE_MIN_SAMPLES and trials[0][0] >= FORGE_MIN_SECONDS \
                and all(t == trials[0] for t in trials):
            named = ", ".join(f"{c}={x}" for c, x in zip(spec.config, conf) if x is not None)
            took = (f"{trials[0][0]:g} s" if spec.timing == ("wall_s",) else
                    ", ".join(f"{c} {x:g}" for c, x in zip(spec.timing, trials[0][1])))
            raise Bad(f"{spec.name}: all {len(trials)} trials of {named} took exactly "
                      f"{took}: not measured")


# ------------------------------------------------------------ per submission

def median(values):
    values = [x for x in values if x is not None]
    return statistics.median(values) if values else None


def ratio(a, b):
    return a / b if a is not None and b else None


def med_wall(rows, **where):
    return median(v["wall_s"] for v in rows if all(v.get(k) == x for k, x in where.items()))


def lab1(rows):
    points = [100.0 * v["lost_lines"] / v["lines_written"] for v in rows
              if v["mode"] == "overwrite" and v["lines_written"] > 0]
    slowdown = ratio(med_wall(rows, experiment="buffer", buffer_bytes=0),
                     med_wall(rows, experiment="default"))
    return {"lab1_unbuffered_x": slowdown}, {"lab1-lost": [(p,) for p in points]}


def lab2(rows):
    points = []
    for k in sorted({v["lines_per_lock"] for v in rows if v["experiment"] == "sweep"}):
        r = ratio(med_wall(rows, experiment="sweep", lines_per_lock=k, flush=1),
                  med_wall(rows, experiment="sweep", lines_per_lock=k, flush=0))
        if r is not None:
            points.append((k, r))
    return {"lab2_fflush_k1_x": dict(points).get(1)}, {"lab2-fflush": points}


def lab3(rows):
    # 4 KiB pages only, where the lab also runs huge pages
    rows = [v for v in rows if v.get("pages") in (None, "4k")]
    fill = dict(phase="fill", rng="xoshiro")
    one = med_wall(rows, threads=1, prefault=1, **fill)
    speedup = {t: ratio(one, med_wall(rows, threads=t, prefault=1, **fill)) for t in (2, 4)}
    first = med_wall(rows, threads=1, prefault=0, **fill)
    size = median(v["bytes"] for v in rows if v["threads"] == 1 and v["phase"] == "fill")
    touch = (first - one) / (size / GIB) if first is not None and one is not None and size else None
    metrics = {"lab3_speedup_2": speedup[2], "lab3_speedup_4": speedup[4],
               "lab3_first_touch_s_gib": touch}
    points = {"lab3-speedup": [(t, s) for t, s in speedup.items() if s is not None],
              "lab3-touch": [(touch,)] if touch is not None else []}
    return metrics, points


def lab4(rows):
    points, waits = [], {}
    for fsync in (0, 1):
        mine = [v for v in rows if v["fsync"] == fsync]
        if not mine:
            continue
        most = max(v["files"] for v in mine)
        mine = [v for v in mine if v["files"] == most]
        mib = median(v["files"] * v["bytes_per_file"] / MIB for v in mine)
        wall, cpu = median(v["wall_s"] for v in mine), median(v["cpu_s"] for v in mine)
        if mib and wall and cpu:
            points.append((fsync, cpu / mib, wall / mib))
            waits[fsync] = wall / cpu
    return {"lab4_wall_cpu_fsync_x": waits.get(1)}, {"lab4-wallcpu": points}


def random_4k_direct(v):
    """A 4 KiB O_DIRECT random read from one thread."""
    return (v["op"] == "read" and v["pattern"] == "random" and v["io_bytes"] == 4096
            and v["direct"] == 1 and v.get("jobs") in (None, 1))


def lab5(rows):
    iops = median(v["iops"] for v in rows if random_4k_direct(v)
                  and v["experiment"] == "random-read" and v.get("iodepth") in (None, 1))
    return {"lab5_rr4k_iops": iops}, {"lab5-iops": [(iops,)] if iops is not None else []}


def lab5_depth(rows):
    depths = {}
    for v in rows:
        if random_4k_direct(v) and v["iodepth"] >= 1:	# 0: synchronous pread, no queue
            depths.setdefault(v["iodepth"], []).append(v["iops"])
    points = [(d, median(x)) for d, x in sorted(depths.items())]
    best = max((x for _, x in points), default=None)
    one = dict(points).get(1)
    return {"lab5_depth_gain_x": ratio(best, one)}, {"lab5-depth": points}


# The strategies of Lab 6's saver that call fsync (the others leave the
# save in the page cache).
FSYNC_STRATEGIES = ("fsync-rename", "safe", "log")


def lab6(rows):
    """The median time per save of the strategies that fsync, and of those
    that do not: a point each, drawn by the storage under the scratch
    directory."""
    per_save = {sync: median(v["us_per_save"] for v in rows
                             if (v["strategy"] in FSYNC_STRATEGIES) == sync) for sync in (0, 1)}
    safe = median(v["us_per_save"] for v in rows if v["strategy"] == "safe")
    rename = median(v["us_per_save"] for v in rows if v["strategy"] == "rename")
    return ({"lab6_safe_us": safe, "lab6_safe_x": ratio(safe, rename)},
            {"lab6-save": [(sync, us) for sync, us in per_save.items() if us is not None]})


# Each lab's measures, from the file its figure draws.
SUMMARIES = {"lab1.csv": lab1, "lab2.csv": lab2, "lab3.csv": lab3,
             "lab4-writers.csv": lab4, "lab5.csv": lab5, "lab5-depth.csv": lab5_depth,
             "lab6-cost.csv": lab6}
# The points of each figure (the names SUMMARIES give them): their columns,
# after the machine's.
POINTS = {
    "lab1-lost": ["lost_pct"],
    "lab2-fflush": ["lines_per_lock", "fflush_x"],
    "lab3-speedup": ["threads", "speedup"],
    "lab3-touch": ["s_per_gib"],
    "lab4-wallcpu": ["fsync", "cpu_s_per_mib", "wall_s_per_mib"],
    "lab5-iops": ["iops"],
    "lab5-depth": ["iodepth", "iops"],
    "lab6-save": ["fsync", "us_per_save"],
    "predictions": ["key", "predicted", "measured"],	# from predictions.md: spec.predictions()
}

# The measures a student is placed by: (key, lab, what, unit, format).
# format: "si" (14.1k), "x" (2.3x), "s" (0.42 s), "us" (1.2 ms, 840 us).
METRICS = [
    ("lab1_unbuffered_x", 1, "unbuffered writes (-b 0) against stdio's default buffer",
     " slower", "x"),
    ("lab2_fflush_k1_x", 2, "fflush before every unlock at K = 1", " the time without", "x"),
    ("lab3_speedup_2", 3, "fill with 2 threads (prefaulted)", " faster than 1", "x"),
    ("lab3_speedup_4", 3, "fill with 4 threads (prefaulted)", " faster than 1", "x"),
    ("lab3_first_touch_s_gib", 3, "first-touch cost of a fill", " per GiB", "s"),
    ("lab4_wall_cpu_fsync_x", 4, "elapsed over CPU time with fsync", "", "x"),
    ("lab5_rr4k_iops", 5, "4K random read (O_DIRECT)", " IOPS", "si"),
    ("lab5_depth_gain_x", 5, "best queue depth against depth 1 (4K random reads)", " the IOPS", "x"),
    ("lab6_safe_us", 6, "safe save (fsync of the file and of its directory)", " per save", "us"),
    ("lab6_safe_x", 6, "safe save against rename without fsync", " the time", "x"),
]


# ------------------------------------------------------------ predictions

# The predictions (predictions.md, handed in) that the class figure
# predictions.png sets against the measurements, by the myth each tests:
# (key, myth, data file, unit, the measurement), the measurement as the
# lab's closing lines compute it (labs/*/labN.sh, lab_end), from the
# submission's own rows of that file.
def _largest_fsync(rows, strategy, value):
    """Lab 4: the median of value over the fsync'd runs of one strategy at
    the largest file count (500 at quick scale)."""
    mine = [v for v in rows if v["fsync"] == 1]
    if not mine:
        return None
    top = max(v["files"] for v in mine)
    return median(v[value] for v in mine if v["strategy"] == strategy and v["files"] == top)


MYTHS = ("threads and one disk", "fflush and durability", "clock() as a stopwatch")
PREDICTIONS = [
    ("P4.1", MYTHS[0], "lab4-writers.csv", "s", lambda rows: _largest_fsync(rows, "per-file", "wall_s")),
    ("P4.3", MYTHS[0], "lab4-writers.csv", "s", lambda rows: _largest_fsync(rows, "seq", "wall_s")),
    ("P2.4", MYTHS[1], "lab2.csv", "s",
     lambda rows: med_wall(rows, experiment="sync", lines_per_lock=100, sync="fsync")),
    ("P6.2", MYTHS[1], "lab6-cost.csv", "us",
     lambda rows: median(v["us_per_save"] for v in rows if v["strategy"] == "safe")),
    ("P6.3", MYTHS[1], "lab6-cost.csv", "us",
     lambda rows: median(v["us_per_save"] for v in rows if v["strategy"] == "inplace")),
    ("P4.2", MYTHS[2], "lab4-writers.csv", "s", lambda rows: _largest_fsync(rows, "per-file", "cpu_s")),
]
# A prediction line, as common/predict.py reads it: "- PN.M what: prediction".
PREDICTION_LINE = re.compile(r"-\s*(P\d+\.\d+)\s+(.*?):\s*(.*)$")
# The first number of a prediction, and the word after it: "0.5 s",
# "about 1,200 us", "2e-3".
PREDICTED_NUMBER = re.compile(
    r"(?<![\w.])((?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?)\s*([A-Za-z\u00b5]*)")
SECONDS = {"s": 1.0, "sec": 1.0, "secs": 1.0, "second": 1.0, "seconds": 1.0,
           "ms": 1e-3, "msec": 1e-3, "us": 1e-6, "\u00b5s": 1e-6, "usec": 1e-6, "ns": 1e-9}


def predicted(text, unit):
    """The number a prediction states, in the unit its line asks for (a
    time written in another unit of time is converted); None when there is
    none, or it is not a positive finite number (a log axis draws it)."""
    m = PREDICTED_NUMBER.search(text)
    if not m:
        return None
    x = float(m.group(1).replace(",", ""))
    said = m.group(2).lower()
    if unit in SECONDS and said in SECONDS:
        x *= SECONDS[said] / SECONDS[unit]
    return x if 0 < x < 1e15 else None


def predictions(text, measured_rows):
    """The predictions of one predictions.md (bytes) beside the submission's
    measurements: ([(key, predicted, measured)], {key: why it is left out}).
    measured_rows: {data file: its rows' values}, the files that were kept."""
    written = {}
    for line in text.decode("utf-8", "replace").splitlines():
        m = PREDICTION_LINE.match(line.strip())
        if m and m.group(1) not in written:
            written[m.group(1)] = m.group(3).strip()
    points, left = [], {}
    for key, _, data, unit, measure in PREDICTIONS:
        if not written.get(key):
            left[key] = "missing"
            continue
        guess = predicted(written[key], unit)
        if guess is None:
            left[key] = "unparseable"
            continue
        got = measure(measured_rows[data]) if data in measured_rows else None
        if got is None or got <= 0:
            left[key] = "not measured"
            continue
        points.append((key, guess, got))
    return points, left
