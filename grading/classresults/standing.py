"""Where one submission stands in its class: the lines a grader's feedback
shows once the class has been merged (make class), e.g.

    lab5: your 4K random read (O_DIRECT): 14.1k IOPS, class median 9.8k, 61st percentile of 280

The submission is read and checked exactly as the merge reads it, so data
the merge would leave out are said to be left out instead of placed.
"""

import csv
import os
import statistics

from . import merge, spec

MIN_CLASS = 5		# fewer submissions with a measure place no one


def class_values(class_dir):
    """{metric: [values]} from CLASS/submissions.csv."""
    path = os.path.join(class_dir, "submissions.csv")
    values = {key: [] for key, *_ in spec.METRICS}
    with open(path, newline="", encoding="ascii", errors="replace") as f:
        for row in csv.DictReader(f):
            for key in values:
                if row.get(key):
                    values[key].append(float(row[key]))
    return values


def percentile(value, values):
    """The share of the class below value, ties counted half, in 0-100."""
    below = sum(v < value for v in values)
    equal = sum(v == value for v in values)
    return 100.0 * (below + 0.5 * equal) / len(values)


def ordinal(n):
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def show(value, form):
    if form == "si":
        for scale, letter in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
            if abs(value) >= scale:
                return f"{value / scale:.1f}{letter}"
        return f"{value:.3g}"
    if form == "x":
        return f"{value:.3g}x"
    if form == "us":
        return f"{value / 1000:.3g} ms" if value >= 1000 else f"{value:.3g} us"
    return f"{value:.3g} s"


def percentile_lines(class_dir, submission):
    """Lines placing `submission` (a .tar.gz or a directory, as the merge
    reads them) among the class merged into `class_dir`. Raises OSError
    when the class data cannot be read."""
    name = os.path.basename(os.path.normpath(submission))
    result = merge.process((name, ("path", submission), "", b""))
    if result["reject"]:
        why = result["reject"].replace(name, "submission")
        return [f"class results: your submission could not be read for the class figures: {why}"]
    values = class_values(class_dir)
    lines = []
    for f in spec.FILES:
        if f.name in result["left"]:
            lines.append(f"lab{f.lab}: your data/{f.name} was left out of the class figures: "
                         f"{result['left'][f.name]}")
    for key, lab, what, unit, form in spec.METRICS:
        mine, theirs = result["metrics"].get(key), values[key]
        if mine is None or len(theirs) < MIN_CLASS:
            continue
        p = min(99, max(1, round(percentile(mine, theirs))))
        median = statistics.median(theirs)
        lines.append(f"lab{lab}: your {what}: {show(mine, form)}{unit}, class median "
                     f"{show(median, form)}, {ordinal(p)} percentile of {len(theirs)}")
    return lines
