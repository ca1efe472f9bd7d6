#!/usr/bin/env python3
"""trial.py - one trial of two writers, A and B, as rows of a lab's CSV.

Labs 1 and 2 run writers A and B together with launch, then read the file
with runs. This script joins what the programs printed, by column name, and
appends one row per writer to the CSV being built:

  --launch FILE  launch --csv's output: trial,child,...,command (child 1 is
                 writer A, child 2 writer B). Rows that the children printed
                 themselves in the same stream (lockbench --csv: a header
                 "char,..." and a row) are read as that writer's own row.
  --runs FILE    runs --summary-csv: char,lines,runs,min_run,median_run,
                 max_run; no row for a writer whose every line was lost.
  --run-list FILE  runs --csv: start_line,char,length, one row per run
                 (optional; it fills run_unit_lines).
  --csv FILE     the CSV so far: its header names the columns to fill.
  --set COL=VAL  a column that is the same for both writers (repeatable).
  --lines N      lines each writer wrote.
  --overwrite    the writers did not append: they wrote over each other.

Filled by name: writer, lines_written; start_delay_s, wall_s, user_s, sys_s,
vol_cs, invol_cs from launch; any column of the writer's own row (such as
lock_wait_s); lines_found, lost_lines, runs, median_run_lines, max_run_lines
from runs; run_unit_lines (with --run-list): the greatest common divisor
of the lengths of the writer's runs, its last run left out (that one ends
with the writer's last, partial buffer), empty if it has no other run:
every run is a whole number of this many lines, so it is the lines one
write(2) carried even when the scheduler lets a writer make many writes in
a row (runs of 100 buffers); interleaved: 1 if the file shows the two writers mixed, 0 if the
trial tested nothing (append: at most two runs, one writer's lines all
before the other's; overwrite: one writer's lines only, so the other lost
everything and the split between them was not tested). A column nobody
provides stays empty.

Prints a line of progress: each writer's time, median run and lost lines.
"""
import argparse
import csv
import io
import math
import sys

LAUNCH = ["start_delay_s", "wall_s", "user_s", "sys_s", "vol_cs", "invol_cs"]
RUNS = {"lines_found": "lines", "runs": "runs", "median_run_lines": "median_run",
        "max_run_lines": "max_run"}
WRITERS = "AB"


def read_launch(path):
    """Launch's rows by child number, and the children's own rows by char."""
    children, own = {}, {}
    lines = open(path, newline="").read().splitlines()
    header = None
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("trial,child,"):
            header = next(csv.reader([line]))
        elif line.startswith("char,") and i + 1 < len(lines):
            row = next(csv.DictReader(io.StringIO(line + "\n" + lines[i + 1] + "\n")))
            own[row["char"]] = row
            i += 1
        elif header is not None and line:
            row = dict(zip(header, next(csv.reader([line]))))
            children[int(row["child"])] = row
        i += 1
    if header is None or sorted(children) != [1, 2]:
        sys.exit(f"trial.py: {path}: expected launch --csv rows for children 1 and 2")
    return children, own


def run_units(path):
    """run_unit_lines by writer, from runs --csv (see the docstring)."""
    lengths = {}
    with open(path, newline="") as f:
        rows = csv.reader(f)    # not DictReader: unbuffered writers leave a million runs
        header = next(rows)
        c, n = header.index("char"), header.index("length")
        for row in rows:
            lengths.setdefault(row[c], []).append(int(row[n]))
    return {w: math.gcd(*runs[:-1]) if len(runs) > 1 else "" for w, runs in lengths.items()}


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--launch", required=True)
    ap.add_argument("--runs", required=True)
    ap.add_argument("--run-list")
    ap.add_argument("--csv", required=True)
    ap.add_argument("--set", action="append", default=[], metavar="COL=VAL")
    ap.add_argument("--lines", type=int, required=True)
    ap.add_argument("--overwrite", action="store_true")
    args = ap.parse_args()

    fixed = dict(s.split("=", 1) for s in args.set)
    with open(args.csv, newline="") as f:
        header = next(csv.reader(f))
    children, own = read_launch(args.launch)
    with open(args.runs, newline="") as f:
        found = {row["char"]: row for row in csv.DictReader(f)}

    units = run_units(args.run_list) if args.run_list else {}
    total_runs = sum(int(r["runs"]) for r in found.values())
    if args.overwrite:
        interleaved = all(w in found for w in WRITERS)
    else:
        interleaved = total_runs > 2
    rows, progress = [], []
    for child, w in enumerate(WRITERS, 1):
        values = dict(fixed, writer=w, lines_written=args.lines,
                      interleaved=int(interleaved))
        values.update({c: children[child][c] for c in LAUNCH})
        for c, v in own.get(w, {}).items():
            values.setdefault(c, v)     # launch's wall_s is the one kept
        mine = found.get(w, {"lines": 0, "runs": 0, "median_run": 0, "max_run": 0})
        values.update({c: mine[r] for c, r in RUNS.items()})
        values["lost_lines"] = args.lines - int(mine["lines"])
        if args.run_list:
            values["run_unit_lines"] = units.get(w, "")
        rows.append([values.get(c, "") for c in header])
        progress.append(f"{w} {float(values['wall_s']):.4f} s, median run "
                        f"{values['median_run_lines']}"
                        + (f", run unit {values['run_unit_lines'] or '-'}" if args.run_list else "")
                        + f", lost {values['lost_lines']}")
    with open(args.csv, "a", newline="") as f:
        csv.writer(f, lineterminator="\n").writerows(rows)
    print("; ".join(progress) + ("" if interleaved else "; NOT INTERLEAVED: tested nothing"))


if __name__ == "__main__":
    main()
