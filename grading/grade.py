"""grade.py - grades iolab submissions (run through ./grade.sh).

A submission (a directory, or the .tar.gz that `make handin` makes) holds
the student's labs/ sources, data/*.csv, data/machine.txt, plot/*.png and
answers.md.  The grader unpacks it into a directory of its own, builds the
student's programs as the students' uid in a copy of the kit's Makefile and
common/, runs every check of the labs (grading/labN/checks.py), and prints one
line per check and `Score: X/Y`.  Written answers are listed for grading
by hand.  See gradelib.py for how a check is written.
"""

import argparse
import base64
import concurrent.futures
import csv
import importlib
import json
import os
import random
import re
import resource
import secrets
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
import traceback
import zlib

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # python3 -I leaves it out
import gradelib  # noqa: E402
import sandbox  # noqa: E402
import unpack  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "common"))
import answers  # noqa: E402  common/answers.py, make handin's parser
from gradelib import KIT, Check, Fail, Skip, clean  # noqa: E402

PROG = "grade.sh"
BUDGET = 1800       # seconds for a whole grading, builds included (--budget)
BUILD_BUDGET = 240  # seconds for all of a grading's builds together
BUILD_LIMIT = 120   # seconds for one build


class OutOfTime(BaseException):
    """The check's or the grading's time ran out while the grader itself
    worked (a BaseException: no check's `except Exception` catches it)."""


class GraderError(Exception):
    """The grader cannot grade here (the kit itself does not build, say)."""


def rubric_module(lab):
    """Lab N's grader module, its rubric: grading/labN/checks.py (beside it
    in grading/labN/, everything else the grader has for the lab)."""
    return os.path.join("grading", f"lab{lab}", "checks.py")


def kit_labs():
    """The labs this kit grades: a labs/N-name folder with its grading/labN/checks.py."""
    return sorted(int(d[0]) for d in os.listdir(os.path.join(KIT, "labs"))
                  if re.fullmatch(r"[1-9]-.+", d) and os.path.isfile(os.path.join(KIT, rubric_module(d[0]))))


def kit_missing():
    """What a lab folder of this kit lacks to be graded, as one line, or
    None: every labs/N-name needs its grader module grading/labN/checks.py, its
    page README.md opening "# Lab N:" and the declaration of its CSVs,
    columns.csv (docs/adding-a-lab.md lists the rest)."""
    try:
        folders = sorted(os.listdir(os.path.join(KIT, "labs")))
    except OSError as e:
        return f"{clean(os.path.join(KIT, 'labs'))}: {e.strerror}: the kit is incomplete"
    for d in folders:
        if not re.fullmatch(r"[1-9]-.+", d):
            continue
        if not os.path.isfile(os.path.join(KIT, rubric_module(d[0]))):
            return f"labs/{d} has no grader module {rubric_module(d[0])} (see docs/adding-a-lab.md)"
        try:
            with open(os.path.join(KIT, "labs", d, "README.md"), encoding="utf-8") as f:
                page = f.read()
        except OSError:
            page = ""
        if not page.startswith(f"# Lab {d[0]}:"):
            return f"labs/{d} has no page README.md opening '# Lab {d[0]}:' (see docs/adding-a-lab.md)"
        if not os.path.isfile(os.path.join(KIT, "labs", d, "columns.csv")):
            return f"labs/{d} has no columns.csv declaring the columns of its CSVs (see docs/adding-a-lab.md)"
    try:
        gradelib.kit_declared()
    except ValueError as e:
        return str(e)
    return None


def lab_dir(lab):
    return next(d for d in os.listdir(os.path.join(KIT, "labs")) if d.startswith(f"{lab}-"))


def kit_programs(lab):
    d = lab_dir(lab)
    return sorted(f"labs/{d}/{f}" for f in os.listdir(os.path.join(KIT, "labs", d)) if f.endswith(".c"))


