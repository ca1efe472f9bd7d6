#!/usr/bin/env python3
"""table.py - a table of medians from a lab's CSV, to read at the end of a lab.

  python3 common/table.py CSV --by COL[,COL...] --values COL[,COL...]
                          [--count COL[,COL...]] [--gcd COL[,COL...]]
                          [--where COL=VALUE[,VALUE...]]...
                          [--title TEXT | --csv | --out FILE]

Groups the rows by the --by columns (in the order the groups first appear)
and prints, for each group, how many rows it has (n) and, for each --values
column, the median of its values with their minimum and maximum:
"median (min-max)"; for each --count column (a 0/1 flag), in how many of
the group's rows it is 1: "3/10"; for each --gcd column (whole numbers), the
greatest common divisor of the group's values, a statistic that a few rows
already settle where a median needs many (Lab 1's run unit). Empty cells are left out; a column with no value in a
group shows "-". --where keeps only the rows whose column has one of the
values listed; it may be repeated. (--value is --values.)
Columns are found by name, so the order of the CSV's columns does not matter.
A --values column may also be a product of columns, optionally over a
number or a column, computed row by row before the median:
iops*lat_mean_us/1e6 (Little's law, Lab 5: the median of the products, not
the product of the medians), wall_s/passes (Lab 3: the time of one pass).

--csv prints the same as CSV, for gnuplot: the --by columns, n, then
COL_median, COL_min and COL_max for each --values column, COL_count for
each --count column and COL_gcd for each --gcd column; its rows sorted by
the --by columns in turn (numbers as numbers), so that the rows of one
series are together and gnuplot joins them with a line. --out FILE writes
that CSV into FILE, whole or not at all: a lab writes its figures' medians
with it (data/labN-*-medians.csv), and the figures read those files.
"""
import argparse
import csv
import math
import os
import re
import sys

# common/columns.py's median, the kit's one (the grader's too): beside this
# file when it runs as a command, common.columns when the grader's tests
# import it as common.table.
if __package__:
    from .columns import median
else:
    from columns import median

# A --values entry: COL, or COL*COL...[/NUMBER or /COL].
PRODUCT = re.compile(r"([A-Za-z_]\w*(?:\*[A-Za-z_]\w*)*)(?:/([0-9.]+(?:e[0-9]+)?|[A-Za-z_]\w*))?")


def number(x):
    """A value with 4 significant digits; from 1000 up, rounded to a whole number."""
    if x == int(x) and abs(x) < 1e15:
        return str(int(x))
    if abs(x) >= 1000:
        return f"{x:.0f}"
    return f"{x:.4g}"


def condition(text):
    """--where COL=VALUE[,VALUE...]: the column and the set of its values kept."""
    col, sep, values = text.partition("=")
    if not sep or not col:
        raise argparse.ArgumentTypeError(f"'{text}' is not COL=VALUE[,VALUE...]")
    return col, set(values.split(","))


def value_spec(text):
    """--values: columns or products, comma-separated."""
    specs = [v for v in text.split(",") if v]
    for v in specs:
        if not PRODUCT.fullmatch(v):
            raise argparse.ArgumentTypeError(f"'{v}' is not COL or COL*COL[/NUMBER or /COL]")
    return specs


def value_of(row, spec):
    """A row's value of spec (None where a cell is empty); ValueError if not a number."""
    product, over = PRODUCT.fullmatch(spec).groups()
    x = 1.0
    for col in product.split("*"):
        if row[col] == "":
            return None
        x *= float(row[col])
    if over and over in row:
        return x / float(row[over]) if row[over] not in ("", "0") else None
    return x / float(over) if over else x


def cell(values):
    if not values:
        return "-"
    med, lo, hi = median(values), min(values), max(values)
    if lo == hi:
        return number(med)
    return f"{number(med)} ({number(lo)}-{number(hi)})"


def gcd_cell(rows, col):
    """The greatest common divisor of the group's values of col, "-" if none."""
    values = [int(float(r[col])) for r in rows if r[col] != ""]
    return str(math.gcd(*values)) if values else "-"


def sort_key(key):
    """A group's --by values in order, numbers as numbers and before words."""
    out = []
    for v in key:
        try:
            out.append((0, float(v), ""))
        except ValueError:
            out.append((1, 0.0, v))
    return out


