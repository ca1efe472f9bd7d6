"""The class figures: OUT/plot/*.csv (a few numbers per submission) turned
into what the gnuplot scripts beside this file draw, with captions that
say how many submissions and machines each draws and how many were left
out. Box statistics are computed here: a box per category (quartiles,
min-max whiskers, the median), and every submission as a point beside it.

Nothing read from a submission ever becomes gnuplot code: labels (a CPU
model, a file system) reach gnuplot only as data, and the captions, made
here from counts, as arguments (gnuplot -c).
"""

import csv
import os
import shutil
import statistics
import subprocess

from . import spec

HERE = os.path.dirname(os.path.abspath(__file__))
TOP_CPUS = 12		# CPU models drawn by name; the others together
TOP_FS = 8		# file systems drawn by name


def rows(out, fig):
    path = os.path.join(out, "plot", fig + ".csv")
    with open(path, newline="", encoding="ascii", errors="replace") as f:
        yield from csv.DictReader(f)


def jitter(sub, width=0.5):
    """A spread of points across a category, the same on every run."""
    return (int(sub[:4], 16) / 0xFFFF - 0.5) * width


def box(values):
    values = sorted(values)
    if len(values) >= 2:
        q1, med, q3 = statistics.quantiles(values, n=4, method="inclusive")
    else:
        q1 = med = q3 = values[0]
    return q1, values[0], values[-1], q3, med


def write(out, name, header, table):
    with open(os.path.join(out, "plot", name), "w", newline="", encoding="ascii") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(header)
        w.writerows(table)


def categories(out, fig, category, value, order=None, top=None, other="other"):
    """Box data per category of one figure: writes FIG-boxes.dat (x, label,
    n, q1, min, max, q3, median) and FIG-points.dat (x, value). `order`
    sorts the categories (default: most points first); with `top`, the
    rest are drawn together as `other`."""
    by = {}
    for r in rows(out, fig):
        by.setdefault(category(r), []).append((r["sub"], float(r[value])))
    names = sorted(by, key=order or (lambda c: (-len(by[c]), c)))
    if top and len(names) > top:
        rest = names[top - 1:]
        by[f"{len(rest)} {other}"] = [p for c in rest for p in by.pop(c)]
        names = names[:top - 1] + [f"{len(rest)} {other}"]
    boxes, points = [], []
    for x, name in enumerate(names, start=1):
        vals = by[name]
        boxes.append([x, name, len(vals)] + [f"{s:.6g}" for s in box([v for _, v in vals])])
        points += [[f"{x + jitter(sub):.4f}", f"{v:.6g}"] for sub, v in vals]
    write(out, fig + "-boxes.dat", ["x", "label", "n", "q1", "min", "max", "q3", "median"], boxes)
    write(out, fig + "-points.dat", ["x", "value"], points)
    return len(names)


def caption(counts, fig, lab_file, extra=""):
    drawn = len(counts["drawn"][fig])
    machines = len(counts["machines_drawn"][fig])
    left = counts["left"][lab_file]
    missing = counts["missing"][lab_file]
    text = (f"{drawn} submission{'s' * (drawn != 1)} on {machines} "
            f"machine{'s' * (machines != 1)}{extra}; {left} left out (bad data or unreadable)")
    if missing:
        text += f"; {missing} without {lab_file}"
    return text