def load(labs):
    """The checks of these labs, in order: each lab's builds, its own
    checks (grading/labN/checks.py), the columns of its CSVs (those its
    columns.csv declares), figures and answers (the rows its STANDARD
    declares, with their points); then the machine description."""
    checks, modules = [], {}
    build_time = {"left": BUILD_BUDGET}
    for lab in sorted(set(labs)):   # each lab once, whatever asked for it twice
        gradelib._current_lab[0] = lab
        first = len(gradelib.CHECKS)
        module = importlib.import_module(f"lab{lab}.checks")
        modules[lab] = module
        own = gradelib.CHECKS[first:]
        # the system calls beyond the filter's list its programs make, each with why
        calls = tuple(getattr(module, "SYSTEM_CALLS", {}))
        for name in calls:
            if name not in sandbox.ON_REQUEST:
                raise SystemExit(f"{PROG}: {rubric_module(lab)}'s SYSTEM_CALLS names {name}, which the "
                                 f"sandbox does not grant (grading/sandbox.py's ON_REQUEST)")
        for c in own:
            c.calls = calls
        std = getattr(module, "STANDARD", None)
        if not isinstance(std, gradelib.Standard):
            raise SystemExit(f"{PROG}: {rubric_module(lab)} declares no STANDARD = standard(build=..., "
                             "columns=..., figures=...) (see docs/adding-a-lab.md)")
        for src in kit_programs(lab):
            prog = os.path.basename(src)[:-2]
            checks.append(Check(lab, std.build, f"build {prog}", build_check(prog, src, build_time), (),
                                BUILD_LIMIT))
        checks += own
        for name, (of, columns) in gradelib.kit_declared().items():
            if of == lab:
                checks.append(Check(lab, std.columns, f"data/{name} has the declared columns",
                                    columns_check(lab, f"data/{name}", [c.name for c in columns]), (), 30))
        checks.append(Check(lab, std.figures, f"figures: the kit's plot/lab{lab}-*.gp draw your data",
                            figures_check(lab), (), 60))
        # 0 points: eight words of lorem ipsum would earn them; the row
        # tells the hand grader which questions have no answer
        checks.append(Check(lab, 0, f"answers to Q{lab}.x present (for the hand grader)",
                            answers_check(module.QUESTIONS), (), 30))
    checks.append(Check(None, 1, "data/machine.txt describes the machine", machine_check, (), 30))
    return checks, modules


# ------------------------------------------------------------------ generic checks

def build_check(prog, src, build_time):
    """build_time["left"]: what is left of the seconds all the grading's
    builds share, so that a source that takes long to compile (one that
    includes itself, say) costs BUILD_BUDGET once, not once per program."""
    def run(g):
        if g.file(src) is None:
            raise Fail(f"{src} is missing from the submission")
        limit = min(BUILD_LIMIT, build_time["left"], g.deadline - time.monotonic())
        if limit < 1:
            raise Fail(f"not built: the grading's builds used up their {BUILD_BUDGET} s together "
                       "(does a source take that long to compile?)", f"make bin/{prog}")
        start = time.monotonic()
        # Under the limits and the watchdog of a run: disk and memory too.
        with tempfile.TemporaryFile(dir=g.work) as out:
            proc = g.box.popen(["make", "-s", f"bin/{prog}"], cwd=g.build, binds=[g.build], cpu=int(limit) + 1,
                               stdout=out, stderr=subprocess.STDOUT)
            try:
                killed = g.watch(proc, limit, out)
            finally:
                build_time["left"] -= time.monotonic() - start
                g.box.end_processes()
            out.seek(0)
            ends = gradelib.output_ends(out, BUILD_LIMIT)     # its ends: a compiler may print gigabytes
        if killed:
            raise Fail(f"building {prog} {killed}", f"make bin/{prog}")
        built = os.path.join(g.build, "bin", prog)
        if proc.returncode != 0 or not os.path.isfile(built) or os.path.islink(built):
            # quoted, indented: no line of it reads as a line of the report,
            # in the terminal or in results.json ('#pragma message "\nScore: 99"')
            raise Fail(f"make bin/{prog} failed:\n" + "\n".join("  " + line for line in build_quote(*ends)),
                       f"make bin/{prog}")
        # The program runs from the grader's copy, which students' code
        # cannot replace or remove while other checks run.
        shutil.copyfile(built, os.path.join(g.bin, prog), follow_symlinks=False)
        g.box.share(os.path.join(g.bin, prog), 0o750)
        g.built.add(prog)
    return run


_DIAGNOSTIC = re.compile(r"^(?:In file included from |\s+from )?([^\s:]+):\d+(?::\d+)?[:,]")


QUOTED = 10     # lines a failed build's report quotes from the start of its output, and from its end


def build_quote(head, tail, dropped):
    """The lines a failed build's report quotes of its output, read as its
    first and last bytes (gradelib.output_ends): the first and the last
    QUOTED of those about the submission's own files (only_submission)."""
    if not dropped:
        lines = only_submission((head + tail).decode("utf-8", "replace")).splitlines()
        if len(lines) <= 2 * QUOTED:
            return lines
        return lines[:QUOTED] + [f"({len(lines) - 2 * QUOTED} lines not shown)"] + lines[-QUOTED:]
    first = only_submission(head.decode("utf-8", "replace")).splitlines()[:QUOTED]
    # The end starts at its first whole line, among the source lines shown
    # under a message about another file, for all it knows: hidden until a
    # line says otherwise.
    whole = tail[tail.find(b"\n") + 1:]
    last = only_submission(whole.decode("utf-8", "replace"), hiding=True).splitlines()[-QUOTED:]
    return first + [f"(the middle not shown: the whole output is {len(head) + dropped + len(tail)} bytes)"] + last


