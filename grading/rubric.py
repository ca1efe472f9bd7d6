"""rubric.py - each lab page's grading table, made from the grader's modules.

    python3 grading/rubric.py [--write] [PAGE...]

Each lab's page (labs/N-topic/README.md, opening "# Lab N:"; default: every
lab's page of the kit) has a section "## How Lab N is graded" that ends
with the table "| check | points |": its rows are the lab's checks as
grade.sh grades them (`./grade.sh --list --labs N`: the builds, the
module's checks, its STANDARD rows), points typed only in the module.
Without --write, checks that the pages' tables are those rows and that
their written questions carry the points of the module's QUESTIONS,
prints what differs and exits 1 if anything does; with --write (`make
rubric`), rewrites the tables in place.  Grades nothing: it only imports
the modules.
"""

import argparse
import os
import re
import sys

if __name__ == "__main__":  # run as a file: the kit's root in place of this folder (see grade.py)
    HERE = os.path.dirname(os.path.realpath(__file__))
    sys.path[0:1 if sys.path and os.path.realpath(sys.path[0]) == HERE else 0] = [os.path.dirname(HERE)]
from grading import discover  # noqa: E402
from grading.gradelib import KIT  # noqa: E402

# a table's rows after its header; the table ends at the first line that is not a row
TABLE = re.compile(r"^\| check \| points \|\n\| --- \| --- \|\n((?:\|[^\n]*\|\n?)*)", re.M)
# a written question: its list item, up to the next question or heading
QUESTION = re.compile(r"^- \*\*(Q\d+\.\d+)[^\n]*(?:\n(?!- \*\*Q|#)[^\n]*)*", re.M)


def rows(lab):
    """The table rows of lab's checks, in the order grade.sh grades them."""
    checks, _ = discover.load([lab])
    return "".join(f"| {c.title.replace('|', chr(92) + '|')} | {c.points} |\n" for c in checks if c.lab == lab)


def section(text, lab, path):
    """(start, end) of lab's "How Lab N is graded" section in text."""
    m = re.search(rf"^## How Lab {lab} is graded\n", text, re.M)
    if not m:
        raise SystemExit(f"rubric.py: {path} has no section '## How Lab {lab} is graded'")
    end = re.compile(r"^#", re.M).search(text, m.end())
    return m.start(), end.start() if end else len(text)


def page_lab(text, path):
    """The lab a page is the page of: its "# Lab N:" heading."""
    m = re.match(r"# Lab (\d+):", text)
    if not m:
        raise SystemExit(f"rubric.py: {path} does not open with a heading '# Lab N: title'")
    return int(m.group(1))


def table(text, lab, path):
    """text with the lab's grading table made from its module; and whether
    the table was not that."""
    start, end = section(text, lab, path)
    m = TABLE.search(text, start, end)
    if not m:
        raise SystemExit(f"rubric.py: {path}: the section 'How Lab {lab} is graded' has no table "
                         "'| check | points |'")
    want = rows(lab)
    if m.group(1).rstrip("\n") + "\n" == want:
        return text, False
    return text[:m.start(1)] + want + text[m.end(1):], True


def questions(text, lab, path):
    """The written questions whose points differ between a lab's page and
    its module's QUESTIONS, one line each."""
    page = {}
    for m in QUESTION.finditer(text):
        points = re.search(r"\((\d+) (?:points?|pts)", m.group(0))
        page[m.group(1)] = int(points.group(1)) if points else None
    modules = dict(discover.load([lab])[1][lab].QUESTIONS)
    return [f"{q}: {modules.get(q, 'not')} in QUESTIONS, {page.get(q, 'not')} in {path}"
            for q in sorted(set(page) | set(modules)) if page.get(q) != modules.get(q)]


def kit_pages():
    return [os.path.join(KIT, "labs", discover.lab_dir(lab), "README.md") for lab in discover.kit_labs()]


def main():
    p = argparse.ArgumentParser(description="each lab page's grading table from the grader's modules")
    p.add_argument("--write", action="store_true", help="rewrite the tables (else check them)")
    p.add_argument("pages", nargs="*", metavar="PAGE", help="a lab's page (default: every lab's, labs/*/README.md)")
    args = p.parse_args()
    missing = discover.kit_missing()
    if missing:
        sys.exit(f"rubric.py: {missing}")
    status = 0
    for path in args.pages or kit_pages():
        try:
            with open(path, encoding="utf-8") as f:
                text = f.read()
        except OSError as e:
            print(f"rubric.py: {path}: {e.strerror}", file=sys.stderr)
            return 1
        shown = os.path.relpath(path, KIT) if not args.pages else path
        lab = page_lab(text, shown)
        new, stale = table(text, lab, shown)
        wrong = questions(text, lab, shown)
        for line in wrong:
            print(f"rubric.py: {line}", file=sys.stderr)
        status = 1 if wrong else status
        if args.write:
            if new != text:
                tmp = path + ".tmp"
                with open(tmp, "w", encoding="utf-8") as f:
                    f.write(new)
                os.replace(tmp, path)
                print(f"rubric.py: wrote the table of lab {lab} in {shown}")
            continue
        if stale:
            print(f"rubric.py: the table 'How Lab {lab} is graded' in {shown} is not the grader's checks: "
                  "make rubric", file=sys.stderr)
            status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
