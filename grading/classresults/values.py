"""Strict parsing of the values in a submission's CSVs and machine.txt.

A number is what the kit's programs print (printf %f, %g, %d): ASCII
digits, an optional fraction and exponent, never a sign. float() alone
would take 'nan', 'inf', '1e9919' (inf), ' 1', '1_000' and non-ASCII
digits; int() would take '0x10' with base 0. Everything here says why a
value is refused, in a line short enough for the merge's report.
"""

import collections
import csv
import io
import math
import os
import re

NUMBER = r"[0-9]{1,20}(?:\.[0-9]{1,20})?(?:[eE][-+]?[0-9]{1,3})?"
# Times as the programs print them, %f: no exponent, so that the printed
# precision (spec.half_unit) is the digits after the point.
SECONDS = r"[0-9]{1,20}(?:\.[0-9]{1,20})?"
COUNT = r"[0-9]{1,15}"
TOKEN = r"[A-Za-z0-9_.+-]{1,40}"
NUMBER_RE = re.compile(NUMBER, re.ASCII)
SECONDS_RE = re.compile(SECONDS, re.ASCII)
COUNT_RE = re.compile(COUNT, re.ASCII)
TOKEN_RE = re.compile(TOKEN, re.ASCII)
HEADER_RE = re.compile(r"[a-z][a-z0-9_]{0,63}", re.ASCII)

MAX_SECONDS = 24 * 3600		# no trial of any lab lasts a day
MAX_ROWS = 100000


class Bad(Exception):
    """A value or a file that does not hold together; the message says why."""


def shown(text):
    """A value as quoted in a message: short and printable."""
    text = text[:24] + ("..." if len(text) > 24 else "")
    return repr(text.encode("ascii", "backslashreplace").decode())


def number(text):
    """A finite, non-negative number."""
    if not NUMBER_RE.fullmatch(text):
        if text[:1] == "-" and NUMBER_RE.fullmatch(text[1:]):
            raise Bad(f"{shown(text)} is negative")
        raise Bad(f"{shown(text)} is not a number")
    value = float(text)
    if not math.isfinite(value):
        raise Bad(f"{shown(text)} is out of range")
    return value


def count(text):
    """A whole number, as the programs print counts."""
    if not COUNT_RE.fullmatch(text):
        if text[:1] == "-":
            raise Bad(f"{shown(text)} is negative")
        raise Bad(f"{shown(text)} is not a whole number")
    return int(text)


def seconds(text):
    if NUMBER_RE.fullmatch(text) and not SECONDS_RE.fullmatch(text):
        raise Bad(f"{shown(text)} is not seconds as the kit prints them (no exponent)")
    value = number(text)
    if value > MAX_SECONDS:
        raise Bad(f"{shown(text)} s is more than a day")
    return value


def flag(text):
    if text not in ("0", "1"):
        raise Bad(f"{shown(text)} is not 0 or 1")
    return int(text)


def token(text):
    """A name the kit writes: experiment, mode, phase, strategy, ..."""
    if not TOKEN_RE.fullmatch(text):
        raise Bad(f"{shown(text)} is not a plain name")
    return text


PARSERS = {"number": number, "count": count, "seconds": seconds, "flag": flag, "token": token}
# A whole column at once: its fields joined by newlines, matched by one
# regular expression and converted by map(); a column that fails is then
# parsed field by field, to say which line and why.
FIELD = {"number": NUMBER, "count": COUNT, "seconds": SECONDS, "flag": "[01]", "token": TOKEN}
CONVERT = {"number": float, "count": int, "seconds": float, "flag": int, "token": str}
COLUMN_RE = {(kind, empty): re.compile(f"(?:{field}){'?' if empty else ''}"
                                       f"(?:\n(?:{field}){'?' if empty else ''})*", re.ASCII)
             for kind, field in FIELD.items() for empty in (False, True)}


def column(fields, kind, empty_ok):
    """The values of one column's fields (None for an empty one where
    empty_ok), or Bad naming the first row (0-based) that is not right."""
    def first_bad():
        for row, field in enumerate(fields):
            if field or not empty_ok:
                try:
                    value = PARSERS[kind](field)
                except Bad as e:
                    return row, e
                if kind in ("number", "seconds") and not math.isfinite(value):
                    return row, Bad(f"{shown(field)} is out of range")
        return None, None

    joined = "\n".join(fields)
    if joined.count("\n") != len(fields) - 1 or not COLUMN_RE[kind, empty_ok].fullmatch(joined):
        row, error = first_bad()
        raise Bad(row, error)
    convert = CONVERT[kind]
    if empty_ok and "" in fields:
        values = [convert(f) if f else None for f in fields]
    else:
        values = list(map(convert, fields))
    if convert is float:
        numbers = [v for v in values if v is not None]
        if numbers and (max(numbers) == math.inf or (kind == "seconds" and max(numbers) > MAX_SECONDS)):
            row, error = first_bad()
            raise Bad(row, error)
    return values