def only_submission(output, hiding=False):
    """The compiler's messages about the submission's own files and the
    kit's common/; a message about any other file (an #include of
    /etc/passwd, say) is not quoted, nor the source lines shown under it
    (hiding: output starts among such lines)."""
    kept = []
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
    return "\n".join(kept)


def columns_check(lab, name, columns):
    def run(g):
        g.rows(name, numeric=(), lab=lab)	# a CSV, or Fail saying why
        # the header as CSV, as the checks read it: a quoted "a,b" is one column
        line = g.file(name).split(b"\n", 1)[0].decode("utf-8", "replace")
        header = next(csv.reader([line.strip()]), [])
        missing = [c for c in columns if c not in header]
        gradelib.expect(not missing, f"{name}: no column {', '.join(missing)}", f"make lab{lab}")
        twice = sorted({c for c in header if header.count(c) > 1})
        gradelib.expect(not twice, f"{name}: a column named twice: {', '.join(twice)}", f"make lab{lab}")
        # The scale the lab ran at, which make handin packs: the tests'
        # tiny sizes measure nothing the questions ask about.
        load = (g.file(f"data/lab{lab}-load.txt") or b"").decode("utf-8", "replace")
        scale = re.search(r"^scale: (\S+)$", load, re.M)
        gradelib.expect(not scale or scale.group(1) != "tiny",
                        f"{name} was run at SCALE=tiny, the tests' size (data/lab{lab}-load.txt): its numbers "
                        f"answer no question; run make lab{lab} (SCALE=quick, the default) and hand in again",
                        f"make lab{lab}")
        gradelib.expect(scale and scale.group(1) in ("quick", "full"),
                        f"data/lab{lab}-load.txt does not say the scale {name} was run at (quick or full): "
                        f"run make lab{lab}, which writes it, and hand in again", f"make lab{lab}")
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


def figure_inputs(gp):
    """The files plot/gp reads, as it names them: data/... paths."""
    with open(os.path.join(KIT, "plot", gp)) as f:
        return sorted(set(re.findall(r"data/[A-Za-z0-9_./-]*\.(?:csv|txt)", f.read())))


def figures_check(lab):
    """Each of the lab's figures drawn by the kit's common/plot.sh and
    plot/labN-*.gp from the student's data alone: a PNG handed in proves
    nothing (a striped one passed a check of its pixels). gnuplot runs in
    the sandbox as the students' uid, in the check's run directory, where
    no program of the student's runs any more (fresh() ended them): the
    script is the kit's, the student's files are only read as data, and
    whatever gnuplot might be made to do, it does with the rights the
    student's own programs had."""
    def run(g):
        if shutil.which("gnuplot", path="/usr/bin:/bin") is None:
            raise Skip("gnuplot is not installed on the grading machine")
        gps = sorted(f for f in os.listdir(os.path.join(KIT, "plot")) if f.startswith(f"lab{lab}-") and f.endswith(".gp"))
        for d in ("common", "plot", "data", "data/reference"):
            os.mkdir(os.path.join(g.run, d), 0o700)
            g.box.own(os.path.join(g.run, d))
        for f in ("plot.sh", "deps.sh"):
            with open(os.path.join(KIT, "common", f), "rb") as src:
                g.put(f"common/{f}", src.read())
        bad = []
        for gp in gps:
            with open(os.path.join(KIT, "plot", gp), "rb") as src:
                g.put(f"plot/{gp}", src.read())
            for name in figure_inputs(gp):
                if os.path.exists(os.path.join(g.run, name)):
                    continue
                if name.startswith("data/reference/") and os.path.isfile(os.path.join(KIT, name)):
                    with open(os.path.join(KIT, name), "rb") as src:
                        g.put(name, src.read())
                elif "/" not in name[len("data/"):] and g.file(name) is not None:
                    g.put(name, g.file(name))
            problem = draw(g, gp)
            if problem:
                bad.append(problem)
        gradelib.expect(not bad, "\n".join(bad), f"make lab{lab} (it draws the figures)")
    return run


