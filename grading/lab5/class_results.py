"""Lab 5 in the class results (make class, grading/classresults): how its
data are read, what each submission adds to the class figure lab5-iops.png
(lab5-iops.gp beside this file) and the measures a student is placed by."""

from grading.classresults.measures import MIB, median, rate_agrees, ratio
from grading.classresults.plotdata import TOP_FS, caption, categories


def row_check(v, half):
    """v a row's values, half the rounding of its printed wall_s."""
    if v["ios"] < 1:
        return "ios must be at least 1: every trial does I/O"
    if not rate_agrees(v["iops"], v["ios"], v["wall_s"], half, absolute=1):
        return f"iops {v['iops']:g} is not ios / wall_s ({v['wall_s']:g} s)"
    if not rate_agrees(v["mib_s"], v["bytes"] / MIB, v["wall_s"], half):
        return "mib_s is not bytes / wall_s"
    if v["ios"] > 0 and v["bytes"] == 0:
        return "ios without bytes"
    return None


READING = {
    "lab5.csv": dict(config=("experiment", "series", "op", "pattern", "io_bytes", "stride_bytes",
                             "direct", "cold", "sync"), check=row_check),
    # several I/Os in flight (io_uring depth, threads of pread)
    "lab5-depth.csv": dict(config=("experiment", "series", "op", "pattern", "io_bytes", "direct", "iodepth",
                                   "jobs"), check=row_check),
}


def random_4k_direct(v):
    """A 4 KiB O_DIRECT random read from one thread."""
    return (v["op"] == "read" and v["pattern"] == "random" and v["io_bytes"] == 4096
            and v["direct"] == 1 and v.get("jobs") in (None, 1))


def summary(rows):
    iops = median(v["iops"] for v in rows if random_4k_direct(v) and v["iops"] > 0	# a log axis
                  and v["experiment"] == "random-read" and v.get("iodepth") in (None, 1))
    return {"lab5_rr4k_iops": iops}, {"lab5-iops": [(iops,)] if iops is not None else []}


def depth_summary(rows):
    depths = {}
    for v in rows:
        if random_4k_direct(v) and v["iodepth"] >= 1 and v["iops"] > 0:	# 0: synchronous pread, no queue
            depths.setdefault(v["iodepth"], []).append(v["iops"])
    points = [(d, median(x)) for d, x in sorted(depths.items())]
    best = max((x for _, x in points), default=None)
    one = dict(points).get(1)
    return {"lab5_depth_gain_x": ratio(best, one)}, {"lab5-depth": points}


SUMMARIES = {"lab5.csv": summary, "lab5-depth.csv": depth_summary}
POINTS = {"lab5-iops": ["iops"], "lab5-depth": ["iodepth", "iops"]}
METRICS = [
    ("lab5_rr4k_iops", "4K random read (O_DIRECT)", " IOPS", "si"),
    ("lab5_depth_gain_x", "best queue depth against depth 1 (4K random reads)", " the IOPS", "x"),
]


def iops(out, counts):
    captions = ["", ""]
    if counts["drawn"]["lab5-iops"]:
        categories(out, "lab5-iops", lambda r: r["scratch_fs"], "iops", top=TOP_FS,
                   other="other file systems")
        captions[0] = caption(counts, "lab5-iops", "lab5.csv")
    if counts["drawn"]["lab5-depth"]:
        categories(out, "lab5-depth", lambda r: r["iodepth"], "iops", order=lambda d: int(d))
        captions[1] = caption(counts, "lab5-depth", "lab5-depth.csv")
    return captions


FIGURES = [("lab5-iops", ["lab5-iops", "lab5-depth"], iops)]
