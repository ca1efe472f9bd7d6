"""batch.py - a class graded (--batch DIR): each submission by a grade.sh
of its own, N at a time, then the class CSV and PrairieLearn's score
upload (pl-scores.csv) from their results.json."""

import concurrent.futures
import csv
import json
import os
import re
import resource
import stat
import subprocess
import sys
import time

from grading import sandbox
from grading.discover import GRADE, PROG, kit_labs, load
from grading.gradelib import clean, one_line
from grading.one import protect


class BadOption(Exception):
    """An option of --batch that cannot be: the command line says so with
    its usage (exit 2)."""


def batch(args):
    if not os.path.isdir(args.batch):
        raise BadOption(f"--batch: {args.batch} is not a directory")
    out = args.out or "grades"
    if (os.path.realpath(out) + os.sep).startswith(os.path.realpath(args.batch) + os.sep):
        raise BadOption(f"--out: {out} is {args.batch} or inside it: the grades go elsewhere")
    # The students' uids may neither write there (a NAME.json of their own,
    # or a link where the grader writes one) nor read the class's reports:
    # where neither bubblewrap nor Landlock confines their programs, only
    # the directory's mode keeps them out.
    if os.path.isdir(out) and os.stat(out).st_mode & 0o022:
        raise BadOption(f"--out: {out} is writable by other users (mode {os.stat(out).st_mode & 0o7777:o}): "
                        "students' programs run as other users; name a directory of your own")
    found = sorted(n for n in os.listdir(args.batch)
                   if n.endswith(".tar.gz") or os.path.isdir(os.path.join(args.batch, n)))
    chosen, left_out = handins(args.batch, found)
    for line in left_out:
        print(f"{PROG}: --batch: {line}", file=sys.stderr)
    if not chosen:
        sys.exit(f"{PROG}: {args.batch}: no submissions (*.tar.gz or directories)"
                 + (f", {len(left_out)} left out" if left_out else ""))
    if os.geteuid() == 0:
        protect(args.batch, "the submissions")
    # Students' code runs nowhere it may not: refused here, the batch
    # stops before it writes a row (not a 0 for every student).
    try:
        sandbox.Sandbox(allow_unsafe=args.unsafe_no_sandbox, use_bwrap=not args.no_bwrap).release()
    except sandbox.RefuseError as e:
        sys.exit(f"{PROG}: --batch: will not run students' code here: {e}")
    # The probe made the batch a subreaper, which would adopt what a grading
    # killed from outside left behind and never reap it: zombies that fill
    # the process limit of that grading's uid for every later grading of it.
    sandbox.become_subreaper(False)
    os.makedirs(out, mode=0o700, exist_ok=True)
    if os.geteuid() == 0:
        protect(out, "the grades")
    names = sorted(chosen)
    subs = [os.path.join(args.batch, chosen[name]) for name in names]
    for name in names:      # no earlier batch's report may pass for this one's
        for ext in (".json", ".txt", ".json.tmp"):
            try:
                os.unlink(os.path.join(out, name + ext))
            except FileNotFoundError:
                pass

    def grade(sub, name):
        cmd = [sys.executable, "-I", "-B", GRADE, "--json", os.path.join(out, name + ".json"),
               "--budget", str(args.budget)]
        if args.labs:
            cmd += ["--labs", ",".join(map(str, args.labs))]
        if args.seed is not None:
            cmd += ["--seed", str(args.seed)]
        cmd += [f"--{o}" for o in ("no-bwrap", "unsafe-no-sandbox") if getattr(args, o.replace("-", "_"))]
        if args.class_data:
            cmd += ["--class-data", os.path.abspath(args.class_data)]
        with open(os.path.join(out, name + ".txt"), "wb") as log:
            subprocess.run(cmd + [sub], stdout=log, stderr=subprocess.STDOUT)
        print(f"graded {clean(name)}: {last_line(os.path.join(out, name + '.txt'))}", flush=True)

    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(grade, subs, names))
    # How busy the machine was: the CPU time of every grading, and all
    # their programs, against the cores the wall time offered (where -j
    # more or fewer would have helped).
    wall = time.monotonic() - start
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu, cores = used.ru_utime + used.ru_stime, os.cpu_count()
    print(f"graded {len(subs)} submissions in {wall:.0f} s with -j {args.jobs}: "
          f"{cpu:.0f} CPU seconds, {cpu / wall / cores:.0%} of {cores} cores")
    # The class CSV: a column per check of the labs graded, from the list of
    # checks, never from a report. max_score is each grading's own maximum
    # (the labs it graded, less the checks this machine could not run), as
    # its report and results.json say; a submission that could not be
    # graded gets the maximum of the labs the batch names.
    checks, _ = load(args.labs or kit_labs())
    differ = labs_differ(dict(batch_results(out, names)))
    if differ and not args.labs:
        print(f"{PROG}: note: --batch: {differ}", file=sys.stderr)
    tmp = os.path.join(out, "class.csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["submission"] + [c.name for c in checks] + ["score", "max_score"])
        for name, result in batch_results(out, names):
            # a skipped check has no status and an empty cell; the answers
            # row, worth 0, has its 0
            by_name = {t["name"]: t["score"] for t in result.get("tests", []) if "status" in t}
            most = (result.get("extra_data") or {}).get("max_score")
            w.writerow([name] + [by_name.get(c.name, "") for c in checks]
                       + [result.get("score", 0), sum(c.points for c in checks) if most is None else most])
    os.replace(tmp, os.path.join(out, "class.csv"))
    print(f"wrote {os.path.join(out, 'class.csv')}")
    write_pl_scores(out, names, args.pl_qid)
    return 0


def batch_results(out, names):
    """(name, its OUT/NAME.json as a dict) for each grading of the batch;
    {} where that file could not be read (the grading broke)."""
    for name in names:
        try:
            with open(os.path.join(out, name + ".json")) as j:
                yield name, json.load(j)
        except (OSError, ValueError):
            yield name, {}


def write_pl_scores(out, names, qid):
    """OUT/pl-scores.csv: the columns PrairieLearn's instructor upload of
    question scores takes (its "Manual Grading" page, uploading scores and
    feedback: uid, instance, qid, score_perc, feedback), a row per
    submission, from its results.json. A submission that could not be
    graded scores 0 and its feedback says why."""
    tmp = os.path.join(out, "pl-scores.csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["uid", "instance", "qid", "score_perc", "feedback"])
        for name, result in batch_results(out, names):
            most = (result.get("extra_data") or {}).get("max_score")
            score = result.get("score", 0)
            feedback = (f"Score: {score}/{most}" if most else
                        clean((result.get("output") or "not graded: no results.json").splitlines()[0], 200, 1))
            w.writerow([name, 1, qid, round(100 * score / most, 2) if most else 0, feedback])
    os.replace(tmp, os.path.join(out, "pl-scores.csv"))
    print(f"wrote {os.path.join(out, 'pl-scores.csv')}")


# A submission's name is its uid (pl-scores.csv), its row (class.csv) and
# its reports' file names: letters and digits of any script, _ . @ + -,
# never first one that a spreadsheet reads as a formula (= + - @) or a
# dot (a hidden file), and never a comma, quote, space or line break.
PLAIN_NAME = re.compile(r"\w[\w.@+-]{0,127}")


def handins(batch_dir, found):
    """({name: file}, lines): found, the names of DIR's *.tar.gz and
    directories, each named by its file without .tar.gz (NAME.txt,
    NAME.json, its class.csv row, its uid in pl-scores.csv); and a line per
    entry left out, saying why. Left out: a symbolic link or anything but a
    regular .tar.gz or a directory (a link would grade another student's
    handin, or any file of the instructor's, as this one's), a name that is
    not PLAIN_NAME, and names that differ only in case (where file names
    ignore case, one's reports would overwrite the other's). A student
    handed in twice (alice.tar.gz and a folder alice/) is graded once, from
    the .tar.gz, what make handin made (the folder is most often a copy
    unpacked from it), and named in one of the lines."""
    chosen, lines = {}, []
    for f in found:
        name = f.removesuffix(".tar.gz")
        mode = os.lstat(os.path.join(batch_dir, f)).st_mode
        if stat.S_ISLNK(mode):
            lines.append(f"{one_line(repr(f))}: a symbolic link: left out (copy the handin itself into the batch)")
            continue
        if not (stat.S_ISDIR(mode) or stat.S_ISREG(mode)):
            lines.append(f"{one_line(repr(f))}: not a regular file or a directory: left out")
            continue
        if not PLAIN_NAME.fullmatch(name):
            lines.append(f"{one_line(repr(f))}: not a uid (at most 128 letters, digits, _ . @ + -, not first "
                         "= + - @ .): left out, rename it")
            continue
        if name in chosen:
            tar, folder = (f, chosen[name]) if f.endswith(".tar.gz") else (chosen[name], f)
            lines.append(f"{clean(tar)} and {clean(folder)}/ are the same student's handin: "
                         f"{clean(tar)} graded, {clean(folder)}/ left out")
            chosen[name] = tar
        else:
            chosen[name] = f
    by_case = {}
    for name in chosen:
        by_case.setdefault(name.casefold(), []).append(name)
    for same in by_case.values():
        if len(same) > 1:
            lines.append(f"{' and '.join(map(clean, sorted(same)))} differ only in case: none graded (where file "
                         "names ignore case, their reports would be one file): rename all but one")
            for name in same:
                del chosen[name]
    return chosen, lines


def labs_differ(results):
    """A line saying that the gradings of results ({name: results.json})
    graded different labs (each handin's labs.txt chose them), so that their
    max_score differ; None where they all graded the same labs."""
    graded = {}
    for name, result in results.items():
        labs = tuple(sorted({int(tag[3:]) for t in result.get("tests", []) for tag in t.get("tags", [])
                             if tag.startswith("lab")}))
        if labs:
            graded.setdefault(labs, []).append(name)
    if len(graded) < 2:
        return None
    kinds = "; ".join(f"labs {','.join(map(str, labs))}: {len(who)} (e.g. {clean(min(who))})"
                      for labs, who in sorted(graded.items()))
    return (f"the handins' labs.txt chose different labs ({kinds}), so their max_score differ: "
            "--labs LIST grades every row for the same labs")


def last_line(path):
    with open(path, "rb") as f:
        lines = f.read().decode("utf-8", "replace").strip().splitlines()
    return clean(lines[-1]) if lines else ""