def draw(g, gp):
    """plot/gp drawn in the run directory by common/plot.sh: what went
    wrong, in one line, or None when it drew a figure of the kit's size
    with something plotted on it."""
    png = f"plot/{gp[:-3]}.png"
    limit = g.deadline - time.monotonic()
    if limit < 1:
        return f"{png}: not drawn, the check's time ran out"
    # /etc/fonts: fontconfig's, for the labels pngcairo writes (bubblewrap
    # binds only what a C program needs of /etc)
    proc = g.box.popen(["bash", "common/plot.sh", f"plot/{gp}", png], cwd=g.run, binds=[g.run],
                       ro_binds=[d for d in ("/etc/fonts", "/var/cache/fontconfig") if os.path.isdir(d)], cpu=int(limit) + 1,
                       env={"IOLAB_NO_INSTALL": "1"}, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    try:
        out, _ = proc.communicate(timeout=limit)
    except subprocess.TimeoutExpired:
        g.box.stop(proc)
        return f"{png}: gnuplot took more than {limit:.0f} s on your data"
    finally:
        g.box.waited(proc)
    said = clean(out.decode("utf-8", "replace").strip().splitlines()[-1] if out.strip() else "", 200, 1)
    drawn = g.read(png)
    if proc.returncode != 0 or drawn is None:
        # plot.sh names a file the figure reads that is not there; gnuplot
        # its error (the line of the script and what it found in the data)
        return f"{png}: the kit's plot/{gp} drew no figure from your data ({said or 'no message'})"
    problem = png_problem(drawn, figure_size(gp))
    return f"{png}, drawn from your data, {problem}" if problem else None


def answers_check(questions):
    def run(g):
        text = g.file("answers.md")
        gradelib.expect(text is not None, "answers.md is missing")
        # common/answers.py: the parser and the rules make handin uses too
        missing, short = answers.unanswered(text.decode("utf-8", "replace"), questions)
        gradelib.expect(not missing, f"no answer under '## {' '.join(missing)}' in answers.md")
        gradelib.expect(not short, f"answers.md: the answer to {', '.join(short)} is not an answer: fewer than "
                        f"{answers.ANSWER_WORDS} words")
    return run


MACHINE_KEYS = ("date", "kernel", "cpu", "cores", "memory", "scratch_dir_fs", "scratch_dir_st_blksize",
                "compiler", "libc")


def machine_check(g):
    text = (g.file("data/machine.txt") or b"").decode("utf-8", "replace")
    for key in MACHINE_KEYS:
        gradelib.expect(re.search(rf"^{key}: .", text, re.M), f"data/machine.txt lacks '{key}:'", "make labs")


# ------------------------------------------------------------------ one grading

def run_check(g, c, left):
    """(status, message): status "PASS", "FAIL", "SKIP" or "STOPPED" (the
    grading's time ran out during it); message what failed, why it was
    skipped, or what a check that passed returned to say how it ran (e.g.
    which case the machine allowed), or None.  left: the seconds left of
    the grading's budget, which cut the check's own time limit."""
    g.fresh()
    g.calls = c.calls
    limit = min(c.timeout, left)
    g.deadline = time.monotonic() + limit
    # The check's time limit holds the grader's own work too (parsing a
    # submission's files, say): a timer interrupts it a little after the
    # programs' deadline, which they meet by themselves.
    signal.setitimer(signal.ITIMER_REAL, limit + 5)
    try:
        g.need(*c.needs)
        note = c.fn(g)
        return "PASS", clean(note) if isinstance(note, str) else None
    except Fail as f:
        if limit < c.timeout and time.monotonic() > g.deadline - 1:
            return "STOPPED", f"stopped: the grading's time ran out during this check ({clean(f.message, lines=2)})"
        return "FAIL", clean(f.message) + (f"\nreproduce: {clean(f.reproduce)}" if f.reproduce else "")
    except Skip as s:
        return "SKIP", clean(str(s))
    except OutOfTime as e:
        if limit < c.timeout or str(e) == "SIGTERM":
            return "STOPPED", f"stopped: the grading's time ran out during this check ({e})"
        return "FAIL", f"the check ran out of time ({c.timeout} s, the grader's own work included)"
    except Exception as e:  # the grader's own fault: say so, go on
        return "FAIL", f"the grader broke on this check ({type(e).__name__}: {clean(str(e))}): ask your instructor"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        g.box.end_processes()


_TERMINATED = []    # a SIGTERM came: the grading was stopped from outside


def _out_of_time(signum, frame):
    if signum == signal.SIGTERM:
        _TERMINATED.append(True)
        raise OutOfTime("SIGTERM")
    raise OutOfTime("time limit")


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


def probe_host(g, modules):
    """Each lab's probe(g), where it has one, run before any student's
    code: what the host lets students' programs do (Lab 4: run a
    ThreadSanitizer build), learnt where no student's process can disturb
    it, so that a check's SKIP rests on it alone."""
    for lab in sorted(modules):
        if hasattr(modules[lab], "probe"):
            g.fresh()
            g.deadline = time.monotonic() + 60
            try:
                modules[lab].probe(g)
            finally:
                g.box.end_processes()


def labs_txt(data, known):
    """(labs, notes): the set of labs of known that labs.txt's bytes name,
    sorted, or None where it names none; and a line for the report per
    thing ignored (a repeat, a lab the kit lacks, anything else)."""
    text = data[:200].decode("ascii", "replace").strip()
    labs, notes = [], []
    for item in (i for i in re.split(r"[,\s]+", text) if i):
        if not re.fullmatch(r"[0-9]{1,3}", item):
            notes.append(f"labs.txt: '{clean(item, 20)}' is not a lab number: ignored")
        elif int(item) not in known:
            notes.append(f"labs.txt: this course has no lab {int(item)}: ignored")
        elif int(item) in labs:
            notes.append(f"labs.txt: lab {int(item)} named again: graded once")
        else:
            labs.append(int(item))
    if len(data) > 200:
        notes.append("labs.txt: more than 200 bytes: the rest ignored")
    if not labs:
        notes.append(f"labs.txt names no lab of this course: every lab graded ({','.join(map(str, known))})")
    return (sorted(labs) or None), list(dict.fromkeys(notes))[:10]


def labs_of(sub):
    """The labs make handin packed, from the handin's labs.txt, as
    labs_txt() reads them; (None, []) where there is no labs.txt."""
    path = os.path.join(sub, "labs.txt")
    if not os.path.isfile(path) or os.path.islink(path):
        return None, []
    with open(path, "rb") as f:
        return labs_txt(f.read(201), kit_labs())


def grade_one(args):
    """Grades one submission; every way it can end writes a report and,
    with --json, a valid results.json: refused or broken, a score of 0 and
    the reason."""
    started = time.monotonic()
    seed = args.seed if args.seed is not None else secrets.randbelow(10 ** 9)
    work = tempfile.mkdtemp(prefix="iolab-grade.")
    signal.signal(signal.SIGALRM, _out_of_time)
    signal.signal(signal.SIGTERM, _out_of_time)   # `timeout` stops a grading: report what it did
    box = None
    try:
        print(f"Seed: {seed} (./grade.sh --seed {seed} draws the same inputs again)")
        if os.geteuid() == 0:
            protect(KIT, "the kit")
        subdir = os.path.join(work, "submission")
        if args.submission is None:
            print(f"Grading the kit itself: {KIT}")
            os.mkdir(subdir, 0o700)
            for d in ("labs", "data", "plot"):
                shutil.copytree(os.path.join(KIT, d), os.path.join(subdir, d), symlinks=True)
            with open(os.path.join(subdir, "answers.md"), "w") as out:
                # the reference answers, grading/labN/answers.md
                for lab in kit_labs():
                    with open(os.path.join(KIT, "grading", f"lab{lab}", "answers.md")) as f:
                        out.write(f.read())
            sub = subdir
        else:
            print(f"Grading {clean(args.submission)}")
            sub = unpack.unpack(args.submission, subdir)
        named, notes = labs_of(sub)
        if args.labs:
            named, notes = args.labs, []
        labs = named or kit_labs()
        checks, modules = load(labs)
        if subprocess.run(["make", "-s", "-C", KIT, "all"], stdout=subprocess.DEVNULL).returncode != 0:
            raise GraderError(f"the kit itself does not build: run make in {KIT}")
        box = sandbox.Sandbox(allow_unsafe=args.unsafe_no_sandbox, use_bwrap=not args.no_bwrap)
        containment = box.describe()
        # Its students' uid may pass through the work directory to its own
        # run directories; other gradings' uids may not.
        box.share(work, 0o710)
        g = gradelib.Grading(sub, work, box, random.Random(seed))
        g.kit = KIT
        prepare_build(g, sub)
        probe_host(g, modules)
        if args.only:
            # With the chosen checks, the builds of the programs they run
            # (a mutant's grading builds one program, not its lab's three);
            # where TEXT names no check but builds, or nothing, every build.
            chosen = [c for c in checks if args.only in c.name and not c.title.startswith("build ")]
            needed = {prog for c in chosen for prog in c.needs}
            checks = [c for c in checks if c.title.startswith("build ")
                      and (not chosen or c.title[len("build "):] in needed)] + chosen * args.repeat
        # The checks that read only the submission's files run first, each
        # within its own time limit but outside the budget: a handin whose
        # programs use up the grading's time keeps its data, figures and
        # machine.txt points (Gradescope grades lab after lab: a timeout
        # in Lab 3 had zeroed 40 such checks of the labs after it).
        order = sorted(range(len(checks)), key=lambda i: not files_only(checks[i]))
        done, end = {}, started + args.budget
        try:
            for i in order:
                c = checks[i]
                left = end - time.monotonic()
                if files_only(c):
                    left = c.timeout
                if left < 1 or any(r["status"] == "STOPPED" for r in done.values()):
                    break
                start = time.monotonic()
                status, message = run_check(g, c, left)
                r = done[i] = record(c, status, message)
                print(f"{c.name}: {status} {r['score']}/{r['points']} ({time.monotonic() - start:.1f}s)")
                for line in (message or "").splitlines()[-6:]:
                    print(f"    {line}")
        except OutOfTime:   # SIGTERM between two checks
            pass
        signal.signal(signal.SIGTERM, signal.SIG_IGN)    # the report is written whole
        for i in order:
            if i not in done:
                done[i] = record(checks[i], "NOT RUN", "not run: the grading was stopped" if _TERMINATED
                                 else f"not run: the grading's time ({args.budget} s) ran out")
                print(f"{checks[i].name}: NOT RUN 0/{checks[i].points}")
        records = [done[i] for i in range(len(checks))]     # in rubric order, as --list and the handout
        not_run = [r["name"] for r in records if r["status"] in ("NOT RUN", "STOPPED")]
        if not_run:
            why = ("the grading was stopped (SIGTERM: the autograder's time limit?)" if _TERMINATED
                   else f"the grading's time ({args.budget} s) ran out")
            notes.append(f"{why}: {len(not_run)} check(s) did not finish and scored 0: {'; '.join(not_run)}")
        res = result(records, modules, containment, standing(args),
                     dict(seed=seed, notes=notes, started=started, submission=sub))
        print_report(res)
        if args.json:
            write_json(args.json, gradescope_json(res, args.visibility))
        if args.pl_json:
            write_json(args.pl_json, prairielearn_json(res))
        return 0
    # What a student reads names the file they handed in, never where the
    # grader keeps it; the instructor's line on stderr says all.
    except unpack.Refused as e:
        return give_up(args, f"{clean(os.path.basename(args.submission))}: {clean(str(e), 400, 5)}", seed, started,
                       clean(args.submission))
    except sandbox.RefuseError as e:
        return give_up(args, "the grading machine will not run students' code: ask your instructor", seed, started,
                       f"will not run students' code here: {clean(str(e))}")
    except GraderError as e:
        return give_up(args, "the grading machine is not set up: ask your instructor", seed, started, clean(str(e)))
    except OutOfTime:
        return give_up(args, "the grading was stopped before its checks ran", seed, started)
    except Exception as e:   # anything else: the grader's fault, said in one line
        where = ""
        if e.__traceback__:
            frame = traceback.extract_tb(e.__traceback__)[-1]
            where = f" at {os.path.basename(frame.filename)}:{frame.lineno}"
        return give_up(args, f"the grader broke ({type(e).__name__}{where}): ask your instructor", seed, started,
                       clean(str(e), 200, 1))
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)   # cleanup ends, whatever asks
        try:
            if box:
                box.release()
        except Exception as e:
            print(f"{PROG}: note: cleanup: {type(e).__name__}: {clean(str(e), 200, 1)}", file=sys.stderr)
        if args.keep:
            print(f"kept {work}")
        elif not sandbox.remove_tree(work):
            print(f"{PROG}: note: could not remove all of {work}", file=sys.stderr)


