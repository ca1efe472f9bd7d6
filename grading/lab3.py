"""Lab 3: threads on memory and files.  Sizes, thread and file counts are
drawn anew for every grading, so that no answer can be written into a
program in advance.  fillcopy's thread K seeds its generator with K + 1,
so the kit's fillcopy, run with the same -s and -t, fills its buffer with
the same bytes: its dump files say what every file of the student's must
hold.  Every fillcopy writes into its run directory (-d .): the directory
holds nothing else, so what is there is what the program left."""

import csv
import io
import os
import re

from gradelib import Fail, Mutant, check, expect, median, number

LAB = 3
QUESTIONS = {"Q3.1": 3, "Q3.2": 4, "Q3.3": 3, "Q3.4": 4, "Q3.5": 3, "Q3.6": 3, "Q3.7": 3, "Q3.8": 3,
             "Q3.9": 4}
LAB3_CSV = "data/lab3.csv"
MEMCPY_CSV = "data/lab3-memcpy.csv"
NUMBERS = ["trial", "threads", "bytes", "files", "prefault", "fsync", "wall_s", "cpu_s", "mib_s", "faults"]
MEMCPY_NUMBERS = ["trial", "bytes", "rep", "wall_s", "mib_s"]
COLUMNS = {MEMCPY_CSV: MEMCPY_NUMBERS, LAB3_CSV: NUMBERS + ["rng", "copy", "phase"]}


def usage_refused(g, prog, *args):
    r = g.student(prog, *args, timeout=5)
    line = " ".join(map(str, args))
    expect(r.status == 2 and b"usage:" in r.err and not r.killed,
           f"{prog} {line} should be a usage error: exit 2 and the usage on stderr "
           f"(got {r.killed or f'exit {r.status}'})", f"bin/{prog} {line}; echo $?")


def csv_rows(text, what, again):
    rows = list(csv.DictReader(io.StringIO(text)))
    if not rows or None in rows[0] or None in rows[0].values():
        raise Fail(f"{what}: no CSV header and rows", again)
    return rows


def dumps(names):
    """{K: name} of the names fillcopy-PID-K.dmp."""
    return {int(m.group(1)): n for n in names if (m := re.fullmatch(r"fillcopy-\d+-(\d+)\.dmp", n))}


def first_line(err):
    return err.decode("utf-8", "replace").strip().split("\n")[0][:200]


# ------------------------------------------------------------------ fillcopy

def dump_same(g, size, threads, files, *options):
    """The kit's fillcopy and the student's, with these arguments and --keep
    --verify; the student's leaves files files, file K of the length
    slice() gives it and with the bytes of the kit's file K."""
    g.fresh()
    args = ["-s", size, "-t", threads, "-f", files, *options, "--keep", "--verify"]
    again = f"mkdir d; bin/fillcopy {' '.join(map(str, args))} -d d; ls -l d"
    expect(g.reference("fillcopy", *args, "-d", ".").status == 0, "the kit's fillcopy failed: ask your instructor")
    r = g.student("fillcopy", *args, "-d", ".", timeout=10)
    g.ok(r, "fillcopy", again)
    part = size // files
    want = [(k, size - k * part if k == files - 1 else part) for k in range(files)]
    names = os.listdir(g.run)
    mine = dumps(names)
    got = sorted((k, len(g.read(n))) for k, n in mine.items())
    if len(mine) != len(names) or got != want:
        diff = [f"< {k} {b}" for k, b in want if (k, b) not in got] + \
               [f"> {k} {b}" for k, b in got if (k, b) not in want]
        extra = len(names) - len(mine)
        raise Fail(f"-s {size} -f {files}: files fillcopy-PID-K.dmp of SIZE/FILES bytes, the last one also the "
                   f"remainder, expected.\nAs 'K BYTES' (< expected, > yours): {' '.join(diff[:4])}"
                   + (f"; and {extra} files of other names" if extra else ""), again)
    theirs = dumps(os.listdir(g.ref))
    for k in range(files):
        with open(os.path.join(g.ref, theirs[k]), "rb") as f:
            kit = f.read()
        data = g.read(mine[k])
        if data != kit:
            at = next(i for i, (a, b) in enumerate(zip(kit, data)) if a != b)
            raise Fail(f"file {k} is not slice {k} of the buffer: its byte {at} differs from the kit's fillcopy's "
                       "with the same -s and -t\n(thread K seeds its generator with K + 1; a byte the fill skips "
                       "stays 0)", again)


