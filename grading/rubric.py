"""rubric.py - handout.md's grading tables, made from the grader's modules.

    python3 grading/rubric.py [--write] [HANDOUT]

Each lab's "### How Lab N is graded" section in handout.md (default: the
kit's) ends with the table "| check | points |": its rows are the lab's
checks as grade.sh grades them (`./grade.sh --list --labs N`: the builds,
the module's checks, its STANDARD rows), points typed only in the module.
Without --write, checks that the handout's tables are those rows and that
its written questions carry the points of the module's QUESTIONS, prints
what differs and exits 1 if anything does; with --write (`make rubric`),
rewrites the tables in place.  Grades nothing: it only imports the modules.
"""

import argparse
import os
import re
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import grade  # noqa: E402

# a table's rows after its header; the table ends at the first line that is not a row
TABLE = re.compile(r"^\| check \| points \|\n\| --- \| --- \|\n((?:\|[^\n]*\|\n?)*)", re.M)
# a written question: its list item, up to the next question or heading
QUESTION = re.compile(r"^- \*\*(Q\d+\.\d+)[^\n]*(?:\n(?!- \*\*Q|#)[^\n]*)*", re.M)


def rows(lab):
    """The table rows of lab's checks, in the order grade.sh grades them."""
    checks, _ = grade.load([lab])
    return "".join(f"| {c.title.replace('|', chr(92) + '|')} | {c.points} |\n" for c in checks if c.lab == lab)


def section(text, lab):
    """(start, end) of lab's "How Lab N is graded" section in text."""
    m = re.search(rf"^### How Lab {lab} is graded\n", text, re.M)
    if not m:
        raise SystemExit(f"rubric.py: handout.md has no section '### How Lab {lab} is graded'")
    end = re.compile(r"^#", re.M).search(text, m.end())
    return m.start(), end.start() if end else len(text)


def tables(text):
    """text with every lab's grading table made from its module; and the
    labs whose table was not that."""
    stale = []
    for lab in grade.kit_labs():
        start, end = section(text, lab)
        m = TABLE.search(text, start, end)
        if not m:
            raise SystemExit(f"rubric.py: the section 'How Lab {lab} is graded' has no table '| check | points |'")
        want = rows(lab)
        if m.group(1).rstrip("\n") + "\n" != want:
            stale.append(lab)
            text = text[:m.start(1)] + want + text[m.end(1):]
    return text, stale


def questions(text):
    """The written questions whose points differ between handout.md and
    the modules' QUESTIONS, one line each."""
    handout = {}
    for m in QUESTION.finditer(text):
        points = re.search(r"\((\d+) (?:points?|pts)", m.group(0))
        handout[m.group(1)] = int(points.group(1)) if points else None
    modules = {}
    for module in grade.load(grade.kit_labs())[1].values():
        modules.update(module.QUESTIONS)
    return [f"{q}: {modules.get(q, 'not')} in QUESTIONS, {handout.get(q, 'not')} in handout.md"
            for q in sorted(set(handout) | set(modules)) if handout.get(q) != modules.get(q)]


def main():
    p = argparse.ArgumentParser(description="handout.md's grading tables from the grader's modules")
    p.add_argument("--write", action="store_true", help="rewrite the tables (else check them)")
    p.add_argument("handout", nargs="?", default=os.path.join(grade.KIT, "handout.md"))
    args = p.parse_args()
    missing = grade.kit_missing()
    if missing:
        sys.exit(f"rubric.py: {missing}")
    try:
        with open(args.handout, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        print(f"rubric.py: {args.handout}: {e.strerror}", file=sys.stderr)
        return 1
    new, stale = tables(text)
    wrong = questions(text)
    for line in wrong:
        print(f"rubric.py: {line}", file=sys.stderr)
    if args.write:
        if new != text:
            tmp = args.handout + ".tmp"
            with open(tmp, "w", encoding="utf-8") as f:
                f.write(new)
            os.replace(tmp, args.handout)
            print(f"rubric.py: wrote the tables of lab {', '.join(map(str, stale))}")
        return 1 if wrong else 0
    for lab in stale:
        print(f"rubric.py: the table 'How Lab {lab} is graded' is not the grader's checks: make rubric",
              file=sys.stderr)
    return 1 if stale or wrong else 0


if __name__ == "__main__":
    sys.exit(main())
