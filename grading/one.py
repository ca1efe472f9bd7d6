"""one.py - one submission's grading: its scratch directory, the build
tree of the kit's Makefile with the student's sources, the checks run
(run.py), the report and results.json written (report.py); every way it
ends writes a report."""

import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import traceback

from grading import gradelib, sandbox, unpack
from grading.classresults import percentile_lines
from grading.discover import PROG, kit_labs, kit_programs, lab_dir, labs_of, load
from grading.gradelib import KIT, one_line
from grading.report import gradescope_json, prairielearn_json, print_report, result, write_json
from grading.run import OutOfTime, out_of_time, run_checks


class GraderError(Exception):
    """The grader cannot grade here (the kit itself does not build, say)."""


def protect(path, what):
    """As root, students' uids must not read path: no access for others."""
    mode = os.stat(path).st_mode
    if mode & 0o007:
        os.chmod(path, mode & ~0o007)
        print(f"{PROG}: note: made {what} unreadable to other users (chmod o-rwx {path}): "
              "students' programs run as other users", file=sys.stderr)


def prepare_build(g, sub):
    """The kit's Makefile and common/ with the student's lab sources (only
    the .c names the kit has, and their own .h files), owned by the
    students' uid."""
    os.mkdir(g.build, 0o700)
    os.mkdir(g.bin)
    g.box.share(g.bin, 0o750)
    shutil.copy(os.path.join(KIT, "Makefile"), g.build)
    shutil.copytree(os.path.join(KIT, "common"), os.path.join(g.build, "common"))
    for lab in kit_labs():
        for src in kit_programs(lab):
            os.makedirs(os.path.join(g.build, os.path.dirname(src)), exist_ok=True)
            if os.path.isfile(os.path.join(sub, src)):
                shutil.copy(os.path.join(sub, src), os.path.join(g.build, src))
        # and the student's own headers beside them (make handin packs them)
        d = os.path.join("labs", lab_dir(lab))
        names = os.listdir(os.path.join(sub, d)) if os.path.isdir(os.path.join(sub, d)) else []
        for h in sorted(os.path.join(d, n) for n in names if n.endswith(".h")):
            if os.path.isfile(os.path.join(sub, h)) and not os.path.islink(os.path.join(sub, h)):
                shutil.copy(os.path.join(sub, h), os.path.join(g.build, h))
    for top, dirs, files in os.walk(g.build):
        for name in dirs + files:
            g.box.own(os.path.join(top, name))
    # Open to the uid only while a build runs (Grading.building): where no
    # Landlock or bubblewrap keeps a program in its run directory, one of
    # an earlier check rewrote the source of a later build (Lab 4's race
    # check, whose ThreadSanitizer build must compile what the graded one did).
    g.box.close(g.build)


def probe_host(g, modules):
    """Each lab's probe(g), where it has one, run before any student's
    code: what the host lets students' programs do (Lab 4: run a
    ThreadSanitizer build), learnt where no student's process can disturb
    it, so that a check's SKIP rests on it alone."""
    for lab in sorted(modules):
        if hasattr(modules[lab], "probe"):
            g.fresh()
            g.deadline = time.monotonic() + 60
            try:
                modules[lab].probe(g)
            finally:
                g.box.end_processes()


def grade_one(args):
    """Grades one submission; every way it can end writes a report and,
    with --json, a valid results.json: refused or broken, a score of 0 and
    the reason."""
    started = time.monotonic()
    seed = args.seed if args.seed is not None else secrets.randbelow(10 ** 9)
    work = tempfile.mkdtemp(prefix="iolab-grade.")
    signal.signal(signal.SIGALRM, out_of_time)
    signal.signal(signal.SIGTERM, out_of_time)   # `timeout` stops a grading: report what it did
    boxes = []  # the grading's sandbox, once it has one: the cleanup releases it
    try:
        print(f"Seed: {seed} (./grade.sh --seed {seed} draws the same inputs again)")
        res = grade(args, work, boxes, seed, started)
        print_report(res)
        if args.json:
            write_json(args.json, gradescope_json(res, args.visibility))
        if args.pl_json:
            write_json(args.pl_json, prairielearn_json(res))
        return 0
    # What a student reads names the file they handed in, never where the
    # grader keeps it; the instructor's line on stderr says all.
    except unpack.Refused as e:
        return give_up(args, f"{one_line(os.path.basename(args.submission))}: {one_line(str(e), 400)}", seed, started,
                       one_line(args.submission))
    except sandbox.RefuseError as e:
        return give_up(args, "the grading machine will not run students' code: ask your instructor", seed, started,
                       f"will not run students' code here: {one_line(str(e))}")
    except GraderError as e:
        return give_up(args, "the grading machine is not set up: ask your instructor", seed, started, one_line(str(e)))
    except OutOfTime:
        return give_up(args, "the grading was stopped before its checks ran", seed, started)
    except Exception as e:   # anything else: the grader's fault, said in one line
        where = ""
        if e.__traceback__:
            frame = traceback.extract_tb(e.__traceback__)[-1]
            where = f" at {os.path.basename(frame.filename)}:{frame.lineno}"
        return give_up(args, f"the grader broke ({type(e).__name__}{where}): ask your instructor", seed, started,
                       one_line(str(e), 200))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)   # cleanup ends, whatever asks
        clean_up(work, boxes, args.keep)


