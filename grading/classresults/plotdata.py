"""What a class figure's gnuplot script reads, made from OUT/plot/*.csv (a
few numbers per submission, as the merge wrote them): box statistics per
category (quartiles, min-max whiskers, the median) with every submission
as a point beside its box, and the captions that count what is drawn.
A lab's class figure (grading/labN/class_results.py) is made with these."""

import csv
import os
import statistics

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
    groups = [(name, by[name]) for name in names]
    if top and len(groups) > top:
        # the rest as one group, apart from the categories: a CPU model
        # named "4 other CPUs" is one more category, not this group
        rest = groups[top - 1:]
        groups = groups[:top - 1] + [(f"{len(rest)} {other}", [p for _, vals in rest for p in vals])]
    boxes, points = [], []
    for x, (name, vals) in enumerate(groups, start=1):
        boxes.append([x, name, len(vals)] + [f"{s:.6g}" for s in box([v for _, v in vals])])
        points += [[f"{x + jitter(sub):.4f}", f"{v:.6g}"] for sub, v in vals]
    write(out, fig + "-boxes.dat", ["x", "label", "n", "q1", "min", "max", "q3", "median"], boxes)
    write(out, fig + "-points.dat", ["x", "value"], points)
    return len(groups)


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
