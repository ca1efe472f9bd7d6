#!/usr/bin/env python3
"""medians.py - a short table of medians from a lab's CSV.

    medians.py CSV --by COL,COL --value COL,COL [--where COL=V,V ...] [--title T]

Groups the rows of CSV by the --by columns (in the order the groups first
appear) and prints, for each group, its values of the --by columns, the
number of rows, and the median of each --value column. A --value may also
be a product of columns, optionally divided by a number, computed row by
row before the median: iops*lat_mean_us/1e6 (Little's law, Lab 5).
--where keeps only the rows whose COL is one of the values listed; it may
be repeated. Labs end with such a table of the numbers their questions ask
for.
"""
import argparse
import csv
import re
import statistics
import sys

PRODUCT = re.compile(r"([A-Za-z_]\w*(?:\*[A-Za-z_]\w*)*)(?:/([0-9.]+(?:e[0-9]+)?))?")


def columns(text):
    return [c for c in text.split(",") if c]


def value_columns(text):
    """--value: columns, or products COL*COL[/NUMBER]."""
    values = columns(text)
    for v in values:
        if not PRODUCT.fullmatch(v):
            raise argparse.ArgumentTypeError(f"'{v}' is not COL or COL*COL[/NUMBER]")
    return values


def value_of(row, spec):
    """A row's value of spec: a column, or a product of columns over a number."""
    product, over = PRODUCT.fullmatch(spec).groups()
    x = 1.0
    for col in product.split("*"):
        x *= float(row[col])
    return x / float(over) if over else x


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
    parser.add_argument("--value", type=value_columns, required=True)
    parser.add_argument("--where", type=condition, action="append", default=[])
    parser.add_argument("--title")
    args = parser.parse_args()

    try:
        with open(args.csv, newline="") as f:
            rows = list(csv.DictReader(f))
            header = rows[0].keys() if rows else []
    except OSError as e:
        sys.exit(f"medians.py: {args.csv}: {e.strerror}")
    used = [c for v in args.value for c in PRODUCT.fullmatch(v).group(1).split("*")]
    wanted = args.by + used + [col for col, _ in args.where]
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
            medians = [statistics.median(value_of(r, c) for r in members) for c in args.value]
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