def grade(args, work, boxes, seed, started):
    """The result of grading args.submission (the kit itself where None) in
    the scratch directory work; its sandbox appended to boxes."""
    if os.geteuid() == 0:
        protect(KIT, "the kit")
    sub = submission(args.submission, os.path.join(work, "submission"))
    named, notes = labs_of(sub)
    if args.labs:
        named, notes = args.labs, []
    checks, modules = load(named or kit_labs())
    if subprocess.run(["make", "-s", "-C", KIT, "all"], stdout=subprocess.DEVNULL).returncode != 0:
        raise GraderError(f"the kit itself does not build: run make in {KIT}")
    box = sandbox.Sandbox(allow_unsafe=args.unsafe_no_sandbox, use_bwrap=not args.no_bwrap)
    boxes.append(box)
    containment = box.describe()
    # Its students' uid may pass through the work directory to its own
    # run directories; other gradings' uids may not.
    box.share(work, 0o710)
    g = gradelib.Grading(sub, work, box, random.Random(seed))
    g.kit = KIT
    prepare_build(g, sub)
    probe_host(g, modules)
    if args.only:
        checks = only(checks, args.only, args.repeat)
    records, stopped = run_checks(g, checks, started + args.budget, args.budget)
    if stopped:
        notes.append(stopped)
    return result(records, modules, containment, standing(args),
                  dict(seed=seed, notes=notes, started=started, submission=sub))


def submission(path, subdir):
    """The submission to grade, as a directory: path (a directory or a
    .tar.gz) unpacked into subdir; where path is None, the kit itself, its
    reference answers (grading/labN/answers.md) as its answers.md."""
    if path is not None:
        print(f"Grading {one_line(path)}")
        return unpack.unpack(path, subdir)
    print(f"Grading the kit itself: {KIT}")
    os.mkdir(subdir, 0o700)
    for d in ("labs", "data", "plot"):
        shutil.copytree(os.path.join(KIT, d), os.path.join(subdir, d), symlinks=True)
    with open(os.path.join(subdir, "answers.md"), "w") as out:
        for lab in kit_labs():
            with open(os.path.join(KIT, "grading", f"lab{lab}", "answers.md")) as f:
                out.write(f.read())
    return subdir


def only(checks, text, repeat):
    """--only TEXT --repeat N: the checks whose name holds TEXT, N times
    each, after the builds of the programs they run (a mutant's grading
    builds one program, not its lab's three); where TEXT names no check
    but builds, or nothing, every build."""
    chosen = [c for c in checks if text in c.name and not c.title.startswith("build ")]
    needed = {prog for c in chosen for prog in c.needs}
    return [c for c in checks if c.title.startswith("build ")
            and (not chosen or c.title[len("build "):] in needed)] + chosen * repeat


def clean_up(work, boxes, keep):
    """The grading's sandbox released and its scratch directory removed
    (or kept, --keep, and named)."""
    try:
        for box in boxes:
            box.release()
    except Exception as e:
        print(f"{PROG}: note: cleanup: {type(e).__name__}: {one_line(str(e), 200)}", file=sys.stderr)
    if keep:
        print(f"kept {work}")
    elif not sandbox.remove_tree(work):
        print(f"{PROG}: note: could not remove all of {work}", file=sys.stderr)


def give_up(args, message, seed, started, detail=None):
    """No grading: message for the student (results.json), with detail for
    the instructor's stderr only (paths of the grading machine, say)."""
    print(f"{PROG}: {message}" + (f" ({detail})" if detail else ""), file=sys.stderr)
    said = f"The grader could not grade this submission: {message}"
    if args.json:
        write_json(args.json, dict(score=0, execution_time=round(time.monotonic() - started), output=said,
                                   tests=[], extra_data=dict(seed=seed, max_score=None)))
    if args.pl_json:    # not gradable: PrairieLearn counts no attempt and shows the format errors
        write_json(args.pl_json, dict(gradable=False, score=0, message=said, format_errors=[said], output="",
                                      tests=[]))
    return 1


def standing(args):
    """Where the submission's measurements stand in the class (--class-data,
    from a `make class` of the same class), as lines for the report."""
    if not args.class_data or args.submission is None:
        return []
    try:
        return [one_line(line) for line in percentile_lines(args.class_data, args.submission)]
    except OSError as e:
        return [f"class results: {one_line(args.class_data)}: {one_line(str(e))}"]
