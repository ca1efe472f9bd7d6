"""answers.py - reads answers.md: the one parser `make handin` and the
grader share, so that an answer handin accepts is an answer the grader finds,
by the same rules.

A question's heading is a Markdown heading (#, ## or ###) that starts with
the question's number; what follows the number on the line is a title:

    ## Q1.1                  ## Q1.1: st_blksize       ## q1.1
    ## Q1.1 (median run)     ## Q1.1 — the buffer      ## Q1.1. Why

The answer is every line under it up to the next question, or the next #
or ## heading that is not one ("### Notes" inside an answer is part of
it). A question is answered when its answer has ANSWER_WORDS words or more
(the grader's rule; fewer is not an answer).

A lab's page asks its questions as list items that open with the number
in bold, with or without a title (`- **Q1.1** What ...`,
`- **Q6.1 fflush is not durability.** Give ...`).

    python3 common/answers.py ANSWERS.md [--questions PAGE.md]... LAB...

checks ANSWERS.md for make handin: for each LAB, an error when none of its
questions is answered (exit 1); a warning naming each question the PAGEs
ask that has no answer, and one naming each answer too short to count.
"""
import re
import sys

# Q, the lab, the question; then the end of the line, a space or a
# punctuation mark, but not another digit or ".digit" (Q1.1 is not Q1.10
# or Q1.1.2).
QUESTION = re.compile(r"#{1,3}[ \t]*[Qq](\d+)\.(\d+)(?![\d]|\.\d)(?:[ \t:.)(\-–—].*)?")
HEADING = re.compile(r"#{1,2}[ \t]")
# a question a page asks: a list item opening **Qn.m, then ** or a title
ASKED = re.compile(r"^- \*\*Q(\d+)\.(\d+)(?![\d]|\.\d)(?=\*\*|[ (])", re.M)
ANSWER_WORDS = 8    # the fewest words that can answer a question (the reference answers have 54 or more)


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


def words(answer):
    return len(re.findall(r"\w+", answer))


def answered(text):
    """The questions with a non-blank answer."""
    return {q for q, a in parse(text).items() if a}


def unanswered(text, questions):
    """(missing, short): of questions, those with no answer in text, and
    those whose answer has fewer than ANSWER_WORDS words."""
    found = parse(text)
    missing = [q for q in questions if not found.get(q)]
    short = [q for q in questions if found.get(q) and words(found[q]) < ANSWER_WORDS]
    return missing, short


def asked(text, lab=None):
    """The questions a page asks (of lab only, when given), in order."""
    found = []
    for m in ASKED.finditer(text):
        q = f"Q{int(m.group(1))}.{int(m.group(2))}"
        if (lab is None or int(m.group(1)) == lab) and q not in found:
            found.append(q)
    return found


def main(argv):
    args, pages = list(argv), []
    while "--questions" in args:
        i = args.index("--questions")
        pages.append(args[i + 1] if i + 1 < len(args) else "")
        del args[i:i + 2]
    if len(args) < 2 or "" in pages or not all(re.fullmatch(r"\d+", a) for a in args[1:]):
        print("usage: answers.py ANSWERS.md [--questions PAGE.md]... LAB...", file=sys.stderr)
        return 2
    try:
        with open(args[0], encoding="utf-8", errors="replace") as f:
            text = f.read()
        texts = []
        for page in pages:
            with open(page, encoding="utf-8", errors="replace") as f:
                texts.append(f.read())
    except OSError as e:
        print(f"answers.py: {e.filename}: {e.strerror}", file=sys.stderr)
        return 1
    done = answered(text)
    status = 0
    for lab in map(int, args[1:]):
        if not any(q.startswith(f"Q{lab}.") for q in done):
            print(f"error: {args[0]}: no answer to any question of Lab {lab} "
                  f"(a heading '## Q{lab}.1', the answer under it)")
            status = 1
            continue
        questions = [q for t in texts for q in asked(t, lab)]
        missing, short = unanswered(text, questions)
        if missing:
            print(f"warning: {args[0]}: Lab {lab}: no answer under " + ", ".join(f"'## {q}'" for q in missing))
        if short:
            print(f"warning: {args[0]}: Lab {lab}: fewer than {ANSWER_WORDS} words, not an answer to the grader: "
                  + ", ".join(short))
    return status


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
