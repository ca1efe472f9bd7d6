"""What the class results read from each lab's data, in one place.

Which data files are merged, their columns, the kind of value each must
hold and which the figures and checks need (a file without one is left
out) are the labs' declarations, labs/N-topic/columns.csv, read here into
FILES (a lab script may add columns, which are ignored, or reorder them).
The rest is each lab's own, in grading/labN/class_results.py, gathered
here: how its files are read (READING: what makes a configuration, for
the forged-trials check, and how one row can be impossible), what it
contributes per submission (SUMMARIES: the points of its class figures,
with their columns in POINTS; METRICS: the one-number measures a student
is placed by, with the lab), its class figures (FIGURES) and its lines of
predictions.md (PREDICTIONS). A lab without that module is merged with no
configuration, no row check and no figure. The labs the class results
know are the labs whose files are merged (LABS).
"""

import glob
import importlib
import os
import re
import sys

from common import columns
from common.predict import prediction_line

from . import measures
from .values import Bad

# For a file whose lab declares no trials rule (labs/N-topic/trials.csv):
# times below this are too close to the CSV's resolution (microseconds) for
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


class DataFile:
    def __init__(self, name, lab, columns, config=(), check=None, timing=None, trials=None):
        self.name, self.lab, self.check = name, lab, check
        # (name, kind, required); kind ends in '?' when the field may be empty
        self.columns = [(c, k, use == "need") for c, k, use in columns]
        # the lab's declared trials rule (common/columns.Trials), whose
        # configuration and measured column replace config and timing
        self.trials = trials
        if trials:
            config, timing = trials.configuration, (trials.measured,)
        self.config = config	# columns that make a configuration (trial and writer excluded)
        # what a trial measured: equal in every trial of a configuration, a
        # forgery; the first, in a run of rows two submissions share, a copy.
        # By default its wall_s; nothing in a file without one (a lab's
        # counts only)
        if timing is None:
            timing = ("wall_s",) if "wall_s" in self.column_names else ()
        self.timing = timing
        # a reading of columns the lab does not merge would switch its checks
        # off without a word (a timed file's trials need their wall_s too)
        wanted = {*config, *timing, *(("wall_s",) if timing else ())}
        unread = sorted(c for c in wanted if c not in self.column_names)
        if unread:
            by = f"labs/{lab}-*/trials.csv" if trials else f"grading/lab{lab}/class_results.py"
            raise ValueError(f"{by} reads {name} by {', '.join(unread)}, "
                             f"which labs/{lab}-*/columns.csv does not declare with class need or keep")

    @property
    def column_names(self):
        return [c for c, _, _ in self.columns]


def half_unit(text):
    """Half the last printed digit of a number as the CSV wrote it: the
    most its rounding moved it ("0.000012" -> 5e-7, "2e-06" -> 5e-7), never
    more than half a unit ("0e5" is taken as precise as "0": an exponent
    would otherwise make the rows' own checks say nothing)."""
    m = re.fullmatch(r"[0-9]*(?:\.([0-9]*))?(?:[eE]([-+]?[0-9]+))?", text)
    if not m:
        return 0.0
    return min(0.5, 0.5 * 10.0 ** (int(m.group(2) or 0) - len(m.group(1) or "")))


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


KIT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def lab_modules():
    """{lab: its grading/labN/class_results.py, imported}, for the labs
    that have one."""
    found = {}
    for path in sorted(glob.glob(os.path.join(KIT, "grading", "lab[1-9]", "class_results.py"))):
        lab = int(os.path.basename(os.path.dirname(path))[3:])
        found[lab] = importlib.import_module(f"grading.lab{lab}.class_results")
    return found


MODULES = lab_modules()


def gathered(name, default):
    """What every lab's module declares under name (each may leave it out)."""
    return [(lab, getattr(m, name, default)) for lab, m in MODULES.items()]