def read_csv(data, columns, name):
    """Parses a CSV's bytes by column NAME: `columns` is [(name, kind,
    required)]; extra columns are ignored, a required one missing refuses
    the file, an optional one missing reads as None. kind ends in '?' when
    the field may be empty. Returns [(values, raw)] per row: values {name:
    parsed value}, raw the fields as written, in the order of `columns`
    ('' for a column the file lacks), for the tidy CSV. Every field kept
    is parsed, and so bounded (by NUMBER, COUNT, TOKEN)."""
    try:
        text = data.decode("ascii")
    except UnicodeDecodeError:
        raise Bad(f"{name}: not ASCII text") from None
    reader = csv.reader(io.StringIO(text, newline=""), strict=True)
    try:
        header = next(reader, None)
        if not header:
            raise Bad(f"{name}: empty")
        rows = []
        for fields in reader:
            if len(fields) != len(header):
                raise Bad(f"{name} line {reader.line_num}: {len(fields)} fields, "
                          f"the header has {len(header)}")
            rows.append(fields)
            if len(rows) > MAX_ROWS:
                raise Bad(f"{name}: more than {MAX_ROWS} rows")
    except csv.Error as e:
        raise Bad(f"{name} line {reader.line_num}: not CSV ({e})") from None
    if not rows:
        raise Bad(f"{name}: no rows")
    for field in header:
        if not HEADER_RE.fullmatch(field):
            raise Bad(f"{name}: header field {shown(field)} is not a snake_case name")
    if len(set(header)) != len(header):
        raise Bad(f"{name}: a column named twice in the header")
    index = {h: i for i, h in enumerate(header)}
    missing = [c for c, _, required in columns if required and c not in index]
    if missing:
        raise Bad(f"{name}: no column {', '.join(missing)}")
    names, values = [], []
    for col, kind, _ in columns:
        if col in index:
            i = index[col]
            try:
                values.append(column([r[i] for r in rows], kind.rstrip("?"), kind.endswith("?")))
            except Bad as e:
                row, error = e.args
                # line numbers as in the file (no field spans lines: all are checked)
                raise Bad(f"{name} line {row + 2}: {col} {error}") from None
            names.append(col)
    order = [index.get(c) for c, _, _ in columns]
    parsed = [dict(zip(names, t)) for t in zip(*values)]
    raw = [[r[i] if i is not None else "" for i in order] for r in rows]
    return list(zip(parsed, raw))


# ------------------------------------------------------------ the labs' declarations

# labs/N-topic/columns.csv declares every CSV lab N writes, a row per
# column in the order the lab writes them: file (its name in data/),
# column, kind (a key of PARSERS, ending in '?' where the field may be
# empty), unit, and class: "need" (make class leaves out a file without
# it), "keep" (merged where present) or nothing (not merged). The lab
# script writes its header from it (common/lab.sh csv_open), the grader
# checks a submission's header against it, and make class reads it.
Column = collections.namedtuple("Column", "name kind unit use")
DECLARED_HEADER = ["file", "column", "kind", "unit", "class"]


def declared(kit):
    """{data file name: (lab, [Column])} of every lab of the kit, in the
    order declared. A declaration that does not hold together is a fault
    of the kit: ValueError naming its file and line."""
    files = {}
    labs = os.path.join(kit, "labs")
    for folder in sorted(os.listdir(labs)):
        path = os.path.join(labs, folder, "columns.csv")
        if not re.fullmatch(r"[1-9]-.+", folder) or not os.path.isfile(path):
            continue
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
        where = f"labs/{folder}/columns.csv"
        if not rows or rows[0] != DECLARED_HEADER:
            raise ValueError(f"{where}: the header is not {','.join(DECLARED_HEADER)}")
        for line, row in enumerate(rows[1:], start=2):
            if len(row) != 5 or row[2].rstrip("?") not in PARSERS or row[4] not in ("need", "keep", "") \
                    or not HEADER_RE.fullmatch(row[1]):
                raise ValueError(f"{where} line {line}: not file,column,kind,unit,class with a kind of "
                                 f"{', '.join(PARSERS)} (? where it may be empty), class need, keep or nothing")
            lab, columns = files.setdefault(row[0], (int(folder[0]), []))
            if lab != int(folder[0]):
                raise ValueError(f"{where} line {line}: {row[0]} is lab {lab}'s")
            if row[1] in (c.name for c in columns):
                raise ValueError(f"{where} line {line}: {row[0]} {row[1]} is declared twice")
            columns.append(Column(*row[1:]))
    return files


# ------------------------------------------------------------ machine.txt

MACHINE_KEY_RE = re.compile(r"[a-z][a-z0-9_]{0,39}", re.ASCII)
LABEL_CHARS_RE = re.compile(r"[^A-Za-z0-9 ()@._+/:#-]", re.ASCII)


def label(text):
    """A free-text value (a CPU model, a kernel) made safe for a CSV field
    and a gnuplot label: printable ASCII without quotes or commas, short."""
    text = LABEL_CHARS_RE.sub(" ", text)
    return " ".join(text.split())[:60]


def read_machine(data):
    """data/machine.txt, "key: value" lines -> {key: value}, values made
    safe with label(); cores checked as a whole number."""
    if len(data) > 64 * 1024:
        raise Bad("machine.txt: more than 64 KiB")
    out = {}
    for line in data.decode("utf-8", "replace").splitlines()[:200]:
        key, sep, value = line.partition(":")
        if sep and MACHINE_KEY_RE.fullmatch(key.strip()) and key.strip() not in out:
            out[key.strip()] = label(value)
    for key in ("cpu", "cores", "kernel", "scratch_dir_fs"):
        if not out.get(key):
            raise Bad(f"machine.txt: no {key}")
    cores = out["cores"]
    if not COUNT_RE.fullmatch(cores) or not 1 <= int(cores) <= 65536:
        raise Bad(f"machine.txt: cores {shown(cores)} is not a count of cores")
    return out
