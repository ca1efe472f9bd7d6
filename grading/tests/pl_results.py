"""pl_results.py - checks a PrairieLearn results.json against what
PrairieLearn's "External Grading" page documents, and its size:

    python3 pl_results.py FILE gradable|ungradable

Fields: `score` in [0, 1] (needed when gradable), `gradable`, `message`,
`output`, `format_errors` (a string or a list of strings, for a submission
not gradable), `images` (a list of {label, url}, url a data: URL),
`tests` (each with name, description, points, max_points, message,
output, images); nothing else. The file: at most 1,000,000 bytes, since
the grader host refuses results over 1 MB. A submission that is not
gradable must say why in format_errors, in words that name no path of
the grading machine and no note of the grader's (chmod).
Prints each problem on a line; exit status 1 if there is one.
"""

import json
import re
import sys

LIMIT = 1_000_000
TOP = {"gradable", "score", "message", "output", "format_errors", "images", "tests"}
TEST = {"name", "description", "points", "max_points", "message", "output", "images"}
# what a grader's path or note looks like in text a student reads
GRADER_TEXT = re.compile(r"/grade\b|/autograder\b|serverFilesCourse|/tmp/|iolab-grade\.|chmod")


def images_problems(images, where):
    if not isinstance(images, list):
        return [f"{where}images is not a list"]
    out = []
    for i in images:
        url = i if isinstance(i, str) else i.get("url") if isinstance(i, dict) else None
        if not isinstance(url, str) or not re.match(r"data:image/[a-z+]+;base64,", url):
            out.append(f"{where}images: {str(i)[:60]} is not a data: URL of an image")
        elif isinstance(i, dict) and (set(i) - {"label", "url"} or not isinstance(i.get("label", ""), str)):
            out.append(f"{where}images: fields {sorted(i)}, not label and url")
    return out


def problems(r, size, gradable):
    out = [] if size <= LIMIT else [f"{size} bytes, over PrairieLearn's {LIMIT}"]
    if not isinstance(r, dict):
        return out + ["not a JSON object"]
    out += [f"unknown field {k}" for k in sorted(set(r) - TOP)]
    if r.get("gradable", True) is not gradable:
        out.append(f"gradable is {r.get('gradable', True)}, not {gradable}")
    if gradable:
        if not isinstance(r.get("score"), (int, float)) or not 0 <= r["score"] <= 1:
            out.append(f"score {r.get('score')!r} is not a number from 0 to 1")
    else:
        errors = r.get("format_errors")
        errors = [errors] if isinstance(errors, str) else errors
        if not errors or not all(isinstance(e, str) and e for e in errors):
            out.append("not gradable, and no format_errors saying why")
    for k in ("message", "output"):
        if k in r and not isinstance(r[k], str):
            out.append(f"{k} is not a string")
    out += images_problems(r.get("images", []), "")
    tests = r.get("tests", [])
    if not isinstance(tests, list):
        return out + ["tests is not a list"]
    for t in tests:
        name = str(t.get("name"))[:40] if isinstance(t, dict) else "?"
        if not isinstance(t, dict) or set(t) - TEST:
            out.append(f"test {name}: fields {sorted(t) if isinstance(t, dict) else t}")
            continue
        if not isinstance(t.get("name"), str):
            out.append(f"test {name}: no name")
        for k in ("points", "max_points"):
            if k in t and not isinstance(t[k], (int, float)):
                out.append(f"test {name}: {k} is not a number")
        if isinstance(t.get("points"), (int, float)) and isinstance(t.get("max_points"), (int, float)) \
                and not 0 <= t["points"] <= t["max_points"]:
            out.append(f"test {name}: points {t['points']} not within 0-{t['max_points']}")
        out += images_problems(t.get("images", []), f"test {name}: ")
    if not gradable:    # what the grader says of its own failure
        errors = r.get("format_errors")
        shown = [r.get("message"), r.get("output")] + (errors if isinstance(errors, list) else [errors])
        out += [f"a grader's path or note shown to the student: {m.group(0)!r} in {s[:80]!r}"
                for s in shown if isinstance(s, str) for m in [GRADER_TEXT.search(s)] if m]
    return out


def main():
    if len(sys.argv) != 3 or sys.argv[2] not in ("gradable", "ungradable"):
        print("usage: pl_results.py FILE gradable|ungradable", file=sys.stderr)
        return 2
    try:
        with open(sys.argv[1], "rb") as f:
            data = f.read()
    except OSError as e:
        print(f"pl_results.py: {sys.argv[1]}: {e.strerror}", file=sys.stderr)
        return 1
    try:
        r = json.loads(data)
    except ValueError as e:
        print(f"pl_results.py: {sys.argv[1]}: not JSON ({e})")
        return 1
    found = problems(r, len(data), sys.argv[2] == "gradable")
    for line in found:
        print(f"pl_results.py: {sys.argv[1]}: {line}")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())