def write_csv(f, by, values, counts, gcds, groups, series):
    """The --csv table into the open file f."""
    out = csv.writer(f, lineterminator="\n")
    out.writerow(by + ["n"] + [f"{c}_{s}" for c in values for s in ("median", "min", "max")]
                 + [f"{c}_count" for c in counts] + [f"{c}_gcd" for c in gcds])
    for key in sorted(groups, key=sort_key):
        rows = groups[key]
        row = list(key) + [len(rows)]
        for x in series[key]:
            row += [f"{v:.6g}" for v in (median(x), min(x), max(x))] if x else ["", "", ""]
        row += [sum(r[c] == "1" for r in rows) for c in counts]
        row += [gcd_cell(rows, c).replace("-", "") for c in gcds]
        out.writerow(row)


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("file", metavar="CSV")
    ap.add_argument("--by", required=True, help="group-by columns, comma-separated")
    ap.add_argument("--values", "--value", required=True, type=value_spec,
                    help="value columns (or products COL*COL[/NUMBER or /COL]), comma-separated")
    ap.add_argument("--count", default="", help="0/1 columns, comma-separated")
    ap.add_argument("--gcd", default="", help="whole-number columns, comma-separated")
    ap.add_argument("--where", action="append", default=[], type=condition,
                    metavar="COL=VALUE[,VALUE...]")
    ap.add_argument("--title", help="a line printed above the table")
    ap.add_argument("--csv", action="store_true", help="print CSV for gnuplot")
    ap.add_argument("--out", metavar="FILE", help="write that CSV into FILE")
    args = ap.parse_args()
    by, values = args.by.split(","), args.values
    used = [c for v in values for c in PRODUCT.fullmatch(v).group(1).split("*")]
    used += [o for v in values if (o := PRODUCT.fullmatch(v).group(2)) and not o[0].isdigit() and o[0] != "."]
    counts = [c for c in args.count.split(",") if c]
    gcds = [c for c in args.gcd.split(",") if c]
    where = args.where

    try:
        with open(args.file, newline="") as f:
            reader = csv.DictReader(f)
            missing = [c for c in dict.fromkeys(by + used + counts + gcds + [w[0] for w in where])
                       if c not in (reader.fieldnames or [])]
            if missing:
                sys.exit(f"table.py: {args.file}: no column {', '.join(missing)}")
            groups = {}
            for row in reader:
                if all(row[c] in v for c, v in where):
                    groups.setdefault(tuple(row[c] for c in by), []).append(row)
    except OSError as e:
        sys.exit(f"table.py: {args.file}: {e.strerror}")
    for rows in groups.values():
        for c in used + gcds:
            for r in rows:
                if r[c] != "":
                    try:
                        float(r[c])
                    except ValueError:
                        sys.exit(f"table.py: {args.file}: a value of {c} is not a number: {r[c]}")
    # Each group's values of each --values entry, empty cells left out.
    series = {key: [[x for x in (value_of(r, v) for r in rows) if x is not None] for v in values]
              for key, rows in groups.items()}

    if args.csv:
        write_csv(sys.stdout, by, values, counts, gcds, groups, series)
        return
    if args.out:
        # beside FILE, then renamed over it: never half a file
        tmp = f"{args.out}.tmp"
        try:
            with open(tmp, "w", newline="") as f:
                write_csv(f, by, values, counts, gcds, groups, series)
            os.replace(tmp, args.out)
        except OSError as e:
            try:
                os.unlink(tmp)
            except OSError:
                pass
            sys.exit(f"table.py: {args.out}: {e.strerror}")
        return
    table = [by + ["n"] + values + counts + [f"gcd({c})" for c in gcds]]
    for key, rows in groups.items():
        cells = [cell(x) for x in series[key]]
        cells += [f"{sum(r[c] == '1' for r in rows)}/{len(rows)}" for c in counts]
        cells += [gcd_cell(rows, c) for c in gcds]
        table.append(list(key) + [str(len(rows))] + cells)
    widths = [max(len(r[i]) for r in table) for i in range(len(table[0]))]
    print(args.title or f"== {args.file}: median (min-max) over the n rows of each group")
    for r in table:
        print("  " + "  ".join(c.ljust(w) if i < len(by) else c.rjust(w)
                               for i, (c, w) in enumerate(zip(r, widths))).rstrip())


if __name__ == "__main__":
    main()
