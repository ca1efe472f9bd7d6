"""lessons.py - do the labs' results show their lessons on this machine, run
after run, idle and beside a busy program?

    python3 grading/lessons.py [--labs 1,2] [--runs 20] [--scale quick] [--hog]

Runs each lab's script RUNS times at SCALE (the kit's own programs, the
results in a directory of their own), and grades each run's results with the grader's data checks
(those whose title starts "data/"): they hold a student's data to the
trends each lab's "What to expect" states, on any machine, so a check that
a run of the kit itself fails is a lesson that did not show, and a point a
student would lose to the machine. --hog keeps a busy loop running beside
every lab, one core's worth, as a browser or another user would.

Prints a line per run (each check's verdict and the load verdict the lab
wrote, data/labN-load.txt, with the questions a busy run named as those
whose data it may turn around), then per check the runs that passed it, and
exits 1 unless every check passed in every run. The figures for the
lab pages' claims are in the closing table each run's lab prints: --keep DIR
keeps them, DIR/run-N/labN.out beside the run's data files.
"""

import argparse
import collections
import glob
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

# A data check's verdict line in a grader's report, "labN: data/FILE: WHAT:
# PASS 2/2" (or FAIL, SKIP); "data/FILE has the declared columns" is no lesson.
VERDICT = re.compile(r"^lab(\d+): (data/\S+: .*): (PASS|FAIL|SKIP)\b")


def submission(dest):
    """dest becomes what the grader needs of a student's kit for the data
    checks: the lab sources (the checks build them) and data/, results
    to come; the kit's own programs are built for the lab scripts."""
    shutil.copytree(os.path.join(KIT, "labs"), os.path.join(dest, "labs"))
    os.mkdir(os.path.join(dest, "data"))
    subprocess.run(["make", "-s", "-C", KIT, "all"], check=True, stdout=subprocess.DEVNULL)


def run_lab(sub, scratch, lab, scale, hog, out):
    """Runs lab LAB's script once at SCALE with the kit's programs, its
    results into sub/data and what it printed into the file out; returns
    the load verdict the lab wrote, and the questions a busy run named
    (busy_questions: the lessons that need the cores for the lab alone)."""
    data = os.path.join(sub, "data")
    for name in os.listdir(data):
        if name.startswith(f"lab{lab}"):
            path = os.path.join(data, name)
            shutil.rmtree(path) if os.path.isdir(path) else os.remove(path)
    script, = [os.path.join(d, f"lab{lab}.sh") for d in glob.glob(os.path.join(KIT, "labs", f"{lab}-*"))]
    busy = subprocess.Popen([sys.executable, "-c", "while True: pass"]) if hog else None
    try:
        with open(out, "w") as printed:
            p = subprocess.run(["bash", script], cwd=KIT, stdout=printed, stderr=subprocess.PIPE,
                               text=True, env={**os.environ, "DATA": data, "SCRATCH": scratch, "SCALE": scale})
    finally:
        if busy:
            busy.kill()
            busy.wait()
    if p.returncode != 0:
        return f"lab failed: {(p.stderr.strip().splitlines() or [p.returncode])[-1]}"
    try:
        with open(os.path.join(data, f"lab{lab}-load.txt")) as f:
            facts = dict(line.split(": ", 1) for line in f.read().splitlines() if ": " in line)
    except OSError:
        return "no load file"
    named = facts.get("busy_questions", "none")
    return facts.get("verdict", "?") + (f"; names {named}" if named != "none" else "")


def data_verdicts(sub, lab):
    """{check title: PASS, FAIL or SKIP} of the grader's data checks on
    sub's results of lab LAB, and the first line of each FAIL's message."""
    p = subprocess.run([sys.executable, "-I", "-B", discover.GRADE, "--labs", str(lab),
                        "--only", "data/", sub], capture_output=True, text=True)
    verdicts, why, last = {}, {}, None
    for line in p.stdout.splitlines():
        m = VERDICT.match(line)
        if m:
            last = m.group(2)
            verdicts[last] = m.group(3)
        elif last and verdicts[last] == "FAIL" and last not in why and line.strip():
            why[last] = line.strip()
    return verdicts, why


def main():
    p = argparse.ArgumentParser(description="run the labs again and again; count the runs that show each lesson")
    p.add_argument("--labs", default=",".join(map(str, discover.kit_labs())))
    p.add_argument("--runs", type=int, default=20)
    p.add_argument("--scale", default="quick", choices=("tiny", "quick", "full"))
    p.add_argument("--hog", action="store_true", help="a busy loop beside every lab run")
    p.add_argument("--keep", metavar="DIR", help="keep each run's data files and printout in DIR/run-N/")
    args = p.parse_args()
    if not re.fullmatch(r"[1-9](,[1-9])*", args.labs) or set(map(int, args.labs.split(","))) - set(discover.kit_labs()):
        p.error(f"--labs: '{args.labs}' is not a list of the kit's labs like 1,2")
    if args.runs < 1:
        p.error("--runs: at least 1")
    labs = sorted(set(map(int, args.labs.split(","))))
    passed = collections.Counter()
    seen = collections.Counter()
    with tempfile.TemporaryDirectory(prefix="iolab-lessons.") as tmp:
        sub, scratch = os.path.join(tmp, "sub"), os.path.join(tmp, "scratch")
        submission(sub)
        for run in range(1, args.runs + 1):
            kept = os.path.join(args.keep or tmp, f"run-{run}")
            os.makedirs(kept, exist_ok=True)
            for lab in labs:
                load = run_lab(sub, scratch, lab, args.scale, args.hog, os.path.join(kept, f"lab{lab}.out"))
                verdicts, why = data_verdicts(sub, lab)
                for title, verdict in verdicts.items():
                    seen[lab, title] += verdict != "SKIP"
                    passed[lab, title] += verdict == "PASS"
                shown = " ".join(v[0] for v in verdicts.values()) or "no verdicts"
                print(f"run {run} lab{lab}: {shown}  (load: {load})", flush=True)
                for title, line in why.items():
                    print(f"    {title}: {line}", flush=True)
                if args.keep:
                    for name in os.listdir(os.path.join(sub, "data")):
                        src = os.path.join(sub, "data", name)
                        if name.startswith(f"lab{lab}"):
                            copy = shutil.copytree if os.path.isdir(src) else shutil.copy
                            copy(src, os.path.join(kept, name))
    print(f"\n== Runs that showed each lesson ({args.runs} runs at SCALE={args.scale}"
          f"{', beside a busy loop' if args.hog else ''})")
    for (lab, title), n in sorted(seen.items()):
        print(f"  lab{lab}  {passed[lab, title]:3d}/{n:<3d} {title}")
    sys.exit(0 if seen and all(passed[k] == n for k, n in seen.items()) else 1)


if __name__ == "__main__":
    main()
