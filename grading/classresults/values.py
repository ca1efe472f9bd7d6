"""Reading the values in a submission's CSVs and machine.txt.

A CSV's values are parsed as the grader parses them, by the kinds its lab
declares (labs/N-topic/columns.csv), with common/columns.py's one rule
for numbers; what is refused says why, in a line short enough for the
merge's report.
"""

import csv
import io
import re

from common.columns import COUNT_RE, HEADER_RE, Bad, column, shown

MAX_ROWS = 100000


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
                values.append(column([r[i] for r in rows], kind))
            except Bad as e:
                row, error = e.args
                # line numbers as in the file (no field spans lines: all are checked)
                raise Bad(f"{name} line {row + 2}: {col} {error}") from None
            names.append(col)
    order = [index.get(c) for c, _, _ in columns]
    parsed = [dict(zip(names, t)) for t in zip(*values)]
    raw = [[r[i] if i is not None else "" for i in order] for r in rows]
    return list(zip(parsed, raw))


# ------------------------------------------------------------ machine.txt

MACHINE_KEY_RE = re.compile(r"[a-z][a-z0-9_]{0,39}", re.ASCII)
LABEL_CHARS_RE = re.compile(r"[^A-Za-z0-9 ()@._+/:#-]", re.ASCII)


def label(text):
    """A free-text value (a CPU model, a kernel) made safe for a CSV field
    and a gnuplot label: printable ASCII without quotes or commas, short,
    never first + - or @ (a spreadsheet reads "+SUM(A1:A9)" as a formula;
    = is never kept)."""
    text = LABEL_CHARS_RE.sub(" ", text)
    return " ".join(text.split()).lstrip("+-@ ")[:60]


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
