"""Lab 3 in the class results (make class, grading/classresults): how its
data are read, what each submission adds to the class figure
lab3-threads.png (lab3-threads.gp beside this file) and the measures a
student is placed by."""

from grading.classresults.measures import GIB, MIB, med_of, med_wall, median, rate_agrees, ratio
from grading.classresults.plotdata import TOP_CPUS, caption, categories


def row_check(v, half):
    """v a row's values, half the rounding of its printed wall_s."""
    if v["threads"] < 1 or v["bytes"] < 1:
        return "threads and bytes must be at least 1"
    # --passes N: the fill, the copy and the dump go N times over the buffer
    passes = v.get("passes") or 1
    if not rate_agrees(v["mib_s"], passes * v["bytes"] / MIB, v["wall_s"], half):
        return f"mib_s {v['mib_s']:g} is not bytes / wall_s ({v['wall_s']:g} s)"
    return None


READING = {
    "lab3.csv": dict(config=("threads", "bytes", "rng", "prefault", "pages", "passes", "phase"),
                     check=row_check),
    "lab3-membw.csv": dict(config=("threads", "op", "bytes", "passes")),
}


def summary(rows):
    # 4 KiB pages only, where the lab also runs huge pages
    rows = [v for v in rows if v.get("pages") in (None, "4k")]
    fill = dict(phase="fill", rng="xoshiro")
    one = med_wall(rows, threads=1, prefault=1, **fill)
    speedup = {t: ratio(one, med_wall(rows, threads=t, prefault=1, **fill)) for t in (2, 4)}
    # first touch: a fill of fresh pages (one pass) against one pass over
    # pages already there (the prefaulted fills make --passes N passes)
    first = med_wall(rows, threads=1, prefault=0, **fill)
    again = med_of(rows, lambda v: v["wall_s"] / (v.get("passes") or 1), threads=1, prefault=1, **fill)
    size = median(v["bytes"] for v in rows if v["threads"] == 1 and v["phase"] == "fill")
    touch = (first - again) / (size / GIB) if first is not None and again is not None and size else None
    metrics = {"lab3_speedup_2": speedup[2], "lab3_speedup_4": speedup[4],
               "lab3_first_touch_s_gib": touch}
    points = {"lab3-speedup": [(t, s) for t, s in speedup.items() if s is not None],
              "lab3-touch": [(touch,)] if touch is not None else []}
    return metrics, points


SUMMARIES = {"lab3.csv": summary}
POINTS = {"lab3-speedup": ["threads", "speedup"], "lab3-touch": ["s_per_gib"]}
METRICS = [
    ("lab3_speedup_2", "fill with 2 threads (prefaulted)", " faster than 1", "x"),
    ("lab3_speedup_4", "fill with 4 threads (prefaulted)", " faster than 1", "x"),
    ("lab3_first_touch_s_gib", "first-touch cost of a fill", " per GiB", "s"),
]


def cores_group(cores):
    cores = int(cores)
    return "1-2" if cores <= 2 else "3-4" if cores <= 4 else "5-8" if cores <= 8 else "9+"


def threads(out, counts):
    groups = ["1-2", "3-4", "5-8", "9+"]
    captions = ["", ""]		# an empty caption: that panel has no data, and is not drawn
    if counts["drawn"]["lab3-speedup"]:
        # labels hold no comma: the .dat files are CSV
        categories(out, "lab3-speedup",
                   lambda r: f"{r['threads']} threads / {cores_group(r['cores'])} cores", "speedup",
                   order=lambda c: (int(c.split()[0]), groups.index(c.split(" / ")[1].split()[0])))
        captions[0] = caption(counts, "lab3-speedup", "lab3.csv")
    if counts["drawn"]["lab3-touch"]:
        categories(out, "lab3-touch", lambda r: r["cpu"], "s_per_gib", top=TOP_CPUS,
                   other="other CPUs")
        captions[1] = caption(counts, "lab3-touch", "lab3.csv")
    return captions


FIGURES = [("lab3-threads", ["lab3-speedup", "lab3-touch"], threads)]
