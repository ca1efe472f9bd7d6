"""columns.py - what a lab's CSVs hold, and the one way their values are read.

Each lab declares its CSVs beside its programs, in two plain files:

  labs/N-topic/columns.csv  file,column,kind,unit,class: a row per column
      of every CSV the lab writes, in the order the lab writes them. kind
      is one of KINDS below, with '?' where the field may be empty; class
      is "need" (make class leaves out a file without it), "keep" (merged
      where present) or nothing (not merged).
  labs/N-topic/trials.csv   file,configuration,measured,above,below,trials,equal_from:
      a row per CSV of trials. configuration: the columns (separated by
      spaces) whose values make one configuration, the thing a trial
      repeats; measured: the column a trial measures; above and below: the
      bounds a measured value lies strictly between; trials: how many
      trials of each configuration the lab asks for (distinct values of
      the file's trial column); equal_from: all the measured values of a
      configuration equal, at least this large, were not measured (below
      it the CSV's printed precision can make honest trials equal).

The lab script writes its CSV headers from columns.csv (common/lab.sh),
the grader (grading/gradelib.py) and make class (grading/classresults)
read both files through this module, and parse every value here, with one
rule:

  number   ASCII digits (1 to 20), then optionally a point and 1 to 20
           digits, then optionally e or E, a sign and 1 to 3 digits:
           "0.007209", "7.209e-03", "1E+03", "2911". Never a sign of its
           own (every kind is a size, a count or a time: none is
           negative, and "-0.0" is refused too), nor space, "nan", "inf",
           hex, "1_000", "1,5", ".5" or "1.". A value past the largest
           float ("1e400") is out of range.
  seconds  a number of at most a day (no trial of any lab lasts one).
  count    1 to 15 ASCII digits.
  flag     0 or 1.
  token    a plain name: 1 to 40 of A-Z a-z 0-9 _ . + -, the first a
           letter, digit or _ (a spreadsheet reads "+A1-B2" as a formula)

Every refusal says why in one short line (Bad). One median too (median).
Run from a lab script, common/ is the script's own directory; the grader
and make class import it from the kit.
"""

import collections
import csv
import math
import os
import re
import statistics

NUMBER = r"[0-9]{1,20}(?:\.[0-9]{1,20})?(?:[eE][-+]?[0-9]{1,3})?"
COUNT = r"[0-9]{1,15}"
TOKEN = r"[A-Za-z0-9_][A-Za-z0-9_.+-]{0,39}"
NUMBER_RE = re.compile(NUMBER, re.ASCII)
COUNT_RE = re.compile(COUNT, re.ASCII)
TOKEN_RE = re.compile(TOKEN, re.ASCII)
HEADER_RE = re.compile(r"[a-z][a-z0-9_]{0,63}", re.ASCII)

MAX_SECONDS = 24 * 3600		# no trial of any lab lasts a day


class Bad(Exception):
    """A value or a declaration that does not hold together; the message says why."""


def shown(text):
    """A value as quoted in a message: short and printable."""
    text = text[:24] + ("..." if len(text) > 24 else "")
    return repr(text.encode("ascii", "backslashreplace").decode())


def number(text):
    """A finite, non-negative number, as the rule above says."""
    if not NUMBER_RE.fullmatch(text):
        if text[:1] in "-+" and NUMBER_RE.fullmatch(text[1:]):
            raise Bad(f"{shown(text)} has a sign (a size, count or time has none)")
        raise Bad(f"{shown(text)} is not a number")
    value = float(text)
    if not math.isfinite(value):
        raise Bad(f"{shown(text)} is out of range")
    return value


def count(text):
    """A whole number, as the programs print counts."""
    if not COUNT_RE.fullmatch(text):
        if text[:1] in "-+":
            raise Bad(f"{shown(text)} has a sign (a count has none)")
        raise Bad(f"{shown(text)} is not a whole number")
    return int(text)