def lab1(out, counts):
    lost = [float(r["lost_pct"]) for r in rows(out, "lab1-lost")]
    bins = [0] * 20
    for p in lost:
        bins[min(int(p // 5), 19)] += 1
    write(out, "lab1-lost-bins.dat", ["pct", "count"],
          [[5 * i + 2.5, n] for i, n in enumerate(bins)])
    return [caption(counts, "lab1-lost", "lab1.csv", f", {len(lost)} writer-trials")]


def lab2(out, counts):
    categories(out, "lab2-fflush", lambda r: r["lines_per_lock"], "fflush_x",
               order=lambda k: int(k))
    return [caption(counts, "lab2-fflush", "lab2.csv")]


def cores_group(cores):
    cores = int(cores)
    return "1-2" if cores <= 2 else "3-4" if cores <= 4 else "5-8" if cores <= 8 else "9+"


def lab3(out, counts):
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


def lab4(out, counts):
    return [caption(counts, "lab4-wallcpu", "lab4-writers.csv")]


def lab5(out, counts):
    captions = ["", ""]
    if counts["drawn"]["lab5-iops"]:
        categories(out, "lab5-iops", lambda r: r["scratch_fs"], "iops", top=TOP_FS,
                   other="other file systems")
        captions[0] = caption(counts, "lab5-iops", "lab5.csv")
    if counts["drawn"]["lab5-depth"]:
        categories(out, "lab5-depth", lambda r: r["iodepth"], "iops", order=lambda d: int(d))
        captions[1] = caption(counts, "lab5-depth", "lab5-depth.csv")
    return captions


def lab6(out, counts):
    """Boxes by storage kind, side by side: the saves with fsync (at x +
    0.2) and without (x - 0.2), in lab6-save-boxes.dat (x, sync, q1, min,
    max, q3, median) and lab6-save-points.dat (x, sync, value); the kinds,
    for the tics, in lab6-save-kinds.dat (x, label, n)."""
    by = {}
    for r in rows(out, "lab6-save"):
        by.setdefault(r["storage"], {}).setdefault(int(r["fsync"]), []).append(
            (r["sub"], float(r["us_per_save"])))
    kinds = [k for k in spec.STORAGE_KINDS if k in by] + sorted(set(by) - set(spec.STORAGE_KINDS))
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


def predictions(out, counts):
    """The class's predictions against its measurements, a panel per myth
    (spec.MYTHS): the points as plot/predictions.csv has them (key,
    predicted, measured), and a caption per panel counting, a line per key,
    the predictions drawn and those left out (missing, with no number, or
    without the measurement to set them against)."""
    drawn = {}
    for r in rows(out, "predictions"):
        drawn[r["key"]] = drawn.get(r["key"], 0) + 1
    captions = []
    for myth in spec.MYTHS:
        parts = []
        for key, of, *_ in spec.PREDICTIONS:
            if of == myth:
                left = counts["predicted"][key]
                parts.append(f"{key} {drawn.get(key, 0)} drawn" + "".join(
                    f", {left[why]} {why}" for why in ("missing", "unparseable", "not measured")
                    if left.get(why)))
        captions.append("\n".join(parts))
    return captions


# (figure, its inputs: drawn when one has points, prepare: the captions)
FIGURES = [("lab1-lost", ["lab1-lost"], lab1), ("lab2-fflush", ["lab2-fflush"], lab2),
           ("lab3-threads", ["lab3-speedup", "lab3-touch"], lab3),
           ("lab4-wall-cpu", ["lab4-wallcpu"], lab4),
           ("lab5-iops", ["lab5-iops", "lab5-depth"], lab5),
           ("lab6-fsync", ["lab6-save"], lab6),
           ("predictions", ["predictions"], predictions)]


def draw(out, counts, log=print):
    """Draws every figure that has data; returns the PNGs written."""
    if not shutil.which("gnuplot"):
        raise OSError("gnuplot is not installed (make deps installs it): no figures drawn")
    drawn = []
    for fig, needs, prepare in FIGURES:
        png = os.path.join(out, fig + ".png")
        if not any(counts["drawn"][n] for n in needs):
            log(f"no figure {fig}.png: no submission has its data")
            if os.path.exists(png):
                os.unlink(png)
            continue
        captions = prepare(out, counts)
        tmp = png + ".tmp"
        run = subprocess.run(["gnuplot", "-c", os.path.join(HERE, fig + ".gp"), tmp, *captions],
                             cwd=os.path.join(out, "plot"), capture_output=True, text=True)
        if run.returncode != 0 or not os.path.exists(tmp):
            raise OSError(f"gnuplot failed on {fig}.gp: {run.stderr.strip()[-400:]}")
        os.replace(tmp, png)
        drawn.append(png)
        log(f"drew {png}: {' / '.join(c.replace(chr(10), '; ') for c in captions if c)}")
    return drawn