def files_only(c):
    """Whether check c reads only the submission's files (its CSVs, the
    figures the kit's scripts draw from them, answers.md, machine.txt):
    it needs none of the student's programs, nor a build."""
    return not c.needs and not c.title.startswith("build ")


def record(c, status, message):
    """One check's result: the report, results.json and class.csv all read it."""
    score = c.points if status == "PASS" else 0
    output = ("PASS" + (f" ({message})" if message else "") if status == "PASS"
              else f"SKIP: {message}" if status == "SKIP" else message)
    return dict(name=c.name, lab=c.lab, points=c.points, score=score, status=status, output=output)


def give_up(args, message, seed, started, detail=None):
    """No grading: message for the student (results.json), with detail for
    the instructor's stderr only (paths of the grading machine, say)."""
    print(f"{PROG}: {message}" + (f" ({detail})" if detail else ""), file=sys.stderr)
    said = f"The grader could not grade this submission: {message}"
    if args.json:
        write_json(args.json, dict(score=0, execution_time=round(time.monotonic() - started), output=said,
                                   tests=[], extra_data=dict(seed=seed, max_score=None)))
    if args.pl_json:    # not gradable: PrairieLearn counts no attempt and shows the format errors
        write_json(args.pl_json, dict(gradable=False, score=0, message=said, format_errors=[said], output="",
                                      tests=[]))
    return 1


