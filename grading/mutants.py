"""mutants.py - proves the grader's verdicts: every known-wrong program a
lab module lists in MUTANTS must lose the points of the check aimed at it
in every grading.

    python3 grading/mutants.py [--labs 1,2] [--only NAME,...] [--times 10] [-j JOBS] [-- GRADE_OPTIONS]
    python3 grading/mutants.py --labs N --apply NAME DIR

For each mutant a copy of the kit's labs/ gets the one edit, and grade.sh grades the targeted
check --times times, each with new random inputs.  Prints a line per
mutant, "MUTANT name: caught N/N", and exits 1 unless every one was
caught every time.  A mutant names its check by the @check function
(kills=together), resolved here to the check's title.  --apply makes one
mutant's edit in a copy of a submission, for a test that reads what the
grader says of it (grading/lab2/tests/grade-lab2.bats), and grades nothing.
"""

import argparse
import concurrent.futures
import importlib
import os
import re
import shutil
import subprocess
import sys
import tempfile

if __name__ == "__main__":  # run as a file: the kit's root in place of this folder (see grade.py)
    HERE = os.path.dirname(os.path.realpath(__file__))
    sys.path[0:1 if sys.path and os.path.realpath(sys.path[0]) == HERE else 0] = [os.path.dirname(HERE)]
from grading import discover  # noqa: E402
from grading.gradelib import KIT  # noqa: E402


def mutants(labs):
    """[(lab, mutant, the title of the check it must fail)] of these labs:
    a mutant names its check by the @check function, so a check renamed
    keeps its mutants, and one that names no check of its lab stops here."""
    checks = discover.load(labs)[0]
    todo = []
    for lab in labs:
        titles = {c.fn: c.title for c in checks if c.lab == lab}
        for m in importlib.import_module(f"grading.lab{lab}.checks").MUTANTS:
            if m.kills not in titles:
                sys.exit(f"mutants.py: mutant {m.name} of {discover.rubric_module(lab)} kills {m.kills!r}, "
                         f"not a @check function of lab {lab}")
            todo.append((lab, m, titles[m.kills]))
    return todo


def apply(m, sub):
    """Makes the mutant's edit in the submission (or kit copy) sub: None, or
    why it cannot (an old text not in the file exactly once)."""
    path = os.path.join(sub, m.file)
    with open(path) as f:
        text = f.read()
    stale = [old for old, _ in m.edits if text.count(old) != 1]
    if stale:
        return f"'{stale[0]}' is not in {m.file} exactly once"
    for old, new in m.edits:
        text = text.replace(old, new)
    with open(path, "w") as f:
        f.write(text)
    return None


def grade_mutant(lab, m, title, times, grade_options):
    """Grades mutant m of lab times times, on the check titled title:
    (caught, the lines to print)."""
    with tempfile.TemporaryDirectory() as tmp:
        sub = os.path.join(tmp, "sub")
        shutil.copytree(os.path.join(KIT, "labs"), os.path.join(sub, "labs"))
        why = apply(m, sub)
        if why:
            return False, [f"MUTANT {m.name}: {why}"]
        p = subprocess.run([sys.executable, "-I", "-B", discover.GRADE, "--labs",
                            str(lab), "--only", title, "--repeat", str(times),
                            *grade_options, sub], capture_output=True, text=True)
        out = p.stdout
    caught = out.count(f"lab{lab}: {title}: FAIL ")
    passed = out.count(f"lab{lab}: {title}: PASS ")
    builds_ok = "build" not in "".join(line for line in out.splitlines() if ": FAIL " in line)
    ok = caught == times and passed == 0 and builds_ok
    lines = [f"MUTANT {m.name}: caught {caught}/{times}" + ("" if ok else "  <-- NOT CAUGHT")]
    if not ok:
        # why: the grader's own notes and a failed build's lines (its first
        # ones, above the checks that could not run), then the end
        said = (out + p.stderr).splitlines()
        why = [i for i, line in enumerate(said)
               if line.startswith("grade.sh:") or (": build " in line and ": FAIL " in line)]
        lines += ["    " + line for i in why[:3] for line in said[i:i + 4]]
        lines += ["    " + line for line in said[-12:]]
    return ok, lines


def main():
    p = argparse.ArgumentParser(description="grade every mutant of the labs")
    p.add_argument("--labs", default=",".join(map(str, discover.kit_labs())))
    p.add_argument("--only", help="these mutants (names, comma-separated), not every one of the labs")
    p.add_argument("--times", type=int, default=10)
    p.add_argument("-j", "--jobs", type=int, default=1, help="mutants graded at the same time")
    p.add_argument("--apply", nargs=2, metavar=("NAME", "DIR"),
                   help="grade nothing: make mutant NAME's edit in DIR, a copy of the kit or a submission")
    p.add_argument("grade_options", nargs="*", help="passed on to grade.sh (after --)")
    args = p.parse_args()
    missing = discover.kit_missing()
    if missing:
        sys.exit(f"mutants.py: {missing}")
    if not re.fullmatch(r"[1-9](,[1-9])*", args.labs):
        p.error(f"--labs: '{args.labs}' is not a list like 1,2")
    labs = sorted({int(x) for x in args.labs.split(",")})
    if set(labs) - set(discover.kit_labs()):
        p.error(f"--labs: there is no lab {min(set(labs) - set(discover.kit_labs()))}")
    todo = mutants(labs)
    if args.only or args.apply:
        names = args.only.split(",") if args.only else [args.apply[0]]
        unknown = set(names) - {m.name for _, m, _ in todo}
        if unknown:
            p.error(f"no mutant {', '.join(sorted(unknown))} in labs {args.labs}")
        todo = [job for job in todo if job[1].name in names]
    if args.apply:
        why = apply(todo[0][1], args.apply[1])
        if why:
            print(f"mutants.py: {why}", file=sys.stderr)
            return 1
        return 0
    missed = 0
    # Each grading is its own grade.py process: threads only wait for them.
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for ok, lines in pool.map(lambda job: grade_mutant(*job, args.times, args.grade_options), todo):
            missed += not ok
            print("\n".join(lines), flush=True)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
