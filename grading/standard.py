"""standard.py - the checks every lab has, which its STANDARD declares
the points of (gradelib.standard): the build of each of its programs, the
columns of its CSVs, its figures drawn by the kit's scripts from the
student's data, its written answers present; and data/machine.txt."""

import csv
import os
import re
import shutil
import subprocess
import tempfile
import time

from common import answers     # make handin's parser of answers.md
from grading import gradelib
from grading.gradelib import KIT, Fail, Skip, clean
from grading.png import png_problem

BUILD_BUDGET = 240  # seconds for all of a grading's builds together
BUILD_LIMIT = 120   # seconds for one build


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
        with tempfile.TemporaryFile(dir=g.work) as out, g.building():
            proc = g.box.popen(["make", "-s", f"bin/{prog}"], cwd=g.build, binds=[g.build], cpu=int(limit) + 1,
                               stdout=out, stderr=subprocess.STDOUT)
            try:
                killed = g.watch(proc, limit, out)
            finally:
                build_time["left"] -= time.monotonic() - start
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
        g.rows(name, numeric=(), lab=lab)	# a CSV, no column named twice, or Fail saying why
        # the header as CSV, as the checks read it: a quoted "a,b" is one column
        line = g.file(name).split(b"\n", 1)[0].decode("utf-8", "replace")
        header = next(csv.reader([line.strip()]), [])
        missing = [c for c in columns if c not in header]
        gradelib.expect(not missing, f"{name}: no column {', '.join(missing)}", f"make lab{lab}")
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
