"""mutants.py - proves the grader's verdicts: every known-wrong program a
lab module lists in MUTANTS must lose the points of the check aimed at it
in every grading.

    python3 grading/mutants.py [--labs 1,2] [--only NAME,...] [--times 10] [-j JOBS] [-- GRADE_OPTIONS]

For each mutant a copy of the kit's labs/ gets the one edit, and grade.sh grades the targeted
check --times times, each with new random inputs.  Prints a line per
mutant, "MUTANT name: caught N/N", and exits 1 unless every one was
caught every time.
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

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import grade  # noqa: E402


def grade_mutant(lab, m, times, grade_options):
    """Grades mutant m of lab times times: (caught, the lines to print)."""
    with tempfile.TemporaryDirectory() as tmp:
        sub = os.path.join(tmp, "sub")
        shutil.copytree(os.path.join(grade.KIT, "labs"), os.path.join(sub, "labs"))
        path = os.path.join(sub, m.file)
        with open(path) as f:
            text = f.read()
        stale = [old for old, _ in m.edits if text.count(old) != 1]
        if stale:
            return False, [f"MUTANT {m.name}: '{stale[0]}' is not in {m.file} exactly once"]
        for old, new in m.edits:
            text = text.replace(old, new)
        with open(path, "w") as f:
            f.write(text)
        p = subprocess.run([sys.executable, "-I", "-B", os.path.join(HERE, "grade.py"), "--labs",
                            str(lab), "--only", m.kills, "--repeat", str(times),
                            *grade_options, sub], capture_output=True, text=True)
        out = p.stdout
    caught = out.count(f"lab{lab}: {m.kills}: FAIL ")
    passed = out.count(f"lab{lab}: {m.kills}: PASS ")
    builds_ok = "build" not in "".join(line for line in out.splitlines() if ": FAIL " in line)
    ok = caught == times and passed == 0 and builds_ok
    lines = [f"MUTANT {m.name}: caught {caught}/{times}" + ("" if ok else "  <-- NOT CAUGHT")]
    if not ok:
        lines += ["    " + line for line in (out + p.stderr).splitlines()[-12:]]
    return ok, lines


def main():
    p = argparse.ArgumentParser(description="grade every mutant of the labs")
    p.add_argument("--labs", default=",".join(map(str, grade.kit_labs())))
    p.add_argument("--only", help="these mutants (names, comma-separated), not every one of the labs")
    p.add_argument("--times", type=int, default=10)
    p.add_argument("-j", "--jobs", type=int, default=1, help="mutants graded at the same time")
    p.add_argument("grade_options", nargs="*", help="passed on to grade.sh (after --)")
    args = p.parse_args()
    missing = grade.kit_missing()
    if missing:
        sys.exit(f"mutants.py: {missing}")
    if not re.fullmatch(r"[1-9](,[1-9])*", args.labs):
        p.error(f"--labs: '{args.labs}' is not a list like 1,2")
    labs = sorted({int(x) for x in args.labs.split(",")})
    if set(labs) - set(grade.kit_labs()):
        p.error(f"--labs: there is no lab {min(set(labs) - set(grade.kit_labs()))}")
    todo = [(lab, m) for lab in labs for m in importlib.import_module(f"lab{lab}").MUTANTS]
    if args.only:
        names = args.only.split(",")
        unknown = set(names) - {m.name for _, m in todo}
        if unknown:
            p.error(f"no mutant {', '.join(sorted(unknown))} in labs {args.labs}")
        todo = [(lab, m) for lab, m in todo if m.name in names]
    missed = 0
    # Each grading is its own grade.py process: threads only wait for them.
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        for ok, lines in pool.map(lambda job: grade_mutant(*job, args.times, args.grade_options), todo):
            missed += not ok
            print("\n".join(lines), flush=True)
    return 1 if missed else 0


if __name__ == "__main__":
    sys.exit(main())
