"""cli.py - grade.sh's command line: its options, checked, and what they
ask for (one grading, --batch, --list)."""

import argparse
import os
import re
import sys

from grading.batch import BadOption, batch
from grading.discover import PROG, kit_labs, kit_missing, load
from grading.one import grade_one
from grading.report import visibility_rules

BUDGET = 1800       # seconds for a whole grading, builds included (--budget)


USAGE = """usage: ./grade.sh [--labs LIST] [--json FILE] [--pl-json FILE] [--keep] [--seed N] [--budget S]
                  [--visibility RULES] [SUBMISSION]
       ./grade.sh --batch DIR [-j N] [--out DIR] [--pl-qid QID] [--labs LIST] [--seed N] [--budget S]
       ./grade.sh --list [--labs LIST]
  SUBMISSION  a directory or a .tar.gz from `make handin`;
              none: grade the kit itself (after `make labs`)
  --labs LIST only these labs, e.g. 1,2 (default: the labs the handin
              names in its labs.txt, each once, else all)
  --json FILE write Gradescope's results.json to FILE as well
  --pl-json FILE
              write PrairieLearn's external grader results.json to FILE
              as well (score 0-1, a test per check, the figures as images,
              under 1 MB in all)
  --keep      keep the scratch directory and say where it is
  --list      print every check with its points, grade nothing
  --batch DIR grade every *.tar.gz and directory in DIR, N at a time
              (default 2), each into OUT/NAME.txt and OUT/NAME.json (NAME:
              the file's name without .tar.gz; both NAME.tar.gz and NAME/:
              the .tar.gz graded, a line says so; a link, a NAME that is
              no uid, or NAMEs differing only in case: left out, a line
              says why), and write OUT/class.csv:
              a row per submission, a column per check, and
              OUT/pl-scores.csv: PrairieLearn's score upload (uid,
              instance, qid, score_perc, feedback; uid NAME, instance 1,
              qid QID, default iolab); without --labs, a line says so
              where the handins' labs.txt chose different labs
  --out DIR   where --batch writes (default ./grades; not DIR or inside it,
              nor a directory other users may write; made o-rwx as root)
  --class-data OUT
              also place each submission's measurements in the class that
              `make class SUBMISSIONS=DIR CLASS=OUT` merged (percentiles)
  --only TEXT grade only the checks whose name holds TEXT, and the builds of
              the programs they run (every build where TEXT names no check)
  --repeat N  with --only: run those checks N times, each with new inputs
  --seed N    draw the random inputs from seed N: every report prints
              the seed it drew (Seed: N), and --seed N replays that grading
  --budget S  seconds for a whole grading, builds included (default 1800);
              when they run out the checks finished keep their points and
              the report names those that did not run; the checks that
              read only files (data, figures, answers, machine.txt) run
              first, outside it
  --visibility TEXT=V[;TEXT=V...]
              in --json, a check whose name holds TEXT gets Gradescope's
              visibility V (visible, hidden, after_due_date or
              after_published; the first rule that matches, else visible),
              e.g. 'speed=after_due_date'
  --no-bwrap  do not use bubblewrap even where it can start
  --unsafe-no-sandbox
              not root and no bubblewrap: run students' code as yourself
              anyway (the report and results.json say so)
  -h, --help  this help"""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        usage_error(message)


def usage_error(message):
    print(f"{PROG}: {message}\n{USAGE}", file=sys.stderr)
    sys.exit(2)


def lab_list(text):
    if not re.fullmatch(r"[1-9](,[1-9])*", text):
        usage_error(f"--labs: '{text}' is not a list like 1,2")
    labs = sorted({int(x) for x in text.split(",")})
    for lab in labs:
        if lab not in kit_labs():
            usage_error(f"--labs: there is no lab {lab}")
    return labs


def seed_number(text):
    if not re.fullmatch(r"[0-9]{1,18}", text):
        usage_error(f"--seed: '{text}' is not a whole number from 0")
    return int(text)


def seconds(text):
    if not re.fullmatch(r"[1-9][0-9]{0,5}", text):
        usage_error(f"--budget: '{text}' is not a number of seconds")
    return int(text)


def rules_arg(text):
    try:
        return visibility_rules(text)
    except ValueError as e:
        usage_error(f"--visibility: {e}")


def jobs(text):
    if not re.fullmatch(r"[1-9][0-9]?", text):
        usage_error(f"-j: '{text}' is not a count from 1 to 99")
    return int(text)


def main(argv):
    # In order with stderr in a log; a character the terminal's encoding
    # lacks is shown escaped, never a crash.
    sys.stdout.reconfigure(line_buffering=True, errors="backslashreplace")
    sys.stderr.reconfigure(errors="backslashreplace")
    p = Parser(add_help=False)
    p.add_argument("submission", nargs="?")
    p.add_argument("--labs", type=lab_list)
    p.add_argument("--json")
    p.add_argument("--pl-json")
    p.add_argument("--pl-qid", default="iolab")
    p.add_argument("--keep", action="store_true")
    p.add_argument("--list", action="store_true")
    p.add_argument("--batch")
    p.add_argument("-j", dest="jobs", type=jobs, default=2)
    p.add_argument("--out")
    p.add_argument("--class-data")
    p.add_argument("--only")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--seed", type=seed_number)
    p.add_argument("--budget", type=seconds, default=BUDGET)
    p.add_argument("--visibility", type=rules_arg, default=[])
    p.add_argument("--no-bwrap", action="store_true")
    p.add_argument("--unsafe-no-sandbox", action="store_true")
    p.add_argument("-h", "--help", action="store_true")
    args = p.parse_args(argv)
    if args.help:
        print(USAGE)
        return 0
    missing = kit_missing()
    if missing:
        print(f"{PROG}: {missing}", file=sys.stderr)
        return 1
    if args.list:
        for c in load(args.labs or kit_labs())[0]:
            print(f"{'lab' + str(c.lab) if c.lab else 'all'}\t{c.points}\t{c.title}")
        return 0
    if args.batch:
        if args.submission:
            usage_error("one SUBMISSION at a time (or --batch DIR)")
        try:
            return batch(args)
        except BadOption as e:
            usage_error(str(e))
    for opt in ("json", "pl_json"):
        if getattr(args, opt):
            setattr(args, opt, os.path.abspath(getattr(args, opt)))
    return grade_one(args)