def awkward(g, size, *divisors):
    """size, made no multiple of any of divisors above 1: every cut has a remainder."""
    while any(d > 1 and size % d == 0 for d in divisors):
        size += 1
    return size


@check(4, "fillcopy: file K holds slice K of the kit's buffer, exact sizes", needs=["fillcopy"])
def fillcopy_slices(g):
    # Three runs: the default generator with many threads; rand_r with the
    # byte copy and --prefault; more files than bytes (empty files, the
    # bytes in the last one) and often more threads than bytes. In the
    # first two, neither the threads' chunks nor the files divide the
    # buffer evenly: the last chunk and file hold a remainder.
    threads, files = g.between(2, 16), g.between(2, 20)
    dump_same(g, awkward(g, g.between(100000, 1500000), threads, files), threads, files)
    threads, files = g.between(2, 9), g.between(1, 12)
    dump_same(g, awkward(g, g.between(1000, 100000), threads, files), threads, files,
              "--rng", "rand_r", "--copy", "bytes", "--prefault")
    tiny = g.between(1, 9)
    dump_same(g, tiny, g.between(1, 12), g.between(tiny + 1, 30))


@check(2, "fillcopy: --verify catches --corrupt; no files left behind", needs=["fillcopy"])
def fillcopy_verify(g):
    # --verify finds the byte --corrupt K damaged (the middle of file K),
    # exits 1 and removes the files; a run without --keep leaves nothing.
    size, threads, files = g.between(10000, 500000), g.between(1, 8), g.between(2, 12)
    k = g.between(0, files - 1)
    # SIZE/FILES bytes a file, the last one also the remainder
    byte = (size // files if k < files - 1 else size - k * (size // files)) // 2
    args = ["-s", size, "-t", threads, "-f", files, "--verify", "--corrupt", k]
    again = f"mkdir d; bin/fillcopy {' '.join(map(str, args))} -d d; echo $?; ls d"
    r = g.student("fillcopy", *args, "-d", ".", timeout=5)
    expect(not r.killed, r.why("fillcopy"), again)
    expect(r.status == 1, f"--verify after --corrupt {k}: exit status {r.status}, not 1", again)
    expect(re.search(rf"fillcopy-\d+-{k}\.dmp: byte {byte} differs".encode(), r.err),
           f"--verify --corrupt {k}: expected a message naming file {k} and 'byte {byte} differs', "
           f"got: {first_line(r.err)}", again)
    left = os.listdir(g.run)
    expect(not left, f"a failed --verify left {len(left)} files behind", again)
    args = args[:-2]
    again = f"mkdir d; bin/fillcopy {' '.join(map(str, args))} -d d; echo $?; ls d"
    r = g.student("fillcopy", *args, "-d", ".", timeout=5)
    g.ok(r, "fillcopy", again)
    left = os.listdir(g.run)
    expect(not left, f"without --keep, {len(left)} files were left behind", again)


@check(1, "fillcopy: bad arguments exit 2 with the usage", needs=["fillcopy"])
def fillcopy_errors(g):
    usage_refused(g, "fillcopy", "-t", g.between(257, 9999))
    usage_refused(g, "fillcopy", "--rng", "mt")
    # refused before anything is allocated: two such buffers fit in no machine's memory
    usage_refused(g, "fillcopy", "-s", "1024G")


PAUSE_S = 1.0


@check(1, "fillcopy: wall_s is elapsed time, not CPU time", needs=["fillcopy"])
def fillcopy_stopwatch(g):
    # The grader stops fillcopy (SIGSTOP) for a second in the middle of its
    # fill: a second that passes with no CPU used. The fill's elapsed time
    # holds it, its CPU time does not; a stopwatch made of clock() (CPU
    # time) would not see it either. It stops once fillcopy has used 0.05 s
    # of CPU: before the fill it uses far less (the buffers are not touched
    # yet), and the fill of 32 MiB with rand(), one locked call per byte,
    # far more.
    args = ["-s", "32M", "-t", 1, "-f", 1, "--rng", "rand", "--csv"]
    again = f"bin/fillcopy {' '.join(map(str, args))}, stopped with kill -STOP for {PAUSE_S:g} s while it fills"
    run = g.start("fillcopy", *args, "-d", ".", timeout=30)
    paused = run.pause_after_cpu(0.05, PAUSE_S)
    r = run.wait()
    g.ok(r, "fillcopy", again)
    expect(paused, "fillcopy ended before it had used 0.05 s of CPU: too soon to stop it while it fills", again)
    expect(not os.listdir(g.run), "files left behind without --keep", again)
    fill = [row for row in csv_rows(r.text, "fillcopy --csv", again) if row.get("phase") == "fill"]
    expect(len(fill) == 1 and "wall_s" in fill[0] and "cpu_s" in fill[0], "no fill row with wall_s and cpu_s",
           again)
    wall, cpu = number(fill[0]["wall_s"], "wall_s: "), number(fill[0]["cpu_s"], "cpu_s: ")
    expect(wall - cpu >= PAUSE_S / 2,
           f"stopped for {PAUSE_S:g} s in its fill, fillcopy reported a fill of wall_s {wall:g} s and cpu_s "
           f"{cpu:g} s: wall_s must hold the time it was stopped (a stopwatch, CLOCK_MONOTONIC), cpu_s not",
           again)


@check(1, "membw: --csv rows, exit codes", needs=["membw"])
def membw(g):
    # At least 1 MiB: a smaller copy can take under the CSV's 1 us resolution.
    size, reps = g.between(1048576, 8000000), g.between(2, 9)
    again = f"bin/membw -s {size} -r {reps} --csv"
    r = g.student("membw", "-s", size, "-r", reps, "--csv", timeout=5)
    g.ok(r, "membw", again)
    lines = r.text.rstrip("\n").split("\n")
    ok = lines[0] == "bytes,rep,wall_s,mib_s" and len(lines) == reps + 1
    for rep, line in enumerate(lines[1:], start=1):
        fields = line.split(",")
        ok = ok and len(fields) == 4 and fields[0] == str(size) and fields[1] == str(rep)
        try:
            ok = ok and number(fields[2]) > 0 and number(fields[3]) > 0
        except Fail:
            ok = False
    expect(ok, f"expected the header bytes,rep,wall_s,mib_s and {reps} rows {size},1,... to {size},{reps},... "
           "with positive times", again)
    usage_refused(g, "membw", "-r", g.between(1001, 9999))


def fill_copy_cpu(result):
    """cpu_s of the fill and the copy rows of fillcopy --csv, or None."""
    try:
        rows = {row["phase"]: number(row["cpu_s"]) for row in csv.DictReader(io.StringIO(result.text))}
        return rows["fill"], rows["copy"]
    except (Fail, KeyError, TypeError):
        return None


@check(2, "fillcopy: fill and copy speed within 3x the kit's", needs=["fillcopy"])
def speed(g):
    # Against the kit's fillcopy run alongside: the fill and the copy of 8
    # MiB in one thread, prefaulted. Their CPU time, not their elapsed time:
    # on a busy machine a thread can wait milliseconds for a core, longer
    # than the work itself; and CPU time still varies 2 to 3-fold with what
    # else uses the memory bus. Best of 5 alternating runs each; every run
    # timed must also dump the kit's bytes.
    args = ["-s", "8M", "-t", 1, "-f", 1, "--prefault", "--keep", "--csv"]
    again = f"bin/fillcopy {' '.join(map(str, args))}"
    mine, theirs = [], []
    for _ in range(5):
        g.fresh()
        t = g.reference("fillcopy", *args, "-d", ".")
        expect(t.status == 0 and fill_copy_cpu(t), "the kit's fillcopy failed: ask your instructor")
        theirs.append(fill_copy_cpu(t))
        r = g.student("fillcopy", *args, "-d", ".", timeout=10)
        g.ok(r, "fillcopy", again)
        m = fill_copy_cpu(r)
        expect(m, "no fill and copy rows with cpu_s from fillcopy --csv", again)
        mine.append(m)
        with open(os.path.join(g.ref, dumps(os.listdir(g.ref))[0]), "rb") as f:
            kit = f.read()
        names = dumps(os.listdir(g.run))
        expect(0 in names and g.read(names[0]) == kit, "the dump file of the run timed is not the kit's", again)
    m = [min(x[i] for x in mine) for i in (0, 1)]
    t = [min(x[i] for x in theirs) for i in (0, 1)]
    expect(m[0] <= 3 * t[0] + 0.001 and m[1] <= 3 * t[1] + 0.001,
           f"CPU time of the fill and the copy of 8 MiB, 1 thread, prefaulted, best of 5: yours {m[0]:g} s and "
           f"{m[1]:g} s, the kit's {t[0]:g} s and {t[1]:g} s: slower than 3x the kit's (+1 ms)",
           f"{again}, or bash labs/3-threads/bench-fillcopy.sh")


# ------------------------------------------------------------------ data/lab3*.csv

def rate_ok(nbytes, wall, rate):
    """mib_s is bytes / 2^20 / wall_s, allowing for the rounding of both to
    the digits the programs print."""
    mib = nbytes / 1048576
    return abs(rate * wall - mib) <= 0.01 * mib + 6e-7 * rate + 0.06 * wall


def whole(row, columns, positive=()):
    return all(row[c] == int(row[c]) and row[c] >= (1 if c in positive else 0) for c in columns)


@check(2, "data/lab3*.csv: every configuration, plausible values, 3+ real trials")
def data_plausible(g):
    # Every configuration the lab runs, values that agree with each other
    # and with what memory can do (under 10^6 MiB/s), and 3+ trials of each
    # configuration that are not copies.
    rows = g.rows(LAB3_CSV, NUMBERS, lab=3)
    trials = {}
    for n, r in enumerate(rows, start=2):
        def bad(why):
            raise Fail(f"{LAB3_CSV} line {n}: {why}", "make lab3")
        if not (whole(r, ["trial", "threads", "bytes", "files", "faults"], positive=["threads", "bytes", "files"])
                and r["prefault"] in (0, 1) and r["fsync"] in (0, 1)):
            bad("not whole numbers where expected")
        if (r["rng"] not in ("xoshiro", "rand_r", "rand") or r["copy"] not in ("memcpy", "bytes")
                or r["phase"] not in ("fill", "copy", "dump")):
            bad("unknown rng, copy or phase")
        if r["bytes"] != rows[0]["bytes"]:
            bad("bytes differs from line 2: every run of the lab fills the same buffer size")
        if not (r["wall_s"] > 0 and r["cpu_s"] >= 0 and 0 < r["mib_s"] < 1e6):
            bad("wall_s and mib_s must be positive, cpu_s not negative, mib_s below 10^6")
        if not rate_ok(r["bytes"], r["wall_s"], r["mib_s"]):
            bad("mib_s is not bytes / 2^20 / wall_s")
        # Each thread runs at most for the whole phase (a 1% and 1 ms margin).
        if r["cpu_s"] > 1.01 * r["threads"] * r["wall_s"] + 0.001:
            bad("cpu_s is more than threads x wall_s")
        key = f"threads {r['threads']:g}, rng {r['rng']}, prefault {r['prefault']:g}, phase {r['phase']}"
        trials.setdefault(key, []).append(r["wall_s"])
    most = max(r["threads"] for r in rows)
    expect(most >= 2, f"{LAB3_CSV}: only 1 thread; the lab runs 1 to at least 3", "make lab3")
    for t in range(1, int(most) + 1):
        for rng in ("xoshiro", "rand"):
            for p in (0, 1):
                for phase in ("fill", "copy", "dump"):
                    key = f"threads {t}, rng {rng}, prefault {p}, phase {phase}"
                    n = len(trials.get(key, []))
                    expect(n >= 3, f"{LAB3_CSV}: {n} trials of {key} (at least 3)", "make lab3")
    # Equal to the microsecond in every trial: likely for a phase of some
    # microseconds, not for one of half a millisecond or more.
    for key, walls in trials.items():
        expect(walls[0] < 0.0005 or len(set(walls)) > 1,
               f"{LAB3_CSV}: every trial of {key} took exactly {walls[0]:g} s: not measured", "make lab3")

    rows = g.rows(MEMCPY_CSV, MEMCPY_NUMBERS, lab=3)
    for n, r in enumerate(rows, start=2):
        def bad(why):
            raise Fail(f"{MEMCPY_CSV} line {n}: {why}", "make lab3")
        if not whole(r, ["trial", "bytes", "rep"], positive=["bytes", "rep"]):
            bad("not whole numbers where expected")
        if not (r["wall_s"] > 0 and 0 < r["mib_s"] < 1e6):
            bad("wall_s and mib_s must be positive, mib_s below 10^6")
        if not rate_ok(r["bytes"], r["wall_s"], r["mib_s"]):
            bad("mib_s is not bytes / 2^20 / wall_s")
    ntrials = len({r["trial"] for r in rows})
    expect(ntrials >= 3, f"{MEMCPY_CSV}: {ntrials} trials (at least 3)", "make lab3")
    walls = {r["wall_s"] for r in rows}
    expect(len(walls) > 1, f"{MEMCPY_CSV}: every copy took exactly {rows[0]['wall_s']:g} s: not measured",
           "make lab3")
    # Any machine of this century copies faster than 100 MiB/s.
    rate = median([r["mib_s"] for r in rows])
    expect(rate > 100, f"{MEMCPY_CSV}: median {rate:g} MiB/s: no memory is that slow", "make lab3")


@check(2, "data/lab3.csv: rand() slow and not faster with 2 threads, --prefault removes the faults")
def data_trends(g):
    # Trends any machine shows, loaded or idle, at SCALE=tiny (256 KiB,
    # where a thread may wait longer for a core than it works) as at quick:
    #  - rand() costs a locked call per byte, xoshiro one call per 8 bytes
    #    in registers: the prefaulted 1-thread fill takes at least 3x more
    #    CPU time with rand() (100x at quick scale; CPU time, not elapsed,
    #    because at tiny scale the elapsed time is mostly waiting to be
    #    scheduled);
    #  - rand()'s lock lets one thread at a time call it: 2 threads cannot
    #    fill in much less elapsed time than the CPU time 1 thread needs for
    #    the same calls. A busy machine only makes the elapsed time longer.
    #    (Not the elapsed times of 1 and 2 threads: on a busy machine 2
    #    threads get more of its cores and can come out faster.)
    #  - prefaulted, the fill and copy fault only for the threads' stacks:
    #    at most 50 + 4 per thread, whatever the buffer size and page size.
    rows = g.rows(LAB3_CSV, NUMBERS, lab=3)
    fills = {}
    for n, r in enumerate(rows, start=2):
        if r["prefault"] == 1 and r["phase"] != "dump" and r["faults"] > 50 + 4 * r["threads"]:
            raise Fail(f"{LAB3_CSV} line {n}: {r['faults']:g} page faults in a prefaulted {r['phase']} with "
                       f"{r['threads']:g} threads: --prefault should leave only a few", "make lab3")
        if r["prefault"] == 1 and r["phase"] == "fill" and r["rng"] in ("xoshiro", "rand") and r["threads"] <= 2:
            fills.setdefault((r["rng"], r["threads"]), []).append(r)
    expect(("xoshiro", 1) in fills and ("rand", 1) in fills and ("rand", 2) in fills,
           "no prefaulted fill with xoshiro at 1 thread, or with rand at 1 and 2 threads", "make lab3")
    x = median([r["cpu_s"] for r in fills["xoshiro", 1]])
    cpu = median([r["cpu_s"] for r in fills["rand", 1]])
    wall = median([r["wall_s"] for r in fills["rand", 2]])
    expect(cpu >= 3 * x, f"prefaulted fill, 1 thread: median cpu_s {cpu:g} s with rand, not 3x xoshiro's {x:g} s: "
           "rand() is a locked call per byte", "make lab3")
    expect(wall >= 0.6 * cpu, f"prefaulted rand fill: median wall_s {wall:g} s with 2 threads, less than 0.6x the "
           f"{cpu:g} s of CPU 1 thread needs: rand() has one lock, one thread at a time", "make lab3")


FILLCOPY = "labs/3-threads/fillcopy.c"
MUTANTS = [
    # the default generator falls through to rand(): one generator for the
    # process, where the kit's thread K has its own, seeded with K + 1
    Mutant("fillcopy-shared-rand", FILLCOPY, [("if (gen == XOSHIRO) {", "if (gen == XOSHIRO && 0) {")],
           "fillcopy: file K holds slice K of the kit's buffer, exact sizes"),
    # the last chunk (and file) does not take the remainder of the division
    Mutant("fillcopy-slice-drops-remainder", FILLCOPY,
           [("*to = k == n - 1 ? total : *from + total / n;", "*to = *from + total / n;")],
           "fillcopy: file K holds slice K of the kit's buffer, exact sizes"),
    # --verify compares nothing, so it never sees what --corrupt did
    Mutant("fillcopy-verify-blind", FILLCOPY, [("if (tmp[i] != buf[at + i])", "if (0 && tmp[i] != buf[at + i])")],
           "fillcopy: --verify catches --corrupt; no files left behind"),
    # the test turned round: the dump files are removed only with --keep
    Mutant("fillcopy-keeps-files", FILLCOPY,
           [("if (!keep)\n\t\t\tcleanup_add(paths[k]);", "if (keep)\n\t\t\tcleanup_add(paths[k]);")],
           "fillcopy: --verify catches --corrupt; no files left behind"),
    # clock() as the stopwatch: a phase's "elapsed" time is CPU time
    Mutant("fillcopy-clock-stopwatch", FILLCOPY,
           [("s->start_ns = now_ns();", "s->start_ns = (int64_t)clock() * (1000000000 / CLOCKS_PER_SEC);"),
            ("s->end_ns = now_ns();", "s->end_ns = (int64_t)clock() * (1000000000 / CLOCKS_PER_SEC);")],
           "fillcopy: wall_s is elapsed time, not CPU time"),
]
