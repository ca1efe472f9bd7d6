"""What a lab's reference answers (grading/labN/answers.md) quote from its
reference run (grading/labN/reference-run/): the medians its closing tables
print, in their format. Used by grading/labN/tests/answers-labN.bats
through answers.bash's quoted."""

import csv
import math
import os
import re
import statistics

from common.table import number    # the closing tables' format: 4 significant digits

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def reference(lab, name):
    """The path of the file NAME of Lab LAB's reference run."""
    return os.path.join(ROOT, "grading", f"lab{lab}", "reference-run", name)


def answer(lab, q):
    """Question Q's answer in Lab LAB's reference answers, on one line."""
    with open(os.path.join(ROOT, "grading", f"lab{lab}", "answers.md")) as f:
        m = re.search(rf"^## {re.escape(q)}\n(.*?)(?=^## |\Z)", f.read(), re.S | re.M)
    return " ".join(m.group(1).split())


def med(lab, name, value, **where):
    """The median of VALUE (a column, or a product of columns over 1e6)
    over the rows of the reference run's NAME that match every COL=VALUE,
    as the closing tables print it."""
    with open(reference(lab, name), newline="") as f:
        rows = [r for r in csv.DictReader(f) if all(r[k] == str(v) for k, v in where.items())]
    assert rows, (name, where)
    cols = value.split("*")
    return number(statistics.median(math.prod(float(r[c]) for c in cols) / (1e6 if len(cols) > 1 else 1)
                                    for r in rows))


def missing(lab, want):
    """want: {question: [texts its answer must quote]}; raises naming those
    it does not."""
    gone = [f"{q}: '{text}'" for q, texts in want.items() for text in texts if text not in answer(lab, q)]
    assert not gone, "not in the answers:\n" + "\n".join(gone)