READING = {name: how for _, of in gathered("READING", {}) for name, how in of.items()}
SUMMARIES = {name: fn for _, of in gathered("SUMMARIES", {}) for name, fn in of.items()}
# The points of each figure (the names SUMMARIES give them): their columns,
# after the machine's.
POINTS = {fig: cols for _, of in gathered("POINTS", {}) for fig, cols in of.items()}
POINTS["predictions"] = ["key", "predicted", "measured"]	# from predictions.md: predictions()
# The measures a student is placed by: (key, lab, what, unit, format).
# format: "si" (14.1k), "x" (2.3x), "s" (0.42 s), "us" (1.2 ms, 840 us).
METRICS = [(key, lab, *rest) for lab, of in gathered("METRICS", []) for key, *rest in of]
# The class figures: (figure, its inputs (POINTS: drawn when one has
# points), prepare(out, counts): its data files and captions, its gnuplot
# script, FIGURE.gp beside the lab's module).
FIGURES = [(fig, needs, prepare, os.path.join(KIT, "grading", f"lab{lab}", fig + ".gp"))
           for lab, of in gathered("FIGURES", []) for fig, needs, prepare in of]
try:
    TRIALS = columns.declared_trials(KIT)
    FILES = [DataFile(name, lab, [(c.name, c.kind, c.use) for c in cols if c.use], trials=TRIALS.get(name),
                      **READING.get(name, {}))
             for name, (lab, cols) in columns.declared(KIT).items() if any(c.use for c in cols)]
except ValueError as e:	# the kit's fault: one line, for make class and grade.sh --class-data
    sys.exit(str(e))
BY_NAME = {f.name: f for f in FILES}
LABS = sorted({f.lab for f in FILES})


def storage(machine):
    """The kind of storage under a submission's scratch directory."""
    kind = machine.get("scratch_dir_storage", "").split(" ")[0]
    return kind if kind in measures.STORAGE_KINDS else "unknown"


def check_file(spec, rows):
    """Rows that cannot be (their own columns disagree at the precision
    printed, or a rate past what any machine reaches), and forged trials:
    every trial of one configuration with exactly the same time; for a file
    whose lab declares its trials (spec.trials), a measured value out of
    the declared bounds too. Raises Bad."""
    times = {}
    # a check is given half the rounding of the row's wall_s, 0 in a file
    # with no time (a lab's counts only), which has no trial to forge either
    wall = spec.column_names.index("wall_s") if "wall_s" in spec.column_names else None
    for line, (v, raw) in enumerate(rows, start=2):
        half = half_unit(raw[wall]) if wall is not None else 0.0
        why = spec.check(v, half) if spec.check else None
        why = why or physical(v)
        if why:
            raise Bad(f"{spec.name} line {line}: {why}")
        if spec.timing and not spec.trials:
            times.setdefault(tuple(v.get(c) for c in spec.config), []).append(
                (v["wall_s"], tuple(v[c] for c in spec.timing)))
    if spec.trials:
        parsed = [v for v, _ in rows]
        why = columns.out_of_bounds(parsed, spec.trials) or columns.forged(parsed, spec.trials)
        if why:
            raise Bad(why)
    for conf, trials in times.items():
        if len(trials) >= FORGE_MIN_SAMPLES and trials[0][0] >= FORGE_MIN_SECONDS \
                and all(t == trials[0] for t in trials):
            named = ", ".join(f"{c}={x}" for c, x in zip(spec.config, conf) if x is not None)
            took = (f"{trials[0][0]:g} s" if spec.timing == ("wall_s",) else
                    ", ".join(f"{c} {x:g}" for c, x in zip(spec.timing, trials[0][1])))
            raise Bad(f"{spec.name}: all {len(trials)} trials of {named} took exactly "
                      f"{took}: not measured")


# ------------------------------------------------------------ predictions

# The predictions (predictions.md, handed in) that the class figure
# predictions.png sets against the measurements, a panel per myth
# (measures.MYTHS): (key, myth, data file, unit, the measurement), each
# lab's own (its class_results.py), in key order.
PREDICTIONS = sorted((p for _, of in gathered("PREDICTIONS", []) for p in of),
                     key=lambda p: [int(x) for x in p[0][1:].split(".")])
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
        p = prediction_line(line)	# as the lab reads it
        if p and p[0] not in written:
            written[p[0]] = p[2].strip()
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
