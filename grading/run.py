"""run.py - running a grading's checks: each in a fresh run directory,
under its time limit (a timer that stops the grader's own work too),
within the grading's budget, the checks that read only files first; one
record per check."""

import signal
import time

from grading.gradelib import Fail, Skip, clean


class OutOfTime(BaseException):
    """The check's or the grading's time ran out while the grader itself
    worked (a BaseException: no check's `except Exception` catches it)."""


def run_check(g, c, left):
    """(status, message): status "PASS", "FAIL", "SKIP" or "STOPPED" (the
    grading's time ran out during it); message what failed, why it was
    skipped, or what a check that passed returned to say how it ran (e.g.
    which case the machine allowed), or None.  left: the seconds left of
    the grading's budget, which cut the check's own time limit."""
    g.fresh()
    g.calls = c.calls
    limit = min(c.timeout, left)
    g.deadline = time.monotonic() + limit
    # The check's time limit holds the grader's own work too (parsing a
    # submission's files, say): a timer interrupts it a little after the
    # programs' deadline, which they meet by themselves.
    signal.setitimer(signal.ITIMER_REAL, limit + 5)
    try:
        g.need(*c.needs)
        note = c.fn(g)
        return "PASS", clean(note) if isinstance(note, str) else None
    except Fail as f:
        if limit < c.timeout and time.monotonic() > g.deadline - 1:
            return "STOPPED", f"stopped: the grading's time ran out during this check ({clean(f.message, lines=2)})"
        return "FAIL", clean(f.message) + (f"\nreproduce: {clean(f.reproduce)}" if f.reproduce else "")
    except Skip as s:
        return "SKIP", clean(str(s))
    except OutOfTime as e:
        if limit < c.timeout or str(e) == "SIGTERM":
            return "STOPPED", f"stopped: the grading's time ran out during this check ({e})"
        return "FAIL", f"the check ran out of time ({c.timeout} s, the grader's own work included)"
    except Exception as e:  # the grader's own fault: say so, go on
        return "FAIL", f"the grader broke on this check ({type(e).__name__}: {clean(str(e))}): ask your instructor"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        g.box.end_processes()


_TERMINATED = []    # a SIGTERM came: the grading was stopped from outside


def out_of_time(signum, frame):
    if signum == signal.SIGTERM:
        _TERMINATED.append(True)
        raise OutOfTime("SIGTERM")
    raise OutOfTime("time limit")


def files_only(c):
    """Whether check c reads only the submission's files (its CSVs, the
    figures the kit's scripts draw from them, answers.md, machine.txt):
    it needs none of the student's programs, nor a build."""
    return not c.needs and not c.title.startswith("build ")


def record(c, status, message):
    """One check's result: the report, results.json and class.csv all read it."""
    score = c.points if status == "PASS" else 0
    output = ("PASS" + (f" ({message})" if message else "") if status == "PASS"
              else f"SKIP: {message}" if status == "SKIP" else message)
    return dict(name=c.name, lab=c.lab, points=c.points, score=score, status=status, output=output)


def run_checks(g, checks, end, budget):
    """(records, note): a record per check, in rubric order (as --list and
    the handout), a line printed as each ends; note None, or a line naming
    the checks that did not finish before end (time.monotonic()), when the
    grading's budget (seconds) ran out or a SIGTERM stopped it."""
    # The checks that read only the submission's files run first, each
    # within its own time limit but outside the budget: a handin whose
    # programs use up the grading's time keeps its data, figures and
    # machine.txt points (Gradescope grades lab after lab: a timeout
    # in Lab 3 had zeroed 40 such checks of the labs after it).
    order = sorted(range(len(checks)), key=lambda i: not files_only(checks[i]))
    done = {}
    try:
        for i in order:
            c = checks[i]
            left = end - time.monotonic()
            if files_only(c):
                left = c.timeout
            if left < 1 or any(r["status"] == "STOPPED" for r in done.values()):
                break
            start = time.monotonic()
            status, message = run_check(g, c, left)
            r = done[i] = record(c, status, message)
            print(f"{c.name}: {status} {r['score']}/{r['points']} ({time.monotonic() - start:.1f}s)")
            for line in (message or "").splitlines()[-6:]:
                print(f"    {line}")
    except OutOfTime:   # SIGTERM between two checks
        pass
    signal.signal(signal.SIGTERM, signal.SIG_IGN)    # the report is written whole
    for i in order:
        if i not in done:
            done[i] = record(checks[i], "NOT RUN", "not run: the grading was stopped" if _TERMINATED
                             else f"not run: the grading's time ({budget} s) ran out")
            print(f"{checks[i].name}: NOT RUN 0/{checks[i].points}")
    records = [done[i] for i in range(len(checks))]
    not_run = [r["name"] for r in records if r["status"] in ("NOT RUN", "STOPPED")]
    if not not_run:
        return records, None
    why = ("the grading was stopped (SIGTERM: the autograder's time limit?)" if _TERMINATED
           else f"the grading's time ({budget} s) ran out")
    return records, f"{why}: {len(not_run)} check(s) did not finish and scored 0: {'; '.join(not_run)}"