def seconds(text):
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


KINDS = {"number": number, "count": count, "seconds": seconds, "flag": flag, "token": token}
# A whole column at once: its fields joined by newlines, matched by one
# regular expression and converted by map() (a lab's CSV has thousands of
# values); a column that fails is then parsed field by field, to say which
# row and why.
FIELD = {"number": NUMBER, "count": COUNT, "seconds": NUMBER, "flag": "[01]", "token": TOKEN}
CONVERT = {"number": float, "count": int, "seconds": float, "flag": int, "token": str}
COLUMN_RE = {(kind, empty): re.compile(f"(?:{field}){'?' if empty else ''}"
                                       f"(?:\n(?:{field}){'?' if empty else ''})*", re.ASCII)
             for kind, field in FIELD.items() for empty in (False, True)}


def value(text, kind):
    """One field of a declared kind ('?' at its end: it may be empty, None)."""
    if kind.endswith("?") and text == "":
        return None
    return KINDS[kind.rstrip("?")](text)


def column(fields, kind):
    """The values of one column's fields, of a declared kind (None for an
    empty one where the kind ends in '?'), or Bad(row, Bad) naming the
    first row (0-based) that is not right."""
    empty_ok, kind = kind.endswith("?"), kind.rstrip("?")

    def first_bad():
        for row, field in enumerate(fields):
            if field or not empty_ok:
                try:
                    KINDS[kind](field)
                except Bad as e:
                    return row, e
        return None, None

    joined = "\n".join(fields)
    if joined.count("\n") != len(fields) - 1 or not COLUMN_RE[kind, empty_ok].fullmatch(joined):
        raise Bad(*first_bad())
    convert = CONVERT[kind]
    if empty_ok and "" in fields:
        values = [convert(f) if f else None for f in fields]
    else:
        values = list(map(convert, fields))
    if convert is float:	# past the largest float, or seconds past a day
        numbers = [v for v in values if v is not None]
        if numbers and (max(numbers) == math.inf or (kind == "seconds" and max(numbers) > MAX_SECONDS)):
            raise Bad(*first_bad())
    return values


def median(values):
    """The median of the values that are not None (the mean of the middle
    two of an even count); None when there are none."""
    values = [x for x in values if x is not None]
    return statistics.median(values) if values else None


# ------------------------------------------------------------ the labs' declarations

Column = collections.namedtuple("Column", "name kind unit use")
DECLARED_HEADER = ["file", "column", "kind", "unit", "class"]
Trials = collections.namedtuple("Trials", "file configuration measured above below trials equal_from")
TRIALS_HEADER = list(Trials._fields)


def lab_folders(kit):
    """[(lab number, folder name)] of the kit's labs/N-topic folders."""
    labs = os.path.join(kit, "labs")
    return [(int(d[0]), d) for d in sorted(os.listdir(labs))
            if re.fullmatch(r"[1-9]-.+", d) and os.path.isdir(os.path.join(labs, d))]


def _rows(kit, folder, name, header):
    """The rows of labs/FOLDER/NAME after its header, with their line
    numbers; [] without the file."""
    path = os.path.join(kit, "labs", folder, name)
    if not os.path.isfile(path):
        return []
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    if not rows or rows[0] != header:
        raise ValueError(f"labs/{folder}/{name}: the header is not {','.join(header)}")
    return list(enumerate(rows[1:], start=2))


