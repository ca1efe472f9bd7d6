"""Lab 6: what fsync buys.  Record counts and generations are drawn anew for
every grading; the kit's saver, run on the grader's side, says what the
right bytes are.  The student's saver runs under the grader's tracer
(strace, as the grader, outside the sandbox), whose log the kit's recorder
(labs/6-fsync/fsrecord.py, imported) turns into the calls crashstates
replays; the kit's crashstates, with the kit's saver --verify as the
checker, says which crash states the student's safe save can leave."""

import importlib.util
import os
import re
import shlex
import subprocess
import sys

from grading.gradelib import KIT, Fail, Mutant, check, expect, median, standard, usage_refused

LAB6 = os.path.join(KIT, "labs", "6-fsync")


def _kit_module(name):
    """labs/6-fsync/NAME.py, the kit's own, imported by its path."""
    spec = importlib.util.spec_from_file_location(f"lab6_{name}", os.path.join(LAB6, name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


fsrecord = _kit_module("fsrecord")

LAB = 6
STANDARD = standard(build=1, columns=1, figures=2)  # points of each build, CSV, the figures
QUESTIONS = {"Q6.1": 2, "Q6.2": 3, "Q6.3": 2, "Q6.4": 3, "Q6.5": 2, "Q6.6": 2, "Q6.7": 2, "Q6.8": 2}
STATES_CSV = "data/lab6-states.csv"
COST_CSV = "data/lab6-cost.csv"
STRATEGIES = ("inplace", "fflush", "rename", "fsync-rename", "safe", "log")
MODELS = ("posix", "ext4-noauto_da_alloc", "ext4-ordered")
CRASHSTATES = os.path.join(LAB6, "crashstates.py")
# Bytes of one write call the grader's recorder reads (strace's -s): the
# kit's largest graded document is under 1 MB (-s log, 130 records, 99
# generations). At fsrecord's 16 MiB, one write of them held the grader at
# 320 MB reading the log (2.4 GB before fsrecord.string read it by slices).
SAVE_LIMIT = 4 << 20
# ... and of the whole log (each byte written is 4 in it): 7 writes of
# 4 MiB held it at 222 MB, fsrecord's own limit (64 MiB of calls) not reached.
SAVE_LOG_LIMIT = 32 << 20
TRACE_OPTIONS = [str(SAVE_LIMIT) if prev == "-s" else o for prev, o in zip([None, *fsrecord.STRINGS], fsrecord.STRINGS)]


@check(3, "saver: every strategy writes the kit's bytes, and no temporary file is left", needs=["saver"])
def saver_bytes(g):
    n, gen = g.between(3, 300), g.between(2, 99)
    for strategy in STRATEGIES:
        if strategy == "log":   # the kit's saver writes each generation of the log before it
            gen = g.between(2, 5)
        g.fresh()
        before, after = old_document(g, strategy, n, gen)
        g.put("doc.kv", before)
        again = f"bin/saver -s {strategy} -n {n} -g {gen} doc.kv (over generation {gen - 1})"
        g.ok(g.student("saver", "-s", strategy, "-n", n, "-g", gen, "doc.kv", timeout=10), "saver", again)
        expect(g.read("doc.kv") == after, f"-s {strategy}: doc.kv is not generation {gen} of {n} records as the "
               f"kit's saver writes it" + (" (after generations 1 to {gen - 1})" if strategy == "log" else ""),
               again)
        expect(sorted(os.listdir(g.run)) == ["doc.kv"], f"-s {strategy} left {sorted(os.listdir(g.run))} "
               "behind, not doc.kv alone", f"{again}; ls")
    usage_refused(g, "saver", "-s", "fsync-everything", "x")
    usage_refused(g, "saver", "-n", 0, "x")
    usage_refused(g, "saver", "x", "y")


@check(5, "saver -s safe: no broken crash state under any model", needs=["saver"], timeout=180)
def safe_states(g):
    # Every state a crash during or after the save could leave, under the
    # pessimistic POSIX model and the two ext4 ones, holds the old document
    # or the new one, whole, and the new one once save_safe() has returned.
    n, gen = g.pick(g.between(3, 60), g.between(65, 130)), g.between(2, 99)
    rows = crash_states(g, "safe", n, gen)
    for row in rows:
        if row["broken"] != "0":
            report = crash_states(g, "safe", n, gen, models=(row["model"],), readable=True)
            # The way to a broken state, call by call, then the count: the
            # report's last lines are the ones printed.
            way = report.strip().splitlines()[1:]
            raise Fail("\n".join(way) + f"\nunder the {row['model']} model, {row['broken']} of the {row['states']} "
                       "states a crash can leave are broken (above: the shortest way to one)",
                       f"make; bin/fsrecord -o calls.log -- bin/saver -s safe -n {n} -g {gen} "
                       f"doc.kv (over generation {gen - 1}); bin/crashstates --model {row['model']} "
                       f"--check 'bin/saver --verify -s safe -n {n} -g {gen} doc.kv' calls.log")


@check(1, "saver: the unsafe strategies show broken crash states, as the kit's do", needs=["saver"])
def unsafe_states(g):
    # The strategies the kit gives break under the ext4 model: in place
    # (truncated), and rename before the data is written back.
    n, gen = g.between(65, 130), g.between(2, 99)
    for strategy in ("inplace", "rename"):
        rows = crash_states(g, strategy, n, gen, models=("ext4-noauto_da_alloc",))
        expect(int(rows[0]["broken"]) > 0, f"-s {strategy}: no broken crash state under ext4-noauto_da_alloc, but "
               "the kit's has some: has saver.c's save() changed?")


# ------------------------------------------------------------------ data/lab6-*.csv

@check(2, "data/lab6-states.csv: every strategy and model, counts that agree")
def states_data(g):
    rows = g.data("lab6-states.csv", 6)     # counts, whole and not negative, as declared
    seen = {}
    for n, r in enumerate(rows, start=2):
        def bad(why):
            raise Fail(f"{STATES_CSV} line {n}: {why}", "make lab6")
        if r["strategy"] not in STRATEGIES or r["model"] not in MODELS:
            bad(f"unknown strategy {r['strategy']} or model {r['model']}")
        if r["records"] < 1:
            bad("no records")
        if r["crash_points"] != r["calls"] + 1 or not r["broken"] <= r["states"] or r["states"] < 1:
            bad("crash points are the calls + 1, and broken states are some of the states built")
        if (r["broken"] > 0) != (r["first_broken_after_call"] is not None):
            bad("first_broken_after_call is there exactly when some state is broken")
        seen[(r["strategy"], r["model"])] = r
    for s in STRATEGIES:
        for m in MODELS:
            expect((s, m) in seen, f"{STATES_CSV}: no row for {s} under {m}", "make lab6")
    for m in MODELS:
        expect(seen[("safe", m)]["broken"] == 0, f"{STATES_CSV}: safe has broken states under {m}", "make lab6")
        for s in ("inplace", "fflush", "rename"):
            expect(seen[(s, m)]["broken"] > 0, f"{STATES_CSV}: {s} has no broken state under {m}: "
                   "not what the kit's saver and crashstates find", "make lab6")


@check(2, "data/lab6-cost.csv: every strategy, 3+ real trials of 3+ saves, plausible times")
def cost_data(g):
    # labs/6-fsync/trials.csv: us_per_save above 1 (a save opens, writes
    # and closes a file at the least: three system calls and a path lookup,
    # more than a microsecond together on any machine; the cheapest
    # strategy, in place on a tmpfs, took 14 us on a 2-core VM), 3+ trials
    # of each strategy, not all equal (printed to the nanosecond: equal
    # trials were not measured)
    rows = g.data("lab6-cost.csv", 6)
    g.trials("lab6-cost.csv", 6, rows)
    times = {}
    for n, r in enumerate(rows, start=2):
        def bad(why):
            raise Fail(f"{COST_CSV} line {n}: {why}", "make lab6")
        if r["strategy"] not in STRATEGIES:
            bad(f"unknown strategy {r['strategy']}")
        if r["doc_bytes"] != 64 * r["records"] or r["saves"] < 3:
            bad("doc_bytes is 64 x records, and each trial is 3 saves or more")
        if not r["wall_s"] > 0:
            bad("wall_s must be more than 0")
        if abs(r["wall_s"] * 1e6 / r["saves"] - r["us_per_save"]) > 0.01 * r["us_per_save"] + 0.01:
            bad("us_per_save is not wall_s x 10^6 / saves")
        times.setdefault(r["strategy"], []).append(r["us_per_save"])
    for s in STRATEGIES:
        expect(s in times, f"{COST_CSV}: no trial of {s}", "make lab6")
    # fsync waits for the disk: a save that adds two fsyncs to rename's
    # calls takes longer, by far, on any disk. On a tmpfs fsync does
    # nothing, and the two are a few system calls apart: no trend there.
    machine = (g.file("data/machine.txt") or b"").decode("utf-8", "replace")
    if re.search(r"^scratch_dir_fs: (tmpfs|ramfs)$", machine, re.M):
        return "scratch on a tmpfs: no fsync cost to see"
    expect(median(times["safe"]) >= median(times["rename"]) * 0.8,
           f"{COST_CSV}: safe's median time per save ({median(times['safe']):g} us) is below rename's "
           f"({median(times['rename']):g} us), which makes the same calls but two fsyncs", "make lab6")


SAVER = "labs/6-fsync/saver.c"
MUTANTS = [
    # the new file's data is never made durable before its name replaces the old
    Mutant("saver-safe-no-file-fsync", SAVER, [("die_errno(tmp);\n\tfsync_or_die(fd, tmp);\n\tclose_or_die(fd, tmp);",
                                                "die_errno(tmp);\n\tclose_or_die(fd, tmp);")], safe_states),
    # the rename is never made durable: after the save, the old document can come back
    Mutant("saver-safe-no-dir-fsync", SAVER, [("\tfsync_or_die(dfd, dir);\n\tclose_or_die(dfd, dir);",
                                               "\tclose_or_die(dfd, dir);")], safe_states),
    # the rename comes before the file's fsync: a crash between keeps the name, not the data
    Mutant("saver-safe-rename-before-fsync", SAVER,
           [("die_errno(tmp);\n\tfsync_or_die(fd, tmp);\n\tclose_or_die(fd, tmp);\n\tif (rename(tmp, path) != 0)\n\t\tdie_errno(path);\n",
             "die_errno(tmp);\n\tif (rename(tmp, path) != 0)\n\t\tdie_errno(path);\n\tfsync_or_die(fd, tmp);\n\tclose_or_die(fd, tmp);\n")],
           safe_states),
    # fsync of the directory's descriptor where the file's was meant
    Mutant("saver-safe-fsync-wrong-fd", SAVER, [("die_errno(tmp);\n\tfsync_or_die(fd, tmp);",
                                                 "die_errno(tmp);\n\tfsync_or_die(dfd, tmp);")],
           safe_states),
    # the document written over itself, with fsyncs but no temporary file
    Mutant("saver-safe-in-place", SAVER,
           [("\tint fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);\n\n\tif (dfd",
             "\tint fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);\n\n\tif (dfd"),
            ("\tif (rename(tmp, path) != 0)\n\t\tdie_errno(path);\n\tfsync_or_die(dfd",
             "\tfsync_or_die(dfd")], safe_states),
]


# ------------------------------------------------------------------ helpers of the checks above

def old_document(g, strategy, n, gen):
    """What the file holds before generation gen is saved (the kit's saver's
    generations before it), and what it must hold after."""
    path = os.path.join(g.ref, "doc.kv")
    for i in range(1, gen + 1) if strategy == "log" else (gen - 1, gen):
        if strategy != "log" and os.path.exists(path):
            os.unlink(path)
        expect(g.reference("saver", "-s", strategy, "-n", n, "-g", i, "doc.kv").status == 0,
               "the kit's saver failed: ask your instructor")
        with open(path, "rb") as f:
            if i == gen - 1:
                before = f.read()
            else:
                after = f.read()
    os.unlink(path)
    return before, after


def crash_states(g, strategy, n, gen, models=MODELS, readable=False):
    """The student's saver -s strategy saving generation gen over gen-1,
    recorded; then the kit's crashstates on that log under models: its
    CSV rows as dicts (readable: its report, for a failure's message)."""
    g.fresh()
    before, _ = old_document(g, strategy, n, gen)
    g.put("doc.kv", before)
    again = f"bin/fsrecord -o calls.log -- bin/saver -s {strategy} -n {n} -g {gen} doc.kv: see the steps of labs/6-fsync/README.md"
    init = fsrecord.snapshot(g.run)
    r = g.student("saver", "-s", strategy, "-n", n, "-g", gen, "doc.kv", timeout=10,
                  trace=fsrecord.CALLS, trace_options=TRACE_OPTIONS)
    g.ok(r, "saver", again)
    logged = os.path.getsize(r.trace)
    expect(logged <= SAVE_LOG_LIMIT, f"the recorder: your saver's calls make a log of {logged >> 20} MiB, more than "
           f"the {SAVE_LOG_LIMIT >> 20} MiB the grader reads (the kit's saver writes a document of at most 1 MB)",
           again)
    try:
        text, _ = fsrecord.convert(r.trace, g.run, g.run, init)
    except fsrecord.Refused as e:
        raise Fail(f"the recorder: {e}", again) from None
    path = os.path.join(g.ref, "calls.log")
    with open(path, "w") as f:
        f.write(text)
    args = [sys.executable, "-I", "-B", CRASHSTATES, "--model", ",".join(models), "--scratch", g.ref,
            "--check", f"{shlex.quote(os.path.join(KIT, 'bin', 'saver'))} --verify -s {strategy} -n {n} -g {gen} doc.kv",
            *([] if readable else ["--csv"]), path]
    try:
        p = subprocess.run(args, capture_output=True, text=True, timeout=g._within_check(100))
    except subprocess.TimeoutExpired:
        raise Fail("crashstates took too long on your saver's calls", again) from None
    if p.returncode != 0:
        raise Fail(f"crashstates on your saver's calls: {p.stderr.strip()}", again)
    if readable:
        return p.stdout
    lines = p.stdout.splitlines()
    header = lines[0].split(",")
    return [dict(zip(header, line.split(","))) for line in lines[1:]]
