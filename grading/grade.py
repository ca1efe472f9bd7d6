"""grade.py - grades iolab submissions (run through ./grade.sh).

A submission (a directory, or the .tar.gz that `make handin` makes) holds
the student's labs/ sources, data/*.csv, data/machine.txt, plot/*.png and
answers.md.  The grader unpacks it into a directory of its own, builds the
student's programs as the students' uid in a copy of the kit's Makefile and
common/, runs every check of the labs (grading/labN.py), and prints one
line per check and `Score: X/Y`.  Written answers are listed for grading
by hand.  See gradelib.py for how a check is written.
"""

import argparse
import concurrent.futures
import csv
import importlib
import json
import os
import random
import re
import resource
import shutil
import struct
import subprocess
import sys
import tempfile
import time
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # python3 -I leaves it out
import gradelib  # noqa: E402
import sandbox  # noqa: E402
import unpack  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import answers  # noqa: E402  common/answers.py, make handin's parser
from gradelib import KIT, Check, Fail, clean  # noqa: E402

PROG = "grade.sh"


def kit_labs():
    return sorted(int(d[0]) for d in os.listdir(os.path.join(KIT, "labs")) if re.fullmatch(r"\d-.+", d))


def lab_dir(lab):
    return next(d for d in os.listdir(os.path.join(KIT, "labs")) if d.startswith(f"{lab}-"))


def kit_programs(lab):
    d = lab_dir(lab)
    return sorted(f"labs/{d}/{f}" for f in os.listdir(os.path.join(KIT, "labs", d)) if f.endswith(".c"))


def load(labs):
    """The checks of these labs, in order: each lab's builds, its own
    checks (grading/labN.py), its data columns, figures and answers; then
    the machine description."""
    checks, modules = [], {}
    for lab in labs:
        gradelib._current_lab[0] = lab
        first = len(gradelib.CHECKS)
        module = importlib.import_module(f"lab{lab}")
        modules[lab] = module
        own = gradelib.CHECKS[first:]
        for src in kit_programs(lab):
            prog = os.path.basename(src)[:-2]
            checks.append(Check(lab, 1, f"build {prog}", build_check(prog, src), (), 120))
        checks += own
        for csv_name, columns in module.COLUMNS.items():
            checks.append(Check(lab, 1, f"{csv_name} has the columns the checks read",
                                columns_check(lab, csv_name, columns), (), 30))
        checks.append(Check(lab, 2, f"figures plot/lab{lab}-*.png", figures_check(lab), (), 30))
        checks.append(Check(lab, 1, f"answers to Q{lab}.x present", answers_check(module.QUESTIONS), (), 30))
    checks.append(Check(None, 1, "data/machine.txt describes the machine", machine_check, (), 30))
    return checks, modules


# ------------------------------------------------------------------ generic checks