def declared(kit):
    """{data file name: (lab, [Column])} of every lab of the kit, in the
    order declared (columns.csv). A declaration that does not hold
    together is a fault of the kit: ValueError naming its file and line."""
    files = {}
    for lab, folder in lab_folders(kit):
        where = f"labs/{folder}/columns.csv"
        for line, row in _rows(kit, folder, "columns.csv", DECLARED_HEADER):
            if len(row) != 5 or row[2].rstrip("?") not in KINDS or row[4] not in ("need", "keep", "") \
                    or not HEADER_RE.fullmatch(row[1]):
                raise ValueError(f"{where} line {line}: not file,column,kind,unit,class with a kind of "
                                 f"{', '.join(KINDS)} (? where it may be empty), class need, keep or nothing")
            of, columns = files.setdefault(row[0], (lab, []))
            if of != lab:
                raise ValueError(f"{where} line {line}: {row[0]} is lab {of}'s")
            if row[1] in (c.name for c in columns):
                raise ValueError(f"{where} line {line}: {row[0]} {row[1]} is declared twice")
            columns.append(Column(*row[1:]))
    return files


def declared_trials(kit):
    """{data file name: Trials} of every lab's trials.csv, checked against
    its columns.csv: ValueError naming the file and line."""
    files, columns = {}, declared(kit)
    for lab, folder in lab_folders(kit):
        where = f"labs/{folder}/trials.csv"
        for line, row in _rows(kit, folder, "trials.csv", TRIALS_HEADER):
            bad = f"{where} line {line}: "
            if len(row) != len(TRIALS_HEADER):
                raise ValueError(bad + f"not {len(TRIALS_HEADER)} fields")
            name, config, measured, above, below, trials, equal_from = row
            if columns.get(name, (None,))[0] != lab:
                raise ValueError(bad + f"{name} is not a file labs/{folder}/columns.csv declares")
            kinds = {c.name: c.kind for c in columns[name][1]}
            config = tuple(config.split())
            for c in (*config, measured, "trial"):
                if c not in kinds:
                    raise ValueError(bad + f"{name} has no column {c} (labs/{folder}/columns.csv)")
            if kinds[measured] not in ("number", "seconds"):
                raise ValueError(bad + f"{measured} is a {kinds[measured]}, not a number or seconds that never "
                                 "is empty")
            try:
                rule = Trials(name, config, measured, number(above), number(below), count(trials),
                              number(equal_from))
            except Bad as e:
                raise ValueError(bad + str(e)) from None
            if name in files:
                raise ValueError(bad + f"{name} is declared twice")
            files[name] = rule
    return files


# ------------------------------------------------------------ the trials rule

def configuration(row, rule):
    """A row's configuration, as words: experiment=buffer buffer_bytes=0
    mode=append (an empty field left out)."""
    return " ".join(f"{c}={row[c]}" for c in rule.configuration if row[c] is not None)


def out_of_bounds(rows, rule):
    """Why the first row whose measured value is not strictly between the
    declared bounds cannot be, or None. rows: parsed (column: value)."""
    for line, r in enumerate(rows, start=2):
        x = r[rule.measured]
        if not rule.above < x < rule.below:
            return (f"{rule.file} line {line}: {rule.measured} {x:g} is not between {rule.above:g} "
                    f"and {rule.below:g}")
    return None


def forged(rows, rule):
    """The first configuration of rule.trials trials or more whose measured
    values (every row's: both writers' in Lab 1) are all equal, and at
    least rule.equal_from: not measured."""
    groups = {}
    for r in rows:
        trials, xs = groups.setdefault(configuration(r, rule), (set(), []))
        trials.add(r["trial"])
        xs.append(r[rule.measured])
    for conf, (trials, xs) in groups.items():
        if len(trials) >= rule.trials and xs[0] >= rule.equal_from and len(set(xs)) == 1:
            return (f"{rule.file}: all {len(trials)} trials of {conf} have {rule.measured} {xs[0]:g} exactly: "
                    "not measured")
    return None


def too_few(rows, rule):
    """The first configuration with fewer trials (distinct values of the
    trial column) than the lab asks for."""
    trials = {}
    for r in rows:
        trials.setdefault(configuration(r, rule), set()).add(r["trial"])
    for conf, seen in trials.items():
        if len(seen) < rule.trials:
            return f"{rule.file}: only {len(seen)} trial(s) of {conf} (at least {rule.trials})"
    return None
