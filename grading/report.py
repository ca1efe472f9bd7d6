"""report.py - the one result of a grading (result) and its writers: the
terminal report, Gradescope's results.json and PrairieLearn's."""

import base64
import json
import os
import re
import time

from grading.gradelib import KIT, clean, one_line
from grading.png import PNG_SIGNATURE


def result(records, modules, containment, class_lines, about):
    """The one result of a grading that every writer reads: the records,
    score and maximum (a skipped check's points are in neither), seed,
    notes, containment, class standing and the written answers left to
    grade by hand."""
    counted = [r for r in records if r["status"] != "SKIP"]
    skipped = [r for r in records if r["status"] == "SKIP"]
    notes = [one_line(n, 10_000) for n in about["notes"]]   # each a line of its own in the report, whole
    if containment.startswith("NONE"):   # the one containment results.json says too
        notes.append(f"Containment: {containment}")
    if skipped:
        notes.append(f"{len(skipped)} check(s) skipped, this machine cannot run them, "
                     f"{sum(r['points'] for r in skipped)} points left out of the maximum: "
                     + "; ".join(r["name"] for r in skipped))
    return dict(records=records, score=sum(r["score"] for r in counted), maximum=sum(r["points"] for r in counted),
                labs={lab: (sum(r["score"] for r in counted if r["lab"] == lab),
                            sum(r["points"] for r in counted if r["lab"] == lab))
                      for lab in dict.fromkeys(r["lab"] for r in records)},
                questions={q: p for m in modules.values() for q, p in m.QUESTIONS.items()},
                notes=notes, class_lines=[one_line(c) for c in class_lines], containment=containment, seed=about["seed"],
                started=about["started"], submission=about.get("submission"))


def print_report(res):
    """The summary and `Score: X/Y` under the lines of the checks."""
    print()
    for lab, (s, m) in res["labs"].items():
        print(f"{'lab' + str(lab) if lab else 'all':<8} {s:3d}/{m}")
    questions = res["questions"]
    print(f"Written answers ({len(questions)} questions, {sum(questions.values())} points) "
          "are graded by hand with the rubric on each lab's page.")
    for line in res["notes"]:
        print(f"Note: {line}")
    if res["class_lines"]:
        print("Your measurements in the class:")
        for line in res["class_lines"]:
            print(f"  {line}")
    print(f"Containment: {res['containment']}")
    print(f"Seed: {res['seed']}")
    print(f"Score: {res['score']}/{res['maximum']}")


def summary(res):
    """The text above the tests on both platforms, which students read:
    short. How their code was contained, and the machine, the report says
    on stdout (the autograder's output, which the instructor sees)."""
    text = f"Score: {res['score']}/{res['maximum']}. Seed: {res['seed']}."
    for line in res["notes"]:
        text += f"\nNote: {line}"
    if res["class_lines"]:
        text += "\n\nYour measurements in the class:\n" + "\n".join(res["class_lines"])
    return text


# A line of a check's output that reads like one of the report's own: its
# score, a note, its containment or seed, a check's "labN: ...: PASS 3/3".
_OWN_LINE = re.compile(r"(?:Score|Note|Containment|Seed): |(?:lab\d+|all): .*: (?:PASS|FAIL|SKIP|NOT RUN|STOPPED)\b")


def quoted(output):
    """A check's output for results.json, its lines that read like the
    report's own indented as the terminal report indents a check's message
    (a program that printed "Score: 147/147" under a failed check had a
    line of its own there that read as the grader's)."""
    return "\n".join("    " + line if _OWN_LINE.match(line) else line for line in output.split("\n"))


def numbered(records):
    """(record, number, tag) in order: number "N.i" is lab N's i-th check,
    tag "labN"; the checks of no one lab (the machine's) are "all" and
    get no number."""
    seen = {}
    for r in records:
        seen[r["lab"]] = seen.get(r["lab"], 0) + 1
        yield r, (f"{r['lab']}.{seen[r['lab']]}" if r["lab"] else None), (f"lab{r['lab']}" if r["lab"] else "all")


VISIBILITY = ("visible", "hidden", "after_due_date", "after_published")   # Gradescope's, for a test


def visibility_rules(text):
    """[(TEXT, VISIBILITY), ...] from 'TEXT=VISIBILITY;...' (--visibility,
    make autograder's VISIBILITY): a check whose name holds TEXT gets
    that visibility on Gradescope, the first rule that matches; ValueError
    saying what is wrong."""
    rules = []
    for item in text.split(";"):
        m = re.fullmatch(r"([^=]+)=(.*)", item)
        if not m or m.group(2) not in VISIBILITY:
            raise ValueError(f"'{clean(item, 60)}' is not TEXT=VISIBILITY, VISIBILITY one of {', '.join(VISIBILITY)}")
        rules.append((m.group(1), m.group(2)))
    return rules


def visibility_of(name, rules):
    return next((v for text, v in rules if text in name), "visible")


