#!/usr/bin/env python3
"""medians.py - a short table of medians from a lab's CSV.

    medians.py CSV --by COL,COL --value COL,COL [--where COL=V,V ...] [--title T]

Groups the rows of CSV by the --by columns (in the order the groups first
appear) and prints, for each group, its values of the --by columns, the
number of rows, and the median of each --value column. --where keeps only
the rows whose COL is one of the values listed; it may be repeated.
Labs end with such a table of the numbers their questions ask for.
"""
import argparse
import csv
import statistics
import sys


def columns(text):
    return [c for c in text.split(",") if c]


def condition(text):
    col, sep, values = text.partition("=")
    if not sep or not col:
        raise argparse.ArgumentTypeError(f"'{text}' is not COL=VALUE[,VALUE...]")
    return col, set(values.split(","))


def number(text):
    """6 significant digits, without an exponent for everyday sizes."""
    return f"{text:.6g}" if isinstance(text, float) else str(text)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("csv")
    parser.add_argument("--by", type=columns, required=True)
    parser.add_argument("--value", type=columns, required=True)
    parser.add_argument("--where", type=condition, action="append", default=[])
    parser.add_argument("--title")
    args = parser.parse_args()

    try:
        with open(args.csv, newline="") as f:
            rows = list(csv.DictReader(f))
            header = rows[0].keys() if rows else []
    except OSError as e:
        sys.exit(f"medians.py: {args.csv}: {e.strerror}")
    wanted = args.by + args.value + [col for col, _ in args.where]
    missing = [c for c in wanted if rows and c not in header]
    if missing:
        sys.exit(f"medians.py: {args.csv}: no column {', '.join(missing)}")

    groups = {}
    for row in rows:
        if all(row[col] in values for col, values in args.where):
            key = tuple(row[c] for c in args.by)
            groups.setdefault(key, []).append(row)

    table = [args.by + ["n"] + [f"median {c}" for c in args.value]]
    for key, members in groups.items():
        try:
            medians = [statistics.median(float(r[c]) for r in members) for c in args.value]
        except ValueError:
            sys.exit(f"medians.py: {args.csv}: a value of {', '.join(args.value)} is not a number")
        table.append(list(key) + [str(len(members))] + [number(m) for m in medians])
    widths = [max(len(line[i]) for line in table) for i in range(len(table[0]))]
    if args.title:
        print(args.title)
    for line in table:
        print("  " + "  ".join(cell.rjust(w) for cell, w in zip(line, widths)))


if __name__ == "__main__":
    main()
