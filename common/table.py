#!/usr/bin/env python3
"""table.py - a table of medians from a lab's CSV, to read at the end of a lab.

  python3 common/table.py CSV --by COL[,COL...] --values COL[,COL...]
                          [--count COL[,COL...]] [--where COL=VALUE]...
                          [--title TEXT | --csv]

Groups the rows by the --by columns (in the order the groups first appear)
and prints, for each group, how many rows it has (n) and, for each --values
column, the median of its values with their minimum and maximum:
"median (min-max)"; for each --count column (a 0/1 flag), in how many of
the group's rows it is 1: "3/10". Empty cells are left out; a column with no value in a
group shows "-". --where keeps only the rows whose column has that value.
Columns are found by name, so the order of the CSV's columns does not matter.

--csv prints the same as CSV, for gnuplot: the --by columns, n, then
COL_median, COL_min and COL_max for each --values column and COL_count for
each --count column (the figures draw medians with min-max whiskers from it).
"""
import argparse
import csv
import statistics
import sys


def number(text):
    """Formats a value with 4 significant digits, whole numbers as they are."""
    if text == int(text) and abs(text) < 1e9:
        return str(int(text))
    return f"{text:.4g}"


def cell(values):
    if not values:
        return "-"
    med, lo, hi = statistics.median(values), min(values), max(values)
    if lo == hi:
        return number(med)
    return f"{number(med)} ({number(lo)}-{number(hi)})"


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", metavar="CSV")
    ap.add_argument("--by", required=True, help="group-by columns, comma-separated")
    ap.add_argument("--values", required=True, help="value columns, comma-separated")
    ap.add_argument("--count", default="", help="0/1 columns, comma-separated")
    ap.add_argument("--where", action="append", default=[], metavar="COL=VALUE")
    ap.add_argument("--title", help="a line printed above the table")
    ap.add_argument("--csv", action="store_true", help="print CSV for gnuplot")
    args = ap.parse_args()
    by, values = args.by.split(","), args.values.split(",")
    counts = [c for c in args.count.split(",") if c]
    where = [w.split("=", 1) for w in args.where]

    with open(args.file, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in by + values + counts + [w[0] for w in where]
                   if c not in (reader.fieldnames or [])]
        if missing:
            sys.exit(f"table.py: {args.file}: no column {', '.join(missing)}")
        groups = {}
        for row in reader:
            if all(row[c] == v for c, v in where):
                groups.setdefault(tuple(row[c] for c in by), []).append(row)

    if args.csv:
        out = csv.writer(sys.stdout, lineterminator="\n")
        out.writerow(by + ["n"] + [f"{c}_{s}" for c in values for s in ("median", "min", "max")]
                     + [f"{c}_count" for c in counts])
        for key, rows in groups.items():
            row = list(key) + [len(rows)]
            for c in values:
                x = [float(r[c]) for r in rows if r[c] != ""]
                row += [f"{v:.6g}" for v in (statistics.median(x), min(x), max(x))] if x else ["", "", ""]
            row += [sum(r[c] == "1" for r in rows) for c in counts]
            out.writerow(row)
        return
    table = [by + ["n"] + values + counts]
    for key, rows in groups.items():
        cells = [cell([float(r[c]) for r in rows if r[c] != ""]) for c in values]
        cells += [f"{sum(r[c] == '1' for r in rows)}/{len(rows)}" for c in counts]
        table.append(list(key) + [str(len(rows))] + cells)
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    print(args.title or f"== {args.file}: median (min-max) over the n rows of each group")
    for r in table:
        print("  " + "  ".join(c.ljust(w) if i < len(by) else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths))).rstrip())


if __name__ == "__main__":
    main()