def gradescope_json(res, visibility=()):
    """Gradescope's results.json (its "Autograder Specifications"):
    extra_data holds the seed and this grading's maximum (class.csv reads
    it); each test's visibility is the first of the rules (visibility_rules)
    that matches its name, else visible. The run's stdout, the report with
    its containment, stays the instructor's (stdout_visibility: hidden, the
    default)."""
    tests = []
    for r, number, tag in numbered(res["records"]):
        t = dict(name=r["name"], score=r["score"], max_score=r["points"], output=quoted(r["output"]),
                 visibility=visibility_of(r["name"], visibility), tags=[tag])
        if number:
            t["number"] = number
        if r["status"] == "SKIP":   # worth nothing here: Gradescope leaves it out of the total
            t["max_score"] = 0
        else:
            t["status"] = "passed" if r["status"] == "PASS" else "failed"   # a row of 0 points fails too
        tests.append(t)
    return dict(score=res["score"], execution_time=round(time.monotonic() - res["started"]), output=summary(res),
                tests=tests, extra_data=dict(seed=res["seed"], max_score=res["maximum"]))


RESULTS_LIMIT = 1_000_000  # bytes of PrairieLearn's results.json: its grader host refuses more than 1 MB
TEXT_LIMIT = 300_000      # of them, for the text; the figures get the rest
IMAGE_LIMIT = 400_000     # bytes of one figure shown; a larger one is named, not shown


def json_size(obj):
    """Bytes of obj as write_json writes it."""
    return len(json.dumps(obj, indent=2).encode())


def figures(sub, labs, room):
    """(images, notes): the submission's figures of these labs that are PNG
    files (plot/labN-*.png, as the kit's plot/*.gp name them) as data: URLs,
    within room bytes of JSON, a lab's first figure before any lab's second
    (the kit's 18 figures, 24-81 KB each, are 1.28 MB in base64: about
    half fit); and a note per figure left out, saying where it is."""
    by_lab = {}
    for gp in sorted(os.listdir(os.path.join(KIT, "plot"))):
        m = re.fullmatch(r"lab([1-9])-.+\.gp", gp)
        if m and int(m.group(1)) in labs:
            by_lab.setdefault(int(m.group(1)), []).append(f"plot/{gp[:-3]}.png")
    rounds = [by_lab[lab][k] for k in range(max(map(len, by_lab.values()), default=0))
              for lab in sorted(by_lab) if k < len(by_lab[lab])]
    images, notes, used = [], [], 0
    for name in rounds:
        path = os.path.join(sub, name)
        if not os.path.isfile(path) or os.path.islink(path):
            continue
        with open(path, "rb") as f:
            png = f.read(IMAGE_LIMIT + 1)
        if not png.startswith(PNG_SIGNATURE):
            continue
        if len(png) > IMAGE_LIMIT:
            notes.append(f"{name} not shown: larger than the {IMAGE_LIMIT // 1000} KB a figure may be here "
                         "(it is in plot/ of your handin)")
            continue
        image = dict(label=name, url="data:image/png;base64," + base64.b64encode(png).decode("ascii"))
        cost = json_size(image) + 16    # and its indentation and comma in the list
        if used + cost > room:
            notes.append(f"{name} not shown: PrairieLearn takes at most {RESULTS_LIMIT // 1000_000} MB of results, "
                         "which the figures before it filled (it is in plot/ of your handin)")
            continue
        used += cost
        images.append(image)
    return images, notes


def fit_text(tests, limit):
    """Cuts the tests' messages and outputs, longest first, until all of
    them take at most limit bytes of JSON (a hostile handin's checks can
    quote 12 KB each)."""
    def size():
        return sum(json_size(t["message"]) + json_size(t["output"]) for t in tests)
    cap = 4000
    while size() > limit and cap >= 100:
        for t in tests:
            for key in ("message", "output"):
                if len(t[key]) > cap:
                    t[key] = t[key][:cap] + "\n(cut here: PrairieLearn takes at most 1 MB of results)"
        cap //= 2


def prairielearn_json(res):
    """PrairieLearn's external grader results.json ("External Grading"):
    score from 0 to 1, a test per check with points and max_points, and
    the student's figures as images, all within RESULTS_LIMIT bytes."""
    tests = []
    for r, number, tag in numbered(res["records"]):
        tests.append(dict(name=r["name"], points=r["score"], max_points=0 if r["status"] == "SKIP" else r["points"],
                          message=quoted(r["output"]) if r["status"] != "PASS" else "",
                          output=quoted(r["output"] or "")))
    fit_text(tests, TEXT_LIMIT)
    obj = dict(gradable=True, score=round(res["score"] / res["maximum"], 4) if res["maximum"] else 0,
               message=f"Score: {res['score']}/{res['maximum']}", output=summary(res), tests=tests, images=[])
    if res["submission"] is not None:
        # room for the notes of the figures left out: a line each, at most 18
        room = RESULTS_LIMIT - json_size(obj) - 20_000
        obj["images"], notes = figures(res["submission"], {lab for lab in res["labs"] if lab}, room)
        obj["output"] += "".join(f"\nNote: {n}" for n in notes)
    return obj


def write_json(path, obj):
    """A results.json, written whole or not at all."""
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(obj, f, indent=2)
    os.replace(tmp, path)