def standing(args):
    """Where the submission's measurements stand in the class (--class-data,
    from a `make class` of the same class), as lines for the report."""
    if not args.class_data or args.submission is None:
        return []
    # the class results read each lab's grading/labN/class_results.py as
    # part of the package grading (the kit's root on the path)
    if KIT not in sys.path:
        sys.path.append(KIT)
    from grading.classresults import percentile_lines
    try:
        return [clean(line) for line in percentile_lines(args.class_data, args.submission)]
    except OSError as e:
        return [f"class results: {args.class_data}: {clean(str(e))}"]


# ------------------------------------------------------------------ the result and its writers

def result(records, modules, containment, class_lines, about):
    """The one result of a grading that every writer reads: the records,
    score and maximum (a skipped check's points are in neither), seed,
    notes, containment, class standing and the written answers left to
    grade by hand."""
    counted = [r for r in records if r["status"] != "SKIP"]
    skipped = [r for r in records if r["status"] == "SKIP"]
    notes = list(about["notes"])
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
                notes=notes, class_lines=class_lines, containment=containment, seed=about["seed"],
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
        t = dict(name=r["name"], score=r["score"], max_score=r["points"], output=r["output"],
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
                          message=r["output"] if r["status"] != "PASS" else "", output=r["output"] or ""))
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
    # Students' code runs nowhere it may not: refused here, the batch
    # stops before it writes a row (not a 0 for every student).
    try:
        sandbox.Sandbox(allow_unsafe=args.unsafe_no_sandbox, use_bwrap=not args.no_bwrap).release()
    except sandbox.RefuseError as e:
        sys.exit(f"{PROG}: --batch: will not run students' code here: {e}")
    # The probe made the batch a subreaper, which would adopt what a grading
    # killed from outside left behind and never reap it: zombies that fill
    # the process limit of that grading's uid for every later grading of it.
    sandbox.become_subreaper(False)
    os.makedirs(out, mode=0o700, exist_ok=True)
    names = batch_names(subs)
    for name in names:      # no earlier batch's report may pass for this one's
        for ext in (".json", ".txt", ".json.tmp"):
            try:
                os.unlink(os.path.join(out, name + ext))
            except FileNotFoundError:
                pass

    def grade(sub, name):
        cmd = [sys.executable, "-I", "-B", os.path.abspath(__file__), "--json", os.path.join(out, name + ".json"),
               "--budget", str(args.budget)]
        if args.labs:
            cmd += ["--labs", ",".join(map(str, args.labs))]
        if args.seed is not None:
            cmd += ["--seed", str(args.seed)]
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
    # checks, never from a report. max_score is each grading's own maximum
    # (the labs it graded, less the checks this machine could not run), as
    # its report and results.json say; a submission that could not be
    # graded gets the maximum of the labs the batch names.
    checks, _ = load(args.labs or kit_labs())
    tmp = os.path.join(out, "class.csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["submission"] + [c.name for c in checks] + ["score", "max_score"])
        for name, result in batch_results(out, names):
            # a skipped check has no status and an empty cell; the answers
            # row, worth 0, has its 0
            by_name = {t["name"]: t["score"] for t in result.get("tests", []) if "status" in t}
            most = (result.get("extra_data") or {}).get("max_score")
            w.writerow([name] + [by_name.get(c.name, "") for c in checks]
                       + [result.get("score", 0), sum(c.points for c in checks) if most is None else most])
    os.replace(tmp, os.path.join(out, "class.csv"))
    print(f"wrote {os.path.join(out, 'class.csv')}")
    write_pl_scores(out, names, args.pl_qid)
    return 0


def batch_results(out, names):
    """(name, its OUT/NAME.json as a dict) for each grading of the batch;
    {} where that file could not be read (the grading broke)."""
    for name in names:
        try:
            with open(os.path.join(out, name + ".json")) as j:
                yield name, json.load(j)
        except (OSError, ValueError):
            yield name, {}


def write_pl_scores(out, names, qid):
    """OUT/pl-scores.csv: the columns PrairieLearn's instructor upload of
    question scores takes (its "Manual Grading" page, uploading scores and
    feedback: uid, instance, qid, score_perc, feedback), a row per
    submission, from its results.json. A submission that could not be
    graded scores 0 and its feedback says why."""
    tmp = os.path.join(out, "pl-scores.csv.tmp")
    with open(tmp, "w", newline="") as f:
        w = csv.writer(f, lineterminator="\n")
        w.writerow(["uid", "instance", "qid", "score_perc", "feedback"])
        for name, result in batch_results(out, names):
            most = (result.get("extra_data") or {}).get("max_score")
            score = result.get("score", 0)
            feedback = (f"Score: {score}/{most}" if most else
                        clean((result.get("output") or "not graded: no results.json").splitlines()[0], 200, 1))
            w.writerow([name, 1, qid, round(100 * score / most, 2) if most else 0, feedback])
    os.replace(tmp, os.path.join(out, "pl-scores.csv"))
    print(f"wrote {os.path.join(out, 'pl-scores.csv')}")


def batch_names(subs):
    """A name per submission for NAME.txt, NAME.json and its class.csv row:
    the file's name without .tar.gz, or whole where that would be another
    submission's name too (alice.tar.gz beside a folder alice/)."""
    short = [os.path.basename(s).removesuffix(".tar.gz") for s in subs]
    return [os.path.basename(s) if short.count(n) > 1 and s.endswith(".tar.gz") else n
            for s, n in zip(subs, short)]


def last_line(path):
    with open(path, "rb") as f:
        lines = f.read().decode("utf-8", "replace").strip().splitlines()
    return clean(lines[-1]) if lines else ""


# ------------------------------------------------------------------ command line

USAGE = """usage: ./grade.sh [--labs LIST] [--json FILE] [--pl-json FILE] [--keep] [--seed N] [--budget S]
                  [--visibility RULES] [SUBMISSION]
       ./grade.sh --batch DIR [-j N] [--out DIR] [--pl-qid QID] [--labs LIST] [--seed N] [--budget S]
       ./grade.sh --list [--labs LIST]
  SUBMISSION  a directory or a .tar.gz from `make handin`;
              none: grade the kit itself (after `make labs`)
  --labs LIST only these labs, e.g. 1,2 (default: the labs the handin
              names in its labs.txt, each once, else all)
  --json FILE write Gradescope's results.json to FILE as well
  --pl-json FILE
              write PrairieLearn's external grader results.json to FILE
              as well (score 0-1, a test per check, the figures as images,
              under 1 MB in all)
  --keep      keep the scratch directory and say where it is
  --list      print every check with its points, grade nothing
  --batch DIR grade every *.tar.gz and directory in DIR, N at a time
              (default 2), each into OUT/NAME.txt and OUT/NAME.json, and
              write OUT/class.csv: a row per submission, a column per check,
              and OUT/pl-scores.csv: PrairieLearn's score upload (uid,
              instance, qid, score_perc, feedback; uid the submission's
              name, instance 1, qid QID, default iolab)
  --out DIR   where --batch writes (default ./grades; never inside DIR)
  --class-data OUT
              also place each submission's measurements in the class that
              `make class SUBMISSIONS=DIR CLASS=OUT` merged (percentiles)
  --only TEXT grade only the checks whose name holds TEXT, and the builds of
              the programs they run (every build where TEXT names no check)
  --repeat N  with --only: run those checks N times, each with new inputs
  --seed N    draw the random inputs from seed N: every report prints
              the seed it drew (Seed: N), and --seed N replays that grading
  --budget S  seconds for a whole grading, builds included (default 1800);
              when they run out the checks finished keep their points and
              the report names those that did not run; the checks that
              read only files (data, figures, answers, machine.txt) run
              first, outside it
  --visibility TEXT=V[;TEXT=V...]
              in --json, a check whose name holds TEXT gets Gradescope's
              visibility V (visible, hidden, after_due_date or
              after_published; the first rule that matches, else visible),
              e.g. 'speed=after_due_date'
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
    labs = sorted({int(x) for x in text.split(",")})
    for lab in labs:
        if lab not in kit_labs():
            usage_error(f"--labs: there is no lab {lab}")
    return labs


def seed_number(text):
    if not re.fullmatch(r"[0-9]{1,18}", text):
        usage_error(f"--seed: '{text}' is not a whole number from 0")
    return int(text)


def seconds(text):
    if not re.fullmatch(r"[1-9][0-9]{0,5}", text):
        usage_error(f"--budget: '{text}' is not a number of seconds")
    return int(text)


def rules_arg(text):
    try:
        return visibility_rules(text)
    except ValueError as e:
        usage_error(f"--visibility: {e}")


def jobs(text):
    if not re.fullmatch(r"[1-9][0-9]?", text):
        usage_error(f"-j: '{text}' is not a count from 1 to 99")
    return int(text)


def main(argv):
    # In order with stderr in a log; a character the terminal's encoding
    # lacks is shown escaped, never a crash.
    sys.stdout.reconfigure(line_buffering=True, errors="backslashreplace")
    sys.stderr.reconfigure(errors="backslashreplace")
    p = Parser(add_help=False)
    p.add_argument("submission", nargs="?")
    p.add_argument("--labs", type=lab_list)
    p.add_argument("--json")
    p.add_argument("--pl-json")
    p.add_argument("--pl-qid", default="iolab")
    p.add_argument("--keep", action="store_true")
    p.add_argument("--list", action="store_true")
    p.add_argument("--batch")
    p.add_argument("-j", dest="jobs", type=jobs, default=2)
    p.add_argument("--out")
    p.add_argument("--class-data")
    p.add_argument("--only")
    p.add_argument("--repeat", type=int, default=1)
    p.add_argument("--seed", type=seed_number)
    p.add_argument("--budget", type=seconds, default=BUDGET)
    p.add_argument("--visibility", type=rules_arg, default=[])
    p.add_argument("--no-bwrap", action="store_true")
    p.add_argument("--unsafe-no-sandbox", action="store_true")
    p.add_argument("-h", "--help", action="store_true")
    args = p.parse_args(argv)
    if args.help:
        print(USAGE)
        return 0
    missing = kit_missing()
    if missing:
        print(f"{PROG}: {missing}", file=sys.stderr)
        return 1
    if args.list:
        for c in load(args.labs or kit_labs())[0]:
            print(f"{'lab' + str(c.lab) if c.lab else 'all'}\t{c.points}\t{c.title}")
        return 0
    if args.batch:
        if args.submission:
            usage_error("one SUBMISSION at a time (or --batch DIR)")
        return batch(args)
    for opt in ("json", "pl_json"):
        if getattr(args, opt):
            setattr(args, opt, os.path.abspath(getattr(args, opt)))
    return grade_one(args)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
