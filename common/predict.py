#!/usr/bin/env python3
"""predict.py - the student's predictions (predictions.md) beside what a lab measured.

  python3 common/predict.py remind FILE N
  python3 common/predict.py median|gcd CSV VALUE [COL=VALUE[,VALUE...]]...
  python3 common/predict.py show FILE N KEY=MEASURED...

predictions.md has a section per lab ("## Lab N") of lines
"- PN.M what is predicted (unit): the prediction", written before the lab
runs. remind prints one line when Lab N's predictions are missing or
empty (the lab runs anyway: a prediction is asked for, never required).
median prints the median of VALUE over the CSV's rows that match every
COL=VALUE (what a lab passes to show); gcd their greatest common divisor
(whole numbers: Lab 1's run unit). show prints each prediction of
Lab N beside the measurement given for its key (PN.M=text).
Exit status 2 on a bad command line, 1 on an unreadable CSV; a missing
predictions file is not an error.
"""
import csv
import math
import re
import statistics
import sys

# "- PN.M what is predicted (unit): the prediction": its key, then what is
# predicted, up to the first colon.
KEY = re.compile(r"-\s*(P\d+\.\d+)\s")


def prediction_line(line):
    """(key, what, prediction) of a prediction line, or None. Split at the
    colon, not matched by a pattern that backtracks: a long line of spaces
    with no colon would cost time quadratic in its length, and make class
    reads every student's predictions.md."""
    line = line.strip()
    m = KEY.match(line)
    if not m:
        return None
    what, colon, said = line[m.end():].partition(":")
    return (m.group(1), what.lstrip(), said.lstrip()) if colon else None


def predictions(path, lab):
    """[(key, what, prediction)] of the lab's section; [] if none."""
    try:
        text = open(path).read()
    except OSError:
        return []
    found, inside = [], False
    for line in text.splitlines():
        if line.startswith("## "):
            inside = re.match(rf"## Lab {lab}\b", line) is not None
        elif inside and (p := prediction_line(line)):
            found.append(p)
    return found


def main():
    args = sys.argv[1:]
    if len(args) < 3 or args[0] not in ("remind", "median", "gcd", "show"):
        print("usage: predict.py remind FILE N | median|gcd CSV VALUE [COL=V]... | show FILE N KEY=TEXT...",
              file=sys.stderr)
        sys.exit(2)
    if args[0] in ("median", "gcd"):
        path, value, where = args[1], args[2], [w.split("=", 1) for w in args[3:]]
        try:
            with open(path, newline="") as f:
                xs = [float(r[value]) for r in csv.DictReader(f)
                      if r.get(value) and all(r.get(c) in v.split(",") for c, v in where)]
        except OSError as e:
            sys.exit(f"predict.py: {path}: {e.strerror}")
        if not xs:
            print("-")
        elif args[0] == "gcd":
            print(math.gcd(*(int(x) for x in xs)))
        else:
            m = statistics.median(xs)
            print(f"{m:.0f}" if abs(m) >= 1000 else f"{m:.4g}")
        return
    path, lab = args[1], args[2]
    mine = predictions(path, lab)
    written = [p for p in mine if p[2].strip()]
    if args[0] == "remind":
        if not written:
            print(f"Predict first: write Lab {lab}'s predictions in {path} (one line each, before you look); "
                  f"the lab prints them beside what it measures. (It runs anyway.)")
        return
    measured = dict(a.split("=", 1) for a in args[3:] if "=" in a)
    print(f"== Your predictions ({path}, Lab {lab}) beside the measurements")
    width = max((len(f"{k} {w}") for k, w, _ in mine), default=0)
    for key, what, guess in mine:
        print(f"  {f'{key} {what}'.ljust(width)}  predicted: {guess.strip() or '(none)'}; "
              f"measured: {measured.get(key, 'see the tables above')}")
    if not mine:
        print(f"  none written: next time, predict first (the Lab {lab} section of {path})")


if __name__ == "__main__":
    main()