def build_check(prog, src):
    def run(g):
        if g.file(src) is None:
            raise Fail(f"{src} is missing from the submission")
        proc = g.box.popen(["make", "-s", f"bin/{prog}"], cwd=g.build, binds=[g.build], cpu=120,
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
        try:
            out, _ = proc.communicate(timeout=120)
        except subprocess.TimeoutExpired:
            g.box.stop(proc)
            raise Fail(f"building {prog} took more than 120 s", f"make bin/{prog}") from None
        finally:
            g.box.waited(proc)
            g.box.end_processes()
        built = os.path.join(g.build, "bin", prog)
        if proc.returncode != 0 or not os.path.isfile(built) or os.path.islink(built):
            raise Fail(only_submission(out.decode("utf-8", "replace")), f"make bin/{prog}")
        # The program runs from the grader's copy, which students' code
        # cannot replace or remove while other checks run.
        shutil.copyfile(built, os.path.join(g.bin, prog), follow_symlinks=False)
        g.box.share(os.path.join(g.bin, prog), 0o750)
        g.built.add(prog)
    return run


_DIAGNOSTIC = re.compile(r"^(?:In file included from |\s+from )?([^\s:]+):\d+(?::\d+)?[:,]")


def only_submission(output):
    """The compiler's messages about the submission's own files and the
    kit's common/; a message about any other file (an #include of
    /etc/passwd, say) is not quoted, nor the source lines shown under it."""
    kept, hiding = [], False
    for line in output.splitlines():
        m = _DIAGNOSTIC.match(line)
        if m:
            path = os.path.normpath(m.group(1))
            hiding = path.startswith(("/", "..")) or not path.startswith(("labs/", "common/"))
            if hiding:
                kept.append("(a message about a file outside your submission, not shown)")
                continue
        elif hiding and (line.startswith(" ") or line.startswith("\t")):
            continue
        else:
            hiding = False
        kept.append(line)
    return "\n".join(kept[-20:])


def columns_check(lab, name, columns):
    def run(g):
        g.rows(name, numeric=(), lab=lab)
        header = g.file(name).split(b"\n", 1)[0].decode("utf-8", "replace").strip().split(",")
        missing = [c for c in columns if c not in header]
        gradelib.expect(not missing, f"{name}: no column {', '.join(missing)}", f"make lab{lab}")
    return run


def figure_size(gp):
    """(width, height) in pixels of the PNG common/plot.sh draws from plot/gp:
    the script's "# size: W,H" line, else plot.sh's default."""
    with open(os.path.join(KIT, "plot", gp)) as f:
        m = re.search(r"^# size: (\d+),(\d+)$", f.read(), re.M)
    if not m:
        with open(os.path.join(KIT, "common", "plot.sh")) as f:
            m = re.search(r"size \$\{size:-(\d+),(\d+)\}", f.read())
    return int(m.group(1)), int(m.group(2))


PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
PNG_CHANNELS = {0: 1, 2: 3, 3: 1, 4: 2, 6: 4}     # by colour type, at 8 bits a channel


def png_problem(png, size):
    """What keeps png from being a figure of size (width, height) with
    something plotted on it, or None. Its chunks must be whole (CRCs
    right), and its image data must inflate to exactly size's rows. Plotted:
    at least a third of the rows hold more than the background (a row of
    one colour, whatever filter PNG gave it, is one value after its first
    pixel); the kit's figures have 54-89%, a blank one 0%."""
    if png[:8] != PNG_SIGNATURE:
        return "is not a PNG file"
    pos, header, idat = 8, None, []
    while pos + 12 <= len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        data = png[pos + 8:pos + 8 + length]
        if len(data) != length or png[pos + 8 + length:pos + 12 + length] != \
                struct.pack(">I", zlib.crc32(kind + data)):
            return "is a damaged PNG file (a chunk cut short or with a wrong CRC)"
        if kind == b"IHDR" and length == 13:
            header = struct.unpack(">IIBBBBB", data)
        elif kind == b"IDAT":
            idat.append(data)
        elif kind == b"IEND":
            break
        pos += 12 + length
    if header is None or not idat:
        return "is a PNG file without an image"
    width, height, depth, colour, _, _, interlace = header
    if (width, height) != size:
        return f"is {width}x{height} pixels, not the {size[0]}x{size[1]} the kit draws"
    if depth != 8 or colour not in PNG_CHANNELS or interlace:
        return "is not a PNG file as gnuplot's pngcairo draws it (8 bits a channel, not interlaced)"
    pixel = PNG_CHANNELS[colour]
    row = 1 + width * pixel
    try:
        raw = zlib.decompressobj().decompress(b"".join(idat), row * height + 1)
    except zlib.error:
        return "is a PNG file whose image data do not inflate"
    if len(raw) != row * height:
        return f"is a PNG file whose image data are not {height} rows of {width} pixels"
    plotted = sum(len(set(raw[r * row + 1 + pixel:(r + 1) * row])) > 1 for r in range(height))
    if plotted < height / 3:
        return f"is blank or nearly: {plotted} of its {height} rows hold more than the background"
    return None


def figures_check(lab):
    def run(g):
        bad = []
        for gp in sorted(os.listdir(os.path.join(KIT, "plot"))):
            if not (gp.startswith(f"lab{lab}-") and gp.endswith(".gp")):
                continue
            name = f"plot/{gp[:-3]}.png"
            png = g.file(name)
            problem = "is missing" if png is None else png_problem(png, figure_size(gp))
            if problem:
                bad.append(f"{name} {problem}")
        gradelib.expect(not bad, "; ".join(bad), f"make lab{lab} (it draws the figures)")
    return run


ANSWER_WORDS = 8    # the fewest words that can answer a question (the reference answers have 54 or more)


def answers_check(questions):
    def run(g):
        text = g.file("answers.md")
        gradelib.expect(text is not None, "answers.md is missing")
        # common/answers.py: the parser make handin uses too
        words = {q: len(re.findall(r"\w+", a)) for q, a in answers.parse(text.decode("utf-8", "replace")).items()
                 if a}
        missing = [q for q in questions if q not in words]
        gradelib.expect(not missing, f"no answer under '## {' '.join(missing)}' in answers.md")
        short = [q for q in questions if words[q] < ANSWER_WORDS]
        gradelib.expect(not short, f"answers.md: the answer to {', '.join(short)} is not an answer: fewer than "
                        f"{ANSWER_WORDS} words")
    return run


MACHINE_KEYS = ("date", "kernel", "cpu", "cores", "memory", "scratch_dir_fs", "scratch_dir_st_blksize",
                "compiler", "libc")


def machine_check(g):
    text = (g.file("data/machine.txt") or b"").decode("utf-8", "replace")
    for key in MACHINE_KEYS:
        gradelib.expect(re.search(rf"^{key}: .", text, re.M), f"data/machine.txt lacks '{key}:'", "make labs")


# ------------------------------------------------------------------ one grading

def run_check(g, c):
    """(failure, note): what failed, or None; and what a check that passed
    returned to say how it ran (e.g. which case the machine allowed), or None."""
    g.fresh()
    g.deadline = time.monotonic() + c.timeout
    try:
        g.need(*c.needs)
        note = c.fn(g)
        return None, clean(note) if isinstance(note, str) else None
    except Fail as f:
        return clean(f.message) + (f"\nreproduce: {clean(f.reproduce)}" if f.reproduce else ""), None
    except Exception as e:  # the grader's own fault: say so, go on
        return f"the grader broke on this check ({type(e).__name__}: {clean(str(e))}): ask your instructor", None
    finally:
        g.box.end_processes()


def protect(path, what):
    """As root, students' uids must not read path: no access for others."""
    mode = os.stat(path).st_mode
    if mode & 0o007:
        os.chmod(path, mode & ~0o007)
        print(f"{PROG}: note: made {what} unreadable to other users (chmod o-rwx {path}): "
              "students' programs run as other users", file=sys.stderr)


def prepare_build(g, sub):
    """The kit's Makefile and common/ with the student's lab sources (only
    the .c names the kit has, and their own .h files), owned by the
    students' uid."""
    os.mkdir(g.build, 0o700)
    os.mkdir(g.bin)
    g.box.share(g.bin, 0o750)
    shutil.copy(os.path.join(KIT, "Makefile"), g.build)
    shutil.copytree(os.path.join(KIT, "common"), os.path.join(g.build, "common"))
    for lab in kit_labs():
        for src in kit_programs(lab):
            os.makedirs(os.path.join(g.build, os.path.dirname(src)), exist_ok=True)
            if os.path.isfile(os.path.join(sub, src)):
                shutil.copy(os.path.join(sub, src), os.path.join(g.build, src))
        # and the student's own headers beside them (make handin packs them)
        d = os.path.join("labs", lab_dir(lab))
        names = os.listdir(os.path.join(sub, d)) if os.path.isdir(os.path.join(sub, d)) else []
        for h in sorted(os.path.join(d, n) for n in names if n.endswith(".h")):
            if os.path.isfile(os.path.join(sub, h)) and not os.path.islink(os.path.join(sub, h)):
                shutil.copy(os.path.join(sub, h), os.path.join(g.build, h))
    for top, dirs, files in os.walk(g.build):
        for name in dirs + files:
            g.box.own(os.path.join(top, name))
    g.box.own(g.build)


def labs_of(sub):
    """The labs make handin packed, from the handin's labs.txt."""
    data = None
    path = os.path.join(sub, "labs.txt")
    if os.path.isfile(path) and not os.path.islink(path):
        with open(path, "rb") as f:
            data = f.read(100).decode("ascii", "replace").strip()
    if data and re.fullmatch(r"[1-9](,[1-9])*", data):
        return [int(x) for x in data.split(",")]
    return None


def grade_one(args):
    records, containment = [], ""
    work = tempfile.mkdtemp(prefix="iolab-grade.")

    box = None
    try:
        if os.geteuid() == 0:
            protect(KIT, "the kit")
        subdir = os.path.join(work, "submission")
        if args.submission is None:
            print(f"Grading the kit itself: {KIT}")
            os.mkdir(subdir, 0o700)
            for d in ("labs", "data", "plot"):
                shutil.copytree(os.path.join(KIT, d), os.path.join(subdir, d), symlinks=True)
            with open(os.path.join(subdir, "answers.md"), "w") as out:
                for name in sorted(os.listdir(os.path.join(KIT, "grading", "answers"))):
                    with open(os.path.join(KIT, "grading", "answers", name)) as f:
                        out.write(f.read())
            sub = subdir
        else:
            print(f"Grading {clean(args.submission)}")
            sub = unpack.unpack(args.submission, subdir)
        labs = args.labs or labs_of(sub) or kit_labs()
        checks, modules = load(labs)
        if subprocess.run(["make", "-s", "-C", KIT, "all"], stdout=subprocess.DEVNULL).returncode != 0:
            raise SystemExit(f"{PROG}: the kit itself does not build: run make in {KIT}")
        box = sandbox.Sandbox(allow_unsafe=args.unsafe_no_sandbox, use_bwrap=not args.no_bwrap)
        containment = box.describe()
        # Its students' uid may pass through the work directory to its own
        # run directories; other gradings' uids may not.
        box.share(work, 0o710)
        g = gradelib.Grading(sub, work, box, random.Random(args.seed))
        g.kit = KIT
        prepare_build(g, sub)
        if args.only:
            chosen = [c for c in checks if args.only in c.name and not c.title.startswith("build ")]
            checks = [c for c in checks if c.title.startswith("build ")] + chosen * args.repeat
        for c in checks:
            start = time.monotonic()
            failure, note = run_check(g, c)
            secs = time.monotonic() - start
            score = 0 if failure else c.points
            output = failure or "PASS" + (f" ({note})" if note else "")
            records.append(dict(name=c.name, lab=c.lab, points=c.points, score=score, output=output))
            print(f"{c.name}: {'FAIL' if failure else 'PASS'} {score}/{c.points} ({secs:.1f}s)", flush=True)
            for line in (failure or note or "").splitlines()[-6:]:
                print(f"    {line}")
        report(records, modules, containment, args.json, standing(args))
        return 0
    except unpack.Refused as e:
        return give_up(args, f"{clean(args.submission)}: {e}")
    except sandbox.RefuseError as e:
        return give_up(args, f"will not run students' code here: {e}")
    finally:
        if box:
            box.release()
        if args.keep:
            print(f"kept {work}")
        else:
            shutil.rmtree(work, ignore_errors=True)


def give_up(args, message):
    print(f"{PROG}: {message}", file=sys.stderr)
    if args.json:
        write_json(args.json, 0, f"The grader could not grade this submission: {message}", [])
    return 1


def standing(args):
    """Where the submission's measurements stand in the class (--class-data,
    from a `make class` of the same class), as lines for the report."""
    if not args.class_data or args.submission is None:
        return []
    from classresults import percentile_lines
    try:
        return [clean(line) for line in percentile_lines(args.class_data, args.submission)]
    except OSError as e:
        return [f"class results: {args.class_data}: {clean(str(e))}"]


def report(records, modules, containment, json_path, class_lines=()):
    print()
    total = maximum = 0
    for lab in dict.fromkeys(r["lab"] for r in records):
        s = sum(r["score"] for r in records if r["lab"] == lab)
        m = sum(r["points"] for r in records if r["lab"] == lab)
        print(f"{'lab' + str(lab) if lab else 'all':<8} {s:3d}/{m}")
        total, maximum = total + s, maximum + m
    questions = {q: p for m in modules.values() for q, p in m.QUESTIONS.items()}
    print(f"Written answers ({len(questions)} questions, {sum(questions.values())} points) "
          "are graded by hand with the rubric in handout.md.")
    if class_lines:
        print("Your measurements in the class:")
        for line in class_lines:
            print(f"  {line}")
    print(f"Containment: {containment}")
    print(f"Score: {total}/{maximum}")
    if json_path:
        tests = [dict(name=r["name"], score=r["score"], max_score=r["points"],
                      status="passed" if r["score"] == r["points"] else "failed",
                      output=r["output"], visibility="visible") for r in records]
        output = f"Score: {total}/{maximum}. Containment: {containment}"
        if class_lines:
            output += "\n\nYour measurements in the class:\n" + "\n".join(class_lines)
        write_json(json_path, total, output, tests)


def write_json(path, score, output, tests):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(dict(score=score, output=output, tests=tests), f, indent=2)
    os.replace(tmp, path)


# ------------------------------------------------------------------ a class

def batch(args):
    if not os.path.isdir(args.batch):
        usage_error(f"--batch: {args.batch} is not a directory")
    subs = sorted(os.path.join(args.batch, n) for n in os.listdir(args.batch)
                  if n.endswith(".tar.gz") or os.path.isdir(os.path.join(args.batch, n)))
    if not subs:
        sys.exit(f"{PROG}: {args.batch}: no submissions (*.tar.gz or directories)")
    if os.geteuid() == 0:
        protect(args.batch, "the submissions")
    out = args.out or "grades"
    if os.path.realpath(out).startswith(os.path.realpath(args.batch) + os.sep):
        usage_error(f"--out: {out} is inside {args.batch}: the grades go elsewhere")
    os.makedirs(out, mode=0o700, exist_ok=True)
    names = [os.path.basename(s).removesuffix(".tar.gz") for s in subs]

    def grade(sub, name):
        cmd = [sys.executable, "-I", "-B", os.path.abspath(__file__), "--json", os.path.join(out, name + ".json")]
        if args.labs:
            cmd += ["--labs", ",".join(map(str, args.labs))]
        cmd += [f"--{o}" for o in ("no-bwrap", "unsafe-no-sandbox") if getattr(args, o.replace("-", "_"))]
        if args.class_data:
            cmd += ["--class-data", os.path.abspath(args.class_data)]
        with open(os.path.join(out, name + ".txt"), "wb") as log:
            subprocess.run(cmd + [sub], stdout=log, stderr=subprocess.STDOUT)
        print(f"graded {clean(name)}: {last_line(os.path.join(out, name + '.txt'))}", flush=True)

    start = time.monotonic()
    with concurrent.futures.ThreadPoolExecutor(args.jobs) as pool:
        list(pool.map(grade, subs, names))
    # How busy the machine was: the CPU time of every grading, and all
    # their programs, against the cores the wall time offered (where -j
    # more or fewer would have helped).
    wall = time.monotonic() - start
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu, cores = used.ru_utime + used.ru_stime, os.cpu_count()
    print(f"graded {len(subs)} submissions in {wall:.0f} s with -j {args.jobs}: "
          f"{cpu:.0f} CPU seconds, {cpu / wall / cores:.0%} of {cores} cores")
    # The class CSV: a column per check of the labs graded, from the list of
    # checks, never from a report.
    checks, _ = load(args.labs or kit_labs())
    tmp = os.path.join(out, "class.csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["submission"] + [c.name for c in checks] + ["score", "max_score"])
        for name in names:
            try:
                with open(os.path.join(out, name + ".json")) as j:
                    result = json.load(j)
            except (OSError, ValueError):
                result = dict(score=0, tests=[])
            by_name = {t["name"]: t["score"] for t in result["tests"]}
            w.writerow([name] + [by_name.get(c.name, "") for c in checks]
                       + [result["score"], sum(c.points for c in checks)])
    os.replace(tmp, os.path.join(out, "class.csv"))
    print(f"wrote {os.path.join(out, 'class.csv')}")
    return 0


def last_line(path):
    with open(path, "rb") as f:
        lines = f.read().decode("utf-8", "replace").strip().splitlines()
    return clean(lines[-1]) if lines else ""


# ------------------------------------------------------------------ command line

USAGE = """usage: ./grade.sh [--labs LIST] [--json FILE] [--keep] [SUBMISSION]
       ./grade.sh --batch DIR [-j N] [--out DIR] [--labs LIST]
       ./grade.sh --list [--labs LIST]
  SUBMISSION  a directory or a .tar.gz from `make handin`;
              none: grade the kit itself (after `make labs`)
  --labs LIST only these labs, e.g. 1,2 (default: the labs the handin
              names in its labs.txt, else all)
  --json FILE write Gradescope's results.json to FILE as well
  --keep      keep the scratch directory and say where it is
  --list      print every check with its points, grade nothing
  --batch DIR grade every *.tar.gz and directory in DIR, N at a time
              (default 2), each into OUT/NAME.txt and OUT/NAME.json, and
              write OUT/class.csv: a row per submission, a column per check
  --out DIR   where --batch writes (default ./grades; never inside DIR)
  --class-data OUT
              also place each submission's measurements in the class that
              `make class SUBMISSIONS=DIR CLASS=OUT` merged (percentiles)
  --only TEXT grade only the checks whose name holds TEXT (and the builds)
  --repeat N  with --only: run those checks N times, each with new inputs
  --seed N    draw the random inputs from seed N (to reproduce a grading)
  --no-bwrap  do not use bubblewrap even where it can start
  --unsafe-no-sandbox
              not root and no bubblewrap: run students' code as yourself
              anyway (the report and results.json say so)
  -h, --help  this help"""


class Parser(argparse.ArgumentParser):
    def error(self, message):
        usage_error(message)


def usage_error(message):
    print(f"{PROG}: {message}\n{USAGE}", file=sys.stderr)
    sys.exit(2)


def lab_list(text):
    if not re.fullmatch(r"[1-9](,[1-9])*", text):
        usage_error(f"--labs: '{text}' is not a list like 1,2")
    labs = [int(x) for x in text.split(",")]
    for lab in labs:
        if lab not in kit_labs():
            usage_error(f"--labs: there is no lab {lab}")
    return labs


def jobs(text):
    if not re.fullmatch(r"[1-9][0-9]?", text):
        usage_error(f"-j: '{text}' is not a count from 1 to 99")
    return int(text)


def main(argv):
    sys.stdout.reconfigure(line_buffering=True)   # in order with stderr in a log
    p = Parser(add_help=False)
    p.add_argument("submission", nargs="?")
    p.add_argument("--labs", type=lab_list)
    p.add_argument("--json")
    p.add_argument("--keep", action="store_true")
    p.add_argument("--list", action="store_true")
    p.add_argument("--batch")
    p.add_argument("-j", dest="jobs", type=jobs, default=2)
    p.add_argument("--out")
    p.add_argument("--class-data")
    p.add_argument("--only")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--seed", type=int)
    p.add_argument("--no-bwrap", action="store_true")
    p.add_argument("--unsafe-no-sandbox", action="store_true")
    p.add_argument("-h", "--help", action="store_true")
    args = p.parse_args(argv)
    if args.help:
        print(USAGE)
        return 0
    if args.list:
        for c in load(args.labs or kit_labs())[0]:
            print(f"{'lab' + str(c.lab) if c.lab else 'all'}\t{c.points}\t{c.title}")
        return 0
    if args.batch:
        if args.submission:
            usage_error("one SUBMISSION at a time (or --batch DIR)")
        return batch(args)
    if args.json:
        args.json = os.path.abspath(args.json)
    return grade_one(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
