"""answers.py - reads answers.md: the one parser `make handin` and the
grader share, so that an answer handin accepts is an answer the grader finds.

A question's heading is a Markdown heading (#, ## or ###) that starts with
the question's number; what follows the number on the line is a title:

    ## Q1.1                  ## Q1.1: st_blksize       ## q1.1
    ## Q1.1 (median run)     ## Q1.1 — the buffer      ## Q1.1. Why

The answer is every line under it up to the next question, or the next #
or ## heading that is not one ("### Notes" inside an answer is part of
it). A question is answered when its answer has a line that is not blank.

    python3 common/answers.py ANSWERS.md [--handout HANDOUT.md] LAB...

checks ANSWERS.md for make handin: for each LAB, an error when none of its
questions is answered (exit 1), a warning listing the questions of
HANDOUT.md's that are not (its **Qn.m** markers).
"""
import re
import sys

# Q, the lab, the question; then the end of the line, a space or a
# punctuation mark, but not another digit or ".digit" (Q1.1 is not Q1.10
# or Q1.1.2).
QUESTION = re.compile(r"#{1,3}[ \t]*[Qq](\d+)\.(\d+)(?![\d]|\.\d)(?:[ \t:.)(\-–—].*)?")
HEADING = re.compile(r"#{1,2}[ \t]")


def parse(text):
    """{"Q1.1": its answer's text, ...} in the order of the headings; a
    question written twice gets both answers."""
    answers, current = {}, None
    for line in text.splitlines():
        m = QUESTION.fullmatch(line.rstrip())
        if m:
            current = f"Q{int(m.group(1))}.{int(m.group(2))}"
            answers.setdefault(current, "")
        elif HEADING.match(line):
            current = None
        elif current is not None:
            answers[current] += line + "\n"
    return {q: a.strip() for q, a in answers.items()}


def answered(text):
    """The questions with a non-blank answer."""
    return {q for q, a in parse(text).items() if a}


def handout_questions(text, lab):
    """The questions of a lab the handout asks: its **Qn.m** markers."""
    found = []
    for m in re.finditer(rf"\*\*Q{lab}\.(\d+)\*\*", text):
        q = f"Q{lab}.{int(m.group(1))}"
        if q not in found:
            found.append(q)
    return found


def main(argv):
    args, handout = list(argv), None
    if "--handout" in args:
        i = args.index("--handout")
        handout = args[i + 1] if i + 1 < len(args) else None
        del args[i:i + 2]
    if len(args) < 2 or handout == "" or not all(re.fullmatch(r"\d+", a) for a in args[1:]):
        print("usage: answers.py ANSWERS.md [--handout HANDOUT.md] LAB...", file=sys.stderr)
        return 2
    try:
        with open(args[0], encoding="utf-8", errors="replace") as f:
            done = answered(f.read())
        asked = None
        if handout:
            with open(handout, encoding="utf-8", errors="replace") as f:
                asked = f.read()
    except OSError as e:
        print(f"answers.py: {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    status = 0
    for lab in args[1:]:
        questions = handout_questions(asked, int(lab)) if asked else []
        if not any(q.startswith(f"Q{int(lab)}.") for q in done):
            print(f"error: {args[0]}: no answer to any question of Lab {int(lab)} "
                  f"(a heading '## Q{int(lab)}.1', the answer under it)")
            status = 1
        elif [q for q in questions if q not in done]:
            left = [q for q in questions if q not in done]
            print(f"warning: {args[0]}: no answer under " + ", ".join(f"'## {q}'" for q in left))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
