"""discover.py - the labs this kit grades, found from the tree (a
labs/N-name folder with its grading/labN/checks.py), what a lab folder
lacks to be graded, the labs a handin names (labs.txt), and the checks of
a set of labs in rubric order (load)."""

import importlib
import os
import re

from grading import gradelib, sandbox
from grading.gradelib import KIT, Check, clean
from grading.standard import (BUILD_BUDGET, BUILD_LIMIT, answers_check, build_check, columns_check,
                              figures_check, machine_check)

PROG = "grade.sh"
# the grader's entry, which --batch, mutants.py and lessons.py run as a process
# of its own for each grading
GRADE = os.path.join(KIT, "grading", "grade.py")


def rubric_module(lab):
    """Lab N's grader module, its rubric: grading/labN/checks.py (beside it
    in grading/labN/, everything else the grader has for the lab)."""
    return os.path.join("grading", f"lab{lab}", "checks.py")


def kit_labs():
    """The labs this kit grades: a labs/N-name folder with its grading/labN/checks.py."""
    return sorted(int(d[0]) for d in os.listdir(os.path.join(KIT, "labs"))
                  if re.fullmatch(r"[1-9]-.+", d) and os.path.isfile(os.path.join(KIT, rubric_module(d[0]))))


def kit_missing():
    """What a lab folder of this kit lacks to be graded, as one line, or
    None: every labs/N-name needs its grader module grading/labN/checks.py, its
    page README.md opening "# Lab N:" and the declaration of its CSVs,
    columns.csv (docs/adding-a-lab.md lists the rest)."""
    try:
        folders = sorted(os.listdir(os.path.join(KIT, "labs")))
    except OSError as e:
        return f"{clean(os.path.join(KIT, 'labs'))}: {e.strerror}: the kit is incomplete"
    for d in folders:
        if not re.fullmatch(r"[1-9]-.+", d):
            continue
        if not os.path.isfile(os.path.join(KIT, rubric_module(d[0]))):
            return f"labs/{d} has no grader module {rubric_module(d[0])} (see docs/adding-a-lab.md)"
        try:
            with open(os.path.join(KIT, "labs", d, "README.md"), encoding="utf-8") as f:
                page = f.read()
        except OSError:
            page = ""
        if not page.startswith(f"# Lab {d[0]}:"):
            return f"labs/{d} has no page README.md opening '# Lab {d[0]}:' (see docs/adding-a-lab.md)"
        if not os.path.isfile(os.path.join(KIT, "labs", d, "columns.csv")):
            return f"labs/{d} has no columns.csv declaring the columns of its CSVs (see docs/adding-a-lab.md)"
    try:
        gradelib.kit_declared()
    except ValueError as e:
        return str(e)
    return None


def lab_dir(lab):
    return next(d for d in os.listdir(os.path.join(KIT, "labs")) if d.startswith(f"{lab}-"))


def kit_programs(lab):
    d = lab_dir(lab)
    return sorted(f"labs/{d}/{f}" for f in os.listdir(os.path.join(KIT, "labs", d)) if f.endswith(".c"))


def load(labs):
    """The checks of these labs, in order: each lab's builds, its own
    checks (grading/labN/checks.py), the columns of its CSVs (those its
    columns.csv declares), figures and answers (the rows its STANDARD
    declares, with their points); then the machine description."""
    checks, modules = [], {}
    build_time = {"left": BUILD_BUDGET}
    for lab in sorted(set(labs)):   # each lab once, whatever asked for it twice
        gradelib._current_lab[0] = lab
        first = len(gradelib.CHECKS)
        module = importlib.import_module(f"grading.lab{lab}.checks")
        modules[lab] = module
        own = gradelib.CHECKS[first:]
        # the system calls beyond the filter's list its programs make, each with why
        calls = tuple(getattr(module, "SYSTEM_CALLS", {}))
        for name in calls:
            if name not in sandbox.ON_REQUEST:
                raise SystemExit(f"{PROG}: {rubric_module(lab)}'s SYSTEM_CALLS names {name}, which the "
                                 f"sandbox does not grant (grading/sandbox.py's ON_REQUEST)")
        for c in own:
            c.calls = calls
        std = getattr(module, "STANDARD", None)
        if not isinstance(std, gradelib.Standard):
            raise SystemExit(f"{PROG}: {rubric_module(lab)} declares no STANDARD = standard(build=..., "
                             "columns=..., figures=...) (see docs/adding-a-lab.md)")
        for src in kit_programs(lab):
            prog = os.path.basename(src)[:-2]
            checks.append(Check(lab, std.build, f"build {prog}", build_check(prog, src, build_time), (),
                                BUILD_LIMIT))
        checks += own
        for name, (of, columns) in gradelib.kit_declared().items():
            if of == lab:
                checks.append(Check(lab, std.columns, f"data/{name} has the declared columns",
                                    columns_check(lab, f"data/{name}", [c.name for c in columns]), (), 30))
        checks.append(Check(lab, std.figures, f"figures: the kit's plot/lab{lab}-*.gp draw your data",
                            figures_check(lab), (), 60))
        # 0 points: eight words of lorem ipsum would earn them; the row
        # tells the hand grader which questions have no answer
        checks.append(Check(lab, 0, f"answers to Q{lab}.x present (for the hand grader)",
                            answers_check(module.QUESTIONS), (), 30))
    checks.append(Check(None, 1, "data/machine.txt describes the machine", machine_check, (), 30))
    return checks, modules


def labs_txt(data, known):
    """(labs, notes): the set of labs of known that labs.txt's bytes name,
    sorted, or None where it names none; and a line for the report per
    thing ignored (a repeat, a lab the kit lacks, anything else)."""
    text = data[:200].decode("ascii", "replace").strip()
    labs, notes = [], []
    for item in (i for i in re.split(r"[,\s]+", text) if i):
        if not re.fullmatch(r"[0-9]{1,3}", item):
            notes.append(f"labs.txt: '{clean(item, 20)}' is not a lab number: ignored")
        elif int(item) not in known:
            notes.append(f"labs.txt: this course has no lab {int(item)}: ignored")
        elif int(item) in labs:
            notes.append(f"labs.txt: lab {int(item)} named again: graded once")
        else:
            labs.append(int(item))
    if len(data) > 200:
        notes.append("labs.txt: more than 200 bytes: the rest ignored")
    if not labs:
        notes.append(f"labs.txt names no lab of this course: every lab graded ({','.join(map(str, known))})")
    return (sorted(labs) or None), list(dict.fromkeys(notes))[:10]


def labs_of(sub):
    """The labs make handin packed, from the handin's labs.txt, as
    labs_txt() reads them; (None, []) where there is no labs.txt."""
    path = os.path.join(sub, "labs.txt")
    if not os.path.isfile(path) or os.path.islink(path):
        return None, []
    with open(path, "rb") as f:
        return labs_txt(f.read(201), kit_labs())
