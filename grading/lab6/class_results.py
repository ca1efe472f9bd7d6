"""Lab 6 in the class results (make class, grading/classresults): how its
data are read, what each submission adds to the class figure
lab6-fsync.png (lab6-fsync.gp beside this file) and the measures a
student is placed by. lab6-states.csv, the same on every machine, is not
merged."""

from grading.classresults.measures import MYTHS, STORAGE_KINDS, median, ratio
from grading.classresults.plotdata import box, caption, jitter, rows, write


def row_check(v, half):
    """v a row's values, half the rounding of its printed wall_s."""
    if v["saves"] < 1:
        return "saves must be at least 1"
    # wall_s printed to the microsecond, us_per_save to the nanosecond
    low, high = ((v["wall_s"] + d) * 1e6 / v["saves"] for d in (-half, half))
    if not low * 0.98 - 0.001 <= v["us_per_save"] <= high * 1.02 + 0.001:
        return (f"us_per_save {v['us_per_save']:g} is not wall_s / saves "
                f"({v['wall_s']:g} s, {v['saves']} saves)")
    return None


# A row's check. What makes a configuration, the measured column (a
# trial's us_per_save: wall_s is about the same in every trial, each saves
# for --ms MS), its bounds and the trials rule: labs/6-fsync/trials.csv.
READING = {"lab6-cost.csv": dict(check=row_check)}

# The strategies of Lab 6's saver that call fsync (the others leave the
# save in the page cache).
FSYNC_STRATEGIES = ("fsync-rename", "safe", "log")


def summary(rows):
    """The median time per save of the strategies that fsync, and of those
    that do not: a point each, drawn by the storage under the scratch
    directory."""
    per_save = {sync: median(v["us_per_save"] for v in rows
                             if (v["strategy"] in FSYNC_STRATEGIES) == sync) for sync in (0, 1)}
    safe = median(v["us_per_save"] for v in rows if v["strategy"] == "safe")
    rename = median(v["us_per_save"] for v in rows if v["strategy"] == "rename")
    return ({"lab6_safe_us": safe, "lab6_safe_x": ratio(safe, rename)},
            {"lab6-save": [(sync, us) for sync, us in per_save.items() if us is not None]})


SUMMARIES = {"lab6-cost.csv": summary}
POINTS = {"lab6-save": ["fsync", "us_per_save"]}
METRICS = [
    ("lab6_safe_us", "safe save (fsync of the file and of its directory)", " per save", "us"),
    ("lab6_safe_x", "safe save against rename without fsync", " the time", "x"),
]


def fsync(out, counts):
    """Boxes by storage kind, side by side: the saves with fsync (at x +
    0.2) and without (x - 0.2), in lab6-save-boxes.dat (x, sync, q1, min,
    max, q3, median) and lab6-save-points.dat (x, sync, value); the kinds,
    for the tics, in lab6-save-kinds.dat (x, label, n)."""
    by = {}
    for r in rows(out, "lab6-save"):
        by.setdefault(r["storage"], {}).setdefault(int(r["fsync"]), []).append(
            (r["sub"], float(r["us_per_save"])))
    kinds = [k for k in STORAGE_KINDS if k in by] + sorted(set(by) - set(STORAGE_KINDS))
    tics, boxes, points = [], [], []
    for x, kind in enumerate(kinds, start=1):
        tics.append([x, kind, len({sub for vals in by[kind].values() for sub, _ in vals})])
        for sync, vals in sorted(by[kind].items()):
            at = x + (0.2 if sync else -0.2)
            boxes.append([f"{at:.1f}", sync] + [f"{s:.6g}" for s in box([v for _, v in vals])])
            points += [[f"{at + jitter(sub, 0.3):.4f}", sync, f"{v:.6g}"] for sub, v in vals]
    write(out, "lab6-save-kinds.dat", ["x", "label", "n"], tics)
    write(out, "lab6-save-boxes.dat", ["x", "sync", "q1", "min", "max", "q3", "median"], boxes)
    write(out, "lab6-save-points.dat", ["x", "sync", "value"], points)
    return [caption(counts, "lab6-save", "lab6-cost.csv", f", {len(kinds)} kinds of storage")]


FIGURES = [("lab6-fsync", ["lab6-save"], fsync)]

# The lines of predictions.md that the class figure predictions.png sets
# against the measurements, as the lab's closing lines compute them:
# (key, myth, data file, unit, the measurement from its rows).
PREDICTIONS = [
    ("P6.2", MYTHS[1], "lab6-cost.csv", "us",
     lambda rows: median(v["us_per_save"] for v in rows if v["strategy"] == "safe")),
    ("P6.3", MYTHS[1], "lab6-cost.csv", "us",
     lambda rows: median(v["us_per_save"] for v in rows if v["strategy"] == "inplace")),
]
