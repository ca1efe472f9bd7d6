"""Lab 4 in the class results (make class, grading/classresults): how its
data are read, what each submission adds to the class figure
lab4-wall-cpu.png (lab4-wall-cpu.gp beside this file) and the measure a
student is placed by."""

from grading.classresults.measures import MIB, MYTHS, median, rate_agrees
from grading.classresults.plotdata import caption


def writers_check(v, half):
    """v a row's values, half the rounding of its printed wall_s."""
    total = v["files"] * v["bytes_per_file"]
    if v["files"] < 1:
        return "files must be at least 1"
    if not rate_agrees(v["mib_s"], total / MIB, v["wall_s"], half):
        return "mib_s is not files * bytes_per_file / wall_s"
    return None


READING = {
    "lab4-writers.csv": dict(config=("strategy", "threads", "files", "bytes_per_file", "fsync", "append"),
                             check=writers_check),
    "lab4-datagen.csv": dict(config=("mode", "records")),
}


def summary(rows):
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


SUMMARIES = {"lab4-writers.csv": summary}
POINTS = {"lab4-wallcpu": ["fsync", "cpu_s_per_mib", "wall_s_per_mib"]}
METRICS = [("lab4_wall_cpu_fsync_x", "elapsed over CPU time with fsync", "", "x")]


def wall_cpu(out, counts):
    return [caption(counts, "lab4-wallcpu", "lab4-writers.csv")]


FIGURES = [("lab4-wall-cpu", ["lab4-wallcpu"], wall_cpu)]


def largest_fsync(rows, strategy, value):
    """The median of value over the fsync'd runs of one strategy at the
    largest file count (500 at quick scale)."""
    mine = [v for v in rows if v["fsync"] == 1]
    if not mine:
        return None
    top = max(v["files"] for v in mine)
    return median(v[value] for v in mine if v["strategy"] == strategy and v["files"] == top)


# The lines of predictions.md that the class figure predictions.png sets
# against the measurements, as the lab's closing lines compute them:
# (key, myth, data file, unit, the measurement from its rows).
PREDICTIONS = [
    ("P4.1", MYTHS[0], "lab4-writers.csv", "s", lambda rows: largest_fsync(rows, "per-file", "wall_s")),
    ("P4.2", MYTHS[2], "lab4-writers.csv", "s", lambda rows: largest_fsync(rows, "per-file", "cpu_s")),
    ("P4.3", MYTHS[0], "lab4-writers.csv", "s", lambda rows: largest_fsync(rows, "seq", "wall_s")),
]
