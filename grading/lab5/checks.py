"""Lab 5: access patterns.  bin/iopattern gets sizes, strides, totals and
seeds drawn anew for every grading, and is compared with the kit's
iopattern run on the same arguments in the grader's own directory (no
input file: iopattern creates its own).  That directory sits on the same
file system as the student's run directory, which may be a disk or a
tmpfs: what the kit's program does there is the expected answer, never a
fixed number.

Where the answer depends on time, both programs run under the grader's
shim grading/lab5/ioclock.c: every read and write of the file advances the
clock by a latency drawn from its offset, so that wall times, latency
percentiles, rates and their statistics are the same in every run and
compare with the kit's digit for digit; the first I/O after a cache drop
(posix_fadvise DONTNEED) takes 5 ms more, so that a --cold that drops
nothing shows on any file system, a tmpfs included. The same shim holds
O_DIRECT transfers to 512-byte alignment of buffer, size and offset
(EINVAL otherwise), as a disk's block layer does, on any file system that
opens O_DIRECT at all (a tmpfs accepts any alignment).

Several I/Os in flight (--iodepth, --jobs) are checked on real I/O, not on
that clock (it does not see io_uring): the data read (data_sum) must be
the kit's, and the grader's tracer (grading/tracer.py: strace, from outside
the sandbox) shows how many requests one io_uring submission carried and
how many threads were inside a read of the file at once."""

import math
import os
import re

from grading import tracer
from grading.gradelib import Fail, Mutant, check, declared_columns, expect, median, number, standard

LAB = 5
STANDARD = standard(build=1, columns=1, figures=2)  # points of each build, CSV, the figures
QUESTIONS = {"Q5.1": 3, "Q5.2": 4, "Q5.3": 4, "Q5.4": 4, "Q5.5": 3, "Q5.6": 4, "Q5.7": 3, "Q5.8": 2,
             "Q5.9": 3, "Q5.10": 4, "Q5.11": 3, "Q5.12": 3}
LAB5_CSV = "data/lab5.csv"
# iopattern --csv: the columns Lab 5 declares for lab5-depth.csv, after experiment and series
HEADER = declared_columns("lab5-depth.csv")[2:]
# The columns that say what a trial did: op .. bytes.
CONDITIONS = HEADER[:HEADER.index("bytes") + 1]
HEADER_LINE = ",".join(HEADER)
NUMBERS = ["io_bytes", "direct", "cold", "trial", "ios", "bytes", "wall_s", "cpu_s", "bytes_per_ns",
           "lat_p50_us", "lat_p99_us", "cached_pct", "median_bytes_per_ns"]
DEPTH_CSV = "data/lab5-depth.csv"
DEPTH_NUMBERS = ["trial", "ios", "bytes", "iops", "iodepth", "jobs", "max_in_flight", "lat_mean_us"]
DIO_ALIGN = 512     # the shim's O_DIRECT alignment: every block device's at least


# ------------------------------------------------------------------ --print-offsets

@check(3, "iopattern: --print-offsets as the kit's for seq, stride and random", needs=["iopattern"])
def offsets(g):
    io, n = g.between(100, 10000), g.between(3, 40)
    stride = io + g.between(0, 3 * io)
    cases = [
        # one pass over a file that need not be a whole number of I/Os, then wrapping around
        ["--op", "read", "--pattern", "seq", "-b", io, "--file-size", io * n + g.between(0, io - 1)],
        ["--op", "write", "--pattern", "seq", "-b", io, "--file-size", io * n,
         "--total", io * (n + g.between(1, n))],
        ["--op", "read", "--pattern", "stride", "-b", io, "--stride", stride,
         "--file-size", g.between(2 * stride, 30 * stride)],
        ["--op", "write", "--pattern", "stride", "-b", io, "--stride", stride, "--file-size", stride * n,
         "--total", io * (n + g.between(1, n))],
        # --total alone: the file is just big enough for one pass
        ["--op", "read", "--pattern", "stride", "-b", io, "--stride", stride, "--total", io * n],
        ["--op", "read", "--pattern", "random", "-b", io, "--file-size", g.between(2 * io, 64 * io),
         "--total", io * g.between(10, 300), "--seed", g.between(0, 999999999)],
        ["--op", "write", "--pattern", "random", "-b", io, "--file-size", io * n],
    ]
    for args in cases:
        args = [str(a) for a in args] + ["--print-offsets", "x"]
        again = "bin/iopattern " + " ".join(args)
        want = g.reference("iopattern", *args)
        expect(want.status == 0, f"the kit's iopattern failed: {want.why('iopattern')}: ask your instructor")
        got = g.student("iopattern", *args)
        g.ok(got, "iopattern", again)
        w, m = want.text.splitlines(), got.text.splitlines()
        if w != m:
            at = next((i for i, (a, b) in enumerate(zip(w, m)) if a != b), min(len(w), len(m)))
            raise Fail(f"the offsets differ from the kit's at I/O {at + 1} of {len(w)}: yours "
                       f"{m[at] if at < len(m) else '(none)'}, the kit's {w[at] if at < len(w) else '(none)'}",
                       again)
        expect(gone(g, "x"), "--print-offsets created the file x: it should do no I/O", again)


# ------------------------------------------------------------------ usage

@check(2, "iopattern: -h, usage errors, an existing FILE, O_DIRECT alignment", needs=["iopattern"])
def usage(g):
    r = g.student("iopattern", "-h")
    expect(r.status == 0 and re.search(rb"^usage: iopattern", r.out, re.M),
           f"-h: exit status {r.status}, or no 'usage: iopattern' line on stdout", "bin/iopattern -h")
    r = g.student("iopattern", "--op", "read", "--pattern", "seq", "f")
    expect(r.status == 2 and b"usage:" in r.err, f"no -b: exit status {r.status}, not 2 with the usage on stderr",
           "bin/iopattern --op read --pattern seq f")
    io = g.between(2, 64)
    args = ["--op", "read", "--pattern", "stride", "-b", f"{io}K", "--stride", f"{io - 1}K", "f"]
    r = g.student("iopattern", *args)
    expect(r.status == 2, f"a stride shorter than the I/O size: exit status {r.status}, not 2",
           "bin/iopattern " + " ".join(args))

    # FILE is the program's own: an existing one is refused and left alone.
    secret = f"precious {g.between(0, 10**9)}\n".encode()
    g.put("keep.dat", secret)
    r = g.student("iopattern", "--op", "write", "--pattern", "seq", "-b", "4K", "--file-size", "64K", "keep.dat")
    expect(r.status == 1 and g.read("keep.dat") == secret,
           f"an existing FILE: exit status {r.status} (not 1), or the file was changed or removed",
           "echo precious >keep.dat; bin/iopattern --op write --pattern seq -b 4K --file-size 64K keep.dat")

    # O_DIRECT and an odd size: a usage error naming the alignment, where the
    # kit's iopattern finds that O_DIRECT works here (else it exits 1, and
    # there is no alignment to name).
    b = g.between(50, 4000) * 2 + 1
    args = ["--op", "read", "--pattern", "seq", "-b", b, "--file-size", "64K", "-r", 1, "--direct", "d.dat"]
    want = g.reference("iopattern", *args)
    align = re.search(rb" the (\d+)-byte alignment", want.err)
    if want.status != 2 or not align:
        return
    r = g.student("iopattern", *args)
    expect(r.status == 2 and align.group(1) in r.err,
           f"-b {b} --direct: exit status {r.status}, not 2 with a message naming the "
           f"{align.group(1).decode()}-byte alignment", f"bin/iopattern {' '.join(map(str, args))}")


# ------------------------------------------------------------------ CSV rows and statistics

@check(3, "iopattern: CSV rows, statistics and bytes moved as the kit's", needs=["iopattern"])
def csv_same(g):
    # each pattern once, reads and writes taking turns from a random start
    ops = ["read", "write"] if g.between(0, 1) else ["write", "read"]
    for k, pattern in enumerate(("seq", "stride", "random")):
        # 4 to 16 KiB I/Os, 128 to 256 of them per file: over 100 KiB per trial
        io = g.between(8, 32) * 512
        op = ops[k % 2]
        args = ["--op", op, "--pattern", pattern, "-b", io, "--file-size", io * g.between(128, 256),
                "-r", g.between(3, 5)]
        if pattern == "stride":     # 2 to 4 I/O sizes: a stride that is no seq
            args += ["--stride", io * g.between(2, 4)]
        if pattern == "random":
            args += ["--seed", g.between(0, 999999)]
        if op == "write":
            sync = g.pick("none", "end", "each")
            if sync == "each":      # an fsync per write can take milliseconds: 32 writes a trial
                args += ["--total", 32 * io]
            args += ["--sync", sync]
        args = [str(a) for a in args]
        same_rows(g, args, g.between(0, 999999))


# ------------------------------------------------------------------ --cold and --direct

@check(2, "iopattern: --cold and --direct as the kit's on this file system", needs=["iopattern"])
def cold_direct(g):
    # --cold: the cache state each trial starts from is the kit's on this file system.
    args = ["--op", "read", "--pattern", "seq", "-b", "64K", "--file-size", f"{g.between(8, 32) * 64}K",
            "-r", "2", "--cold"]
    reproduce = f"bin/iopattern {' '.join(args)} --csv f.dat"
    theirs, mine = kit_and_student(g, args, reproduce, timeout=6, **shimmed(g, g.between(0, 999999)))
    _, diff = first_difference(csv_rows(theirs, "the kit's"), csv_rows(mine, "your"), skip=("cpu_s",))
    expect(not diff, f"--cold: {diff}: are the file's pages dropped (posix_fadvise DONTNEED) before each "
           "trial? (on the grader's clock the first I/O after a drop takes 5 ms more)", reproduce)

    # --direct writes, warm: O_DIRECT drops the cached pages it writes over,
    # so from trial 2 on the kit's says 0.0 where O_DIRECT bypasses the cache
    # (100.0 on a tmpfs); where this file system refuses O_DIRECT, the same
    # failure as the kit's (exit 1, a message). I/Os of 2 MiB and more: a
    # buffer from malloc() is then mmap()ed, 16 bytes past a page boundary,
    # and the shim's 512-byte rule fails it with EINVAL every time.
    args = ["--op", "write", "--pattern", "seq", "-b", f"{g.between(2, 4)}M", "--file-size", "16M", "-r", "2",
            "--direct"]
    reproduce = f"bin/iopattern {' '.join(args)} --csv f.dat"
    theirs = g.reference("iopattern", "--csv", *args, "f.dat", **shimmed(g))
    mine = g.student("iopattern", "--csv", *args, "f.dat", timeout=10, **shimmed(g))
    expect(mine.status == theirs.status and not mine.killed,
           f"--direct: {mine.why('iopattern') if mine.status else 'exit status 0'}, the kit's exit status "
           f"{theirs.status} here (O_DIRECT needs the buffer's address, the size and the offset aligned)",
           reproduce)
    if theirs.status:
        return
    want, got = csv_rows(theirs, "the kit's"), csv_rows(mine, "your")
    expect([r[:len(CONDITIONS)] for r in got] == [r[:len(CONDITIONS)] for r in want],
           "--direct: the rows differ from the kit's in op..bytes", reproduce)
    expect(column(got, "cached_pct") == column(want, "cached_pct"),
           f"--direct writes: cached_pct {' '.join(column(got, 'cached_pct'))} where the kit's says "
           f"{' '.join(column(want, 'cached_pct'))}: is the file written with O_DIRECT?", reproduce)


# Random 4 KiB reads of a small cached file, D requests queued at once. The
# kit's loop fills every free slot, then submits them all in one call: its
# first submission carries D requests, on any machine and under any load.
# Whether requests then overlap in the kernel depends on timing; how many one
# submission carries depends only on the loop, so that is what is checked,
# by the grader's tracer: io_uring_enter's return value, the entries the
# kernel took. The max_in_flight column alone could say anything.
@check(3, "iopattern --iodepth: N requests in flight, same data", needs=["iopattern"])
def iodepth(g):
    g.need_io_uring()
    d, io = g.between(8, 32), 4096
    args = [str(a) for a in ["--op", "read", "--pattern", "random", "-b", io,
                             "--file-size", io * g.between(64, 256), "--total", io * g.between(200, 400),
                             "--seed", g.between(0, 999999), "-r", 2]]
    deep = args + ["--iodepth", str(d)]
    reproduce = f"bin/iopattern {' '.join(deep)} --csv f.dat"
    want = g.reference("iopattern", "--csv", *args, "f.dat")
    expect(want.status == 0, f"the kit's iopattern failed here: {want.why('iopattern')}: ask your instructor")
    want = csv_rows(want, "the kit's")
    # io_uring for this check alone: the only one whose program sets up a ring
    # (inside bubblewrap only: sandbox.NO_IO_URING; the sandbox's ON_REQUEST)
    rows, (submitted, calls, requests), _ = in_flight(g, deep, reproduce, io_uring=True)
    same_data(want, rows, reproduce, f"--iodepth {d}")
    tops = column(rows, "max_in_flight")
    expect(column(rows, "iodepth") == [str(d)] * len(rows) and tops == [str(d)] * len(rows),
           f"--iodepth {d}: iodepth {' '.join(column(rows, 'iodepth'))}, max_in_flight {' '.join(tops)}, "
           f"not {d} in every row (each trial has more I/Os than that)", reproduce)
    expect(submitted >= 2, f"--iodepth {d}: no io_uring submission carried more than {submitted} request(s) "
           "(the grader's tracer counts what each io_uring_enter call hands to the kernel): are the free slots "
           "all filled before one submit, so that the requests are in flight together?", reproduce)
    expect(requests >= 2 * calls, f"--iodepth {d}: {calls} io_uring_enter calls handed the kernel {requests} "
           "requests, fewer than 2 each on average (the kit's carry about the depth each on a cached file): "
           "is each refill one request at a time?", reproduce)
    again = f"bin/iopattern {' '.join(args)} --iodepth 1 --csv f.dat"
    rows, _, _ = in_flight(g, args + ["--iodepth", "1"], again, io_uring=True)
    same_data(want, rows, again, "--iodepth 1")
    expect(column(rows, "max_in_flight") == ["1"] * len(rows),
           f"--iodepth 1: max_in_flight {' '.join(column(rows, 'max_in_flight'))}, not 1", again)


# Threads that run together always meet: the tracer holds each thread's
# first read of f.dat for MEET_US, so J threads running at the same time are
# seen inside one together however the scheduler orders them, and threads
# run one after another never are.
@check(2, "iopattern --jobs: N threads, same data", needs=["iopattern"])
def jobs(g):
    j, io = g.between(2, 6), 4096 * g.between(1, 4)
    args = [str(a) for a in ["--op", "read", "--pattern", "random", "-b", io,
                             "--file-size", io * g.between(64, 256), "--total", io * g.between(100, 300),
                             "--seed", g.between(0, 999999), "-r", 2]]
    reproduce = f"bin/iopattern {' '.join(args)} --jobs {j} --csv f.dat"
    want = g.reference("iopattern", "--csv", *args, "f.dat")
    expect(want.status == 0, f"the kit's iopattern failed here: {want.why('iopattern')}: ask your instructor")
    rows, _, together = in_flight(g, args + ["--jobs", str(j)], reproduce, jobs=j)
    same_data(csv_rows(want, "the kit's"), rows, reproduce, f"--jobs {j}")
    expect(column(rows, "jobs") == [str(j)] * len(rows), f"--jobs {j}: the jobs column says "
           f"{' '.join(column(rows, 'jobs'))}", reproduce)
    expect(together == j, f"--jobs {j}: at most {together} thread(s) doing a share of the reads were inside pread "
           f"at once, though the grader's tracer held each one's first read of f.dat for {MEET_US / 1e6:g} s: do "
           f"the {j} threads run at the same time (every one created before any is joined)?", reproduce)
    expect(rows[0][HEADER.index("max_in_flight")] == str(j), f"--jobs {j}: max_in_flight "
           f"{rows[0][HEADER.index('max_in_flight')]} in trial 1, where {j} threads were seen inside pread at "
           "once", reproduce)


# io_uring refused (here the sandbox's system-call filter fails io_uring_setup
# with EPERM, as a container's does): --iodepth must stop and say so, never
# fall back to one pread at a time under the same name, nor leave its file.
@check(1, "iopattern --iodepth, io_uring refused: one line, exit 1, no file", needs=["iopattern"])
def refused(g):
    args = ["--op", "read", "--pattern", "seq", "-b", "4K", "--file-size", f"{g.between(4, 64)}K", "-r", "1",
            "--iodepth", str(g.between(1, 16)), "f.dat"]
    reproduce = f"bin/iopattern {' '.join(args)} where io_uring_setup fails (EPERM)"
    r = g.student("iopattern", *args, io_uring=False)
    lines = r.err.decode("utf-8", "replace").strip().splitlines()
    expect(r.status == 1 and not r.killed and len(lines) == 1 and "io_uring" in lines[0],
           f"io_uring refused: {r.why('iopattern') if r.status else 'exit status 0'}, {len(lines)} line(s) on "
           "stderr: exit status 1 and one line naming io_uring expected", reproduce)
    left = sorted(os.listdir(g.run))
    expect(not left, f"io_uring refused: {', '.join(left)} left in the directory", reproduce)


# ------------------------------------------------------------------ speed

# Cached reads cost CPU only, so the student's iopattern should report what
# the kit's reports, run alongside on the real clock: the fastest trial of 3
# alternating runs each, the one least disturbed by the machine's other work
# (short trials, many of them, so that some fit between two of its time
# slices). 3x either way catches a timer around the wrong code, or a wrong
# unit. Every timed run's rows must say it did the kit's I/Os.
@check(2, "iopattern: cached-read throughput within 3x of the kit's", needs=["iopattern"])
def measure(g):
    args = ["--op", "read", "--pattern", "seq", "-b", f"{16 << g.between(0, 2)}K", "--file-size", "8M", "-r", "10"]
    reproduce = f"bin/iopattern {' '.join(args)} f.dat"
    mine, theirs = [], []
    for _ in range(3):
        t, m = kit_and_student(g, args, reproduce)
        want, got = csv_rows(t, "the kit's"), csv_rows(m, "your")
        expect([r[:len(CONDITIONS)] for r in got] == [r[:len(CONDITIONS)] for r in want],
               "the rows differ from the kit's in op..bytes", reproduce)
        theirs += [number(x, "the kit's bytes_per_ns: ") for x in column(want, "bytes_per_ns")]
        mine += [number(x, "bytes_per_ns: ") for x in column(got, "bytes_per_ns")]
    m, t = max(mine), max(theirs)
    expect(0 < m <= 3 * t and 3 * m >= t,
           f"cached reads, the fastest of 30 trials: yours {m:.4g} bytes/ns, the kit's {t:.4g}: not within 3x "
           "of the kit's: does the timing cover the I/Os, and only them?", reproduce)


@check(2, "data/lab5.csv: six experiments, consistent rows, 3+ real trials")
def data_plausible(g):
    rows = g.rows(LAB5_CSV, NUMBERS, lab=5)
    again = "make lab5"
    runs, run, key = [], None, None
    for n, r in enumerate(rows, start=2):
        where = f"{LAB5_CSV} line {n}: "
        expect(r["experiment"] in EXPERIMENTS, f"{where}unknown experiment {r['experiment']}", again)
        expect(r["io_bytes"] == int(r["io_bytes"]) > 0 and r["trial"] == int(r["trial"])
               and r["ios"] == int(r["ios"]) > 0 and r["bytes"] == r["ios"] * r["io_bytes"],
               f"{where}io_bytes, trial, ios, bytes: not whole numbers with bytes = ios x io_bytes", again)
        expect(0 < r["wall_s"] < 3600 and r["cpu_s"] >= 0 and 0 <= r["lat_p50_us"] <= r["lat_p99_us"]
               and 0 <= r["cached_pct"] <= 100,
               f"{where}implausible: wall_s {r['wall_s']:g}, cpu_s {r['cpu_s']:g}, lat_p50_us {r['lat_p50_us']:g}, "
               f"lat_p99_us {r['lat_p99_us']:g}, cached_pct {r['cached_pct']:g}", again)
        rate = r["bytes"] / r["wall_s"] / 1e9
        expect(not off(r["bytes_per_ns"], rate), f"{where}bytes_per_ns {r['bytes_per_ns']:g} is not "
               f"bytes / wall_s / 1e9 = {rate:g}", again)
        expect(r["bytes_per_ns"] <= 500, f"{where}bytes_per_ns {r['bytes_per_ns']:g}: faster than memory can copy "
               "(a few hundred at most)", again)
        series = r["series"]
        expect((("direct" in series) == (r["direct"] == 1))
               and (bool(re.search("cold|fsync-end|direct", series)) == (r["cold"] == 1))
               and (("fsync-end" in series) == (r["sync"] == "end"))
               and (("fsync-each" in series) == (r["sync"] == "each"))
               and r["op"] == ("read" if "read" in r["experiment"] else "write"),
               f"{where}the conditions (op, direct, cold, sync) do not match the series {series}", again)
        conditions = tuple(str(r[c]) for c in ("experiment", "series", "op", "pattern", "io_bytes", "stride_bytes",
                                               "file_bytes", "direct", "cold", "sync", "seed"))
        if r["trial"] == 1:
            run, key = dict(first=n, median=r["median_bytes_per_ns"], rates=[], walls=[]), conditions
            runs.append(run)
        expect(run is not None and key == conditions and r["trial"] == len(run["rates"]) + 1,
               f"{where}trial {r['trial']:g} does not follow trial {len(run['rates']) if run else 0} of the same run",
               again)
        run["rates"].append(r["bytes_per_ns"])
        run["walls"].append(r["wall_s"])
    for run in runs:
        where = f"{LAB5_CSV} line {run['first']}: "
        expect(len(run["rates"]) >= 3, f"{where}only {len(run['rates'])} trials in this run (at least 3)", again)
        expect(len(set(run["walls"])) > 1,
               f"{where}every trial of this run took exactly {run['walls'][0]:g} s: not measured", again)
        expect(not off(run["median"], median(run["rates"])), f"{where}median_bytes_per_ns {run['median']:g} is not "
               f"the median of its trials, {median(run['rates']):g}", again)
    seen = {r["experiment"] for r in rows}
    missing = [e for e in EXPERIMENTS if e not in seen]
    expect(not missing, f"no rows of the experiment {', '.join(missing)}", again)


@check(2, "data/lab5.csv: cache, O_DIRECT and fsync trends where a device is underneath")
def data_trends(g):
    rows = g.rows(LAB5_CSV, NUMBERS, lab=5)
    again = "make lab5"
    sizes = [r for r in rows if r["experiment"] == "read-size"]
    warm = [r["cached_pct"] >= 50 for r in sizes if r["series"] == "cached"]
    dropped = [r["cached_pct"] < 50 for r in sizes if r["series"] != "cached"]
    expect(warm and dropped, "no read-size rows of the cached series and of the others", again)
    if sum(warm) < DEVICE_SHARE * len(warm) or sum(dropped) < DEVICE_SHARE * len(dropped):
        return (f"trends not checked: {sum(warm)} of {len(warm)} read-size rows of the cached series found the "
                f"file in the page cache (cached_pct >= 50), {sum(dropped)} of {len(dropped)} of the others found "
                "it emptied: no device seen under the file (a tmpfs, or ZFS's ARC?)")

    def point(experiment, series, io):
        rates = [r["bytes_per_ns"] for r in rows
                 if r["experiment"] == experiment and r["series"] == series and r["io_bytes"] == io]
        expect(rates, f"no {experiment} {series} point at {io} bytes", again)
        return median(rates)

    c, d = point("read-size", "cached", 4096), point("read-size", "direct", 4096)
    expect(c >= 3 * d, f"read-size at 4 KiB: cached {c:.4g} bytes/ns is not 3x direct {d:.4g} (medians), "
           "with the cache emptied for direct", again)
    big = point("read-size", "direct", 1048576)
    expect(big >= 2 * d, f"read-size direct: 1 MiB I/Os at {big:.4g} bytes/ns are not 2x faster than 4 KiB ones "
           f"at {d:.4g}: one device round trip per I/O should dominate small ones", again)
    c, e = point("write-size", "cached", 4096), point("write-size", "fsync-each", 4096)
    expect(c >= 3 * e, f"write-size at 4 KiB: cached {c:.4g} bytes/ns is not 3x fsync-each {e:.4g}: an fsync per "
           "write waits for the device", again)


@check(2, "data/lab5-depth.csv: the lab's depths and threads, Little's law, the same data")
def data_depth(g):
    rows = g.rows(DEPTH_CSV, DEPTH_NUMBERS, lab=5)
    again = "make lab5"
    points, sums = {}, {}
    for n, r in enumerate(rows, start=2):
        where = f"{DEPTH_CSV} line {n}: "
        kind = r["experiment"]
        expect(kind in ("depth", "threads"), f"{where}unknown experiment {kind}", again)
        x = r["iodepth"] if kind == "depth" else r["jobs"]
        top = r["max_in_flight"]
        expect(x == int(x) >= 1 and (r["jobs"] == 1 if kind == "depth" else r["iodepth"] == 0),
               f"{where}iodepth {r['iodepth']:g} and jobs {r['jobs']:g} do not fit the experiment {kind}", again)
        expect(1 <= top <= x and (kind == "threads" or top == min(x, r["ios"])),
               f"{where}max_in_flight {top:g} with {'iodepth' if kind == 'depth' else 'jobs'} {x:g}", again)
        little = r["iops"] * r["lat_mean_us"] / 1e6
        expect(0 < little <= LITTLE_SLACK * top,
               f"{where}iops x lat_mean_us / 1e6 = {little:.3g} I/Os in flight on average, more than the "
               f"{top:g} at most (max_in_flight): not measured together", again)
        points.setdefault(kind, set()).add(int(x))
        # Every point reads the same file at the same offsets, trial by trial.
        key = (r["seed"], r["ios"], r["trial"])
        expect(sums.setdefault(key, r["data_sum"]) == r["data_sum"],
               f"{where}data_sum {r['data_sum']} differs from another point's trial {r['trial']:g} (same seed, "
               f"same offsets, same data: {sums[key]})", again)
    got = (sorted(points.get("depth", ())), sorted(points.get("threads", ())))
    expect(got in DEPTHS.values(), f"depths {got[0]} and threads {got[1]}: not the ones make lab5 measures at "
           "any scale (" + "; ".join(f"{k}: {a}, {b}" for k, (a, b) in DEPTHS.items()) + ")", again)


IOPATTERN = "labs/5-patterns/iopattern.c"
PAGECACHE = "labs/5-patterns/pagecache.h"
REPORT = "labs/5-patterns/report.h"
MUTANTS = [
    # the buffer from malloc(): not aligned for O_DIRECT (EINVAL on a disk)
    Mutant("iopattern-malloc-buffer", PAGECACHE,
           [("bufs[i] = region + i * step;", "bufs[i] = malloc(io);")],
           cold_direct),
    # random offsets from the C library's one shared rand(), not the seeded generator
    Mutant("iopattern-shared-rand", IOPATTERN,
           [("? rng_below(r, slots) * c->io", "? (uint64_t)rand() % slots * c->io + 0 * rng_next(r)")],
           offsets),
    # random offsets drawn from one slot too many: the last I/O can end past the file
    Mutant("iopattern-random-past-end", IOPATTERN,
           [("? rng_below(r, slots) * c->io", "? rng_below(r, slots + 1) * c->io")],
           offsets),
    # random offsets at any byte, not at multiples of the I/O size
    Mutant("iopattern-random-unaligned", IOPATTERN,
           [("? rng_below(r, slots) * c->io", "? rng_below(r, c->file - c->io + 1)")],
           offsets),
    # the stride counted from one I/O's end to the next's start: one block too far
    Mutant("iopattern-stride-plus-block", IOPATTERN,
           [(": (i % slots) * c->stride;", ": (i % slots) * (c->stride + c->io);")],
           offsets),
    # --cold without posix_fadvise(DONTNEED): nothing is dropped
    Mutant("iopattern-cold-keeps-cache", PAGECACHE,
           [("err = posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);", "err = 0;")],
           cold_direct),
    # percentiles one rank too high: p50 is the next latency up, p99 often the maximum
    Mutant("iopattern-percentile-rank", REPORT,
           [("return x[rank > 0 ? rank - 1 : 0];", "return x[rank < n ? rank : n - 1];")],
           csv_same),
    # --iodepth keeps one request in flight: the queue refilled only once empty
    Mutant("iopattern-ring-one-in-flight", IOPATTERN,
           [("for (; n_idle > 0 && next < c->ios;", "for (; in_flight == 0 && n_idle > 0 && next < c->ios;")],
           iodepth),
    # the same, reporting max_in_flight as the depth asked for
    Mutant("iopattern-ring-one-in-flight-lying", IOPATTERN,
           [("for (; n_idle > 0 && next < c->ios;", "for (; in_flight == 0 && n_idle > 0 && next < c->ios;"),
            ("if (in_flight > *most)\n\t\t\t*most = in_flight;", "*most = (unsigned)c->depth;")],
           iodepth),
    # every read request into slot 0's buffer: completions summed from the wrong buffers
    Mutant("iopattern-ring-one-buffer", IOPATTERN,
           [("io_uring_prep_read(sqe, fd, bufs[slot],", "io_uring_prep_read(sqe, fd, bufs[0],")],
           iodepth),
    # each thread joined right after it is created: the threads run one after another
    Mutant("iopattern-jobs-one-after-another", IOPATTERN,
           [("if (j > 0 && (err = pthread_join(s[j].thread, NULL)) != 0)",
             "if (0 && (err = pthread_join(s[j].thread, NULL)) != 0)"),
            ("if (j > 0 && (err = pthread_create(&s[j].thread, NULL, run_share, &s[j])) != 0)",
             "if (j > 0 && ((err = pthread_create(&s[j].thread, NULL, run_share, &s[j])) != 0\n"
             "\t\t\t      || (err = pthread_join(s[j].thread, NULL)) != 0))")],
           jobs),
    # io_uring refused: silently one pread at a time instead
    Mutant("iopattern-ring-refusal-ignored", IOPATTERN,
           [("\t\tif (err != 0)\n\t\t\tdie(\"--iodepth needs io_uring",
             "\t\tif (err != 0 && (c.depth = 0) != 0)\n\t\t\tdie(\"--iodepth needs io_uring")],
           refused),
]


# ------------------------------------------------------------------ helpers of the checks above

def shimmed(g, seed=None):
    """preload and env for a run under grading/lab5/ioclock.c."""
    env = {"IOLAB_DIO_ALIGN": str(DIO_ALIGN)}
    if seed is not None:
        env["IOLAB_CLOCK_SEED"] = str(seed)
    return dict(preload=g.shim("ioclock", source="grading/lab5/ioclock.c"), env=env)


def csv_rows(result, whose):
    """iopattern --csv's rows as lists of strings; Fail unless the header
    is the kit's and every row has its columns."""
    lines = result.text.splitlines()
    expect(lines and lines[0].split(",") == HEADER, f"{whose} CSV header is not the kit's:\n  {HEADER_LINE}")
    rows = [line.split(",") for line in lines[1:]]
    for n, row in enumerate(rows, start=1):
        expect(len(row) == len(HEADER), f"{whose} CSV row {n}: {len(row)} fields, not {len(HEADER)}")
    return rows


def column(rows, name):
    return [row[HEADER.index(name)] for row in rows]


def gone(g, name):
    """name is no longer in the run directory (iopattern removes its file)."""
    return not os.path.lexists(os.path.join(g.run, name))


def kit_and_student(g, args, reproduce, timeout=20, **kw):
    """iopattern --csv ARGS f.dat by the kit, then by the student, each in
    its own directory: (the kit's result, the student's), the student's
    having exited 0 and removed f.dat."""
    theirs = g.reference("iopattern", "--csv", *args, "f.dat", **kw)
    expect(theirs.status == 0, f"the kit's iopattern failed here: {theirs.why('iopattern')}: ask your instructor",
           reproduce)
    mine = g.student("iopattern", "--csv", *args, "f.dat", timeout=timeout, **kw)
    g.ok(mine, "iopattern", reproduce)
    expect(gone(g, "f.dat"), "the file f.dat is still there: iopattern removes its file at exit", reproduce)
    return theirs, mine


def first_difference(want, got, skip=()):
    """The first column where the rows got differ from want, outside the
    columns skip, and the difference in words; (None, None) where they agree."""
    if len(got) != len(want):
        return "trial", f"{len(got)} rows, the kit's {len(want)}"
    for n, (w, m) in enumerate(zip(want, got), start=1):
        for name, a, b in zip(HEADER, w, m):
            if a != b and name not in skip:
                return name, f"row {n}, {name}: yours {b}, the kit's {a}"
    return None, None


def same_rows(g, args, clock):
    """The student's iopattern --csv ARGS prints the kit's rows, both timed
    by the grader's clock: every column but cpu_s, and cached_pct as the
    kit's, and moves as many bytes as the kit's by read and write calls."""
    reproduce = f"bin/iopattern {' '.join(args)} --csv f.dat"
    theirs, mine = kit_and_student(g, args, reproduce, **shimmed(g, clock))
    # The bytes moved by read and write calls, filling the file included,
    # within 4 KiB (the loader's reads, the lengths of printed numbers).
    for counter in ("rchar", "wchar"):
        t, m = (theirs.io or {}).get(counter), (mine.io or {}).get(counter)
        if not t or m is None:
            continue    # no I/O accounting in this kernel
        expect(abs(m - t) <= 4096, f"read and write calls moved {counter}={m} bytes (/proc/PID/io), the kit's "
               f"{t}: is every I/O whole, and the file filled before the trials?", reproduce)
    want, got = csv_rows(theirs, "the kit's"), csv_rows(mine, "your")
    name, diff = first_difference(want, got, skip=("cpu_s", "cached_pct"))
    if diff:
        raise Fail(diff + ("" if name in CONDITIONS else
                           " (the grader's clock gives every I/O a latency drawn from its offset, the same in "
                           "both runs: are the right I/Os timed, one latency each, and the statistics computed "
                           "as the kit's?)"), reproduce)
    if sorted(set(column(got, "cached_pct"))) != sorted(set(column(want, "cached_pct"))):
        raise Fail(f"cached_pct {' '.join(column(got, 'cached_pct'))} where the kit's says "
                   f"{' '.join(column(want, 'cached_pct'))}", reproduce)


# ------------------------------------------------------------------ several I/Os in flight

# How long the tracer holds each thread's first pread of f.dat: threads that
# run together are all inside one then, however the scheduler orders them
# (starting a thread takes microseconds, milliseconds on a busy machine);
# threads run one after another never are.
MEET_US = 1000000
READS = ("pread64", "preadv", "preadv2", "read", "readv")


def in_flight(g, args, reproduce, jobs=0, **kw):
    """The student's iopattern --csv ARGS f.dat under the grader's tracer:
    (its CSV rows, what its io_uring_enter calls handed to the kernel (see
    tracer.submissions), and where jobs (its --jobs) the most threads
    inside a read of f.dat at once, each thread's first one held MEET_US
    by the tracer, of the threads that read at least half a share of the
    file's I/Os (a thread that reads once and ends is no worker))."""
    if jobs:
        trace = dict(trace=READS, on=["f.dat"], inject=[f"{name}:delay_enter={MEET_US}:when=1" for name in READS])
    else:
        trace = dict(trace=["io_uring_enter"])
    r = g.student("iopattern", "--csv", *args, "f.dat", timeout=20, **trace, **kw)
    g.ok(r, "iopattern", reproduce)
    # (with io_uring, the program ran in a tmpfs the grader does not see: other checks ask it)
    expect(gone(g, "f.dat"), "the file f.dat is still there: iopattern removes its file at exit", reproduce)
    together = 0
    if jobs:
        share = int(args[args.index("--total") + 1]) // int(args[args.index("-b") + 1]) // jobs
        workers = {t for t, n in tracer.calls_by_thread(r.trace, READS).items() if n >= share // 2}
        together = tracer.most_inside(r.trace, READS, among=workers)
    return csv_rows(r, "your"), tracer.submissions(r.trace), together


def same_data(want, got, reproduce, what):
    """got's rows say they moved want's bytes and read want's data."""
    expect(len(got) == len(want), f"{what}: {len(got)} rows, the kit's {len(want)}", reproduce)
    for n, (w, m) in enumerate(zip(want, got), start=1):
        for name in ("ios", "bytes", "data_sum"):
            a, b = w[HEADER.index(name)], m[HEADER.index(name)]
            expect(a == b, f"{what}: row {n}, {name}: yours {b}, the kit's {a}" +
                   (" (the sum of the first 8 bytes each I/O read: does every request read into its own "
                    "buffer, and is each completion's buffer the one its request used?)"
                    if name == "data_sum" else ""), reproduce)


# ------------------------------------------------------------------ data/lab5.csv

EXPERIMENTS = ("read-size", "write-size", "read-stride", "write-stride", "random-read", "random-write")


def off(a, b):
    """a differs from b by more than the CSV's rounding: |a - b| beyond
    1e-4 b and 1e-9 together (hypot: a square of a CSV's 1e200 raised
    OverflowError, and the grader broke on the check)."""
    return abs(a - b) > math.hypot(1e-4 * b, 1e-9)


# Trends that hold wherever a device is under the file, whatever the device
# and the load: checked only when the data show one (cached reads found the
# file in the page cache and --cold emptied it). On a tmpfs everything is
# memory; on ZFS the ARC, which mincore cannot see, serves every read. The
# data decide by their rows on the whole (3 in 4 of each side), so that no
# one cell switches the check off; when it is off, the report says why.
DEVICE_SHARE = 0.75

# The depths and thread counts labs/5-patterns/lab5.sh measures, by scale.
DEPTHS = {"tiny": ([1, 4, 32], [1, 2]), "quick": ([1, 2, 4, 8, 16, 32, 64], [1, 2, 4, 8]),
          "full": ([1, 2, 4, 8, 16, 32, 64], [1, 2, 4, 8])}

# Little's law: iops x lat_mean_us / 1e6 = the sum of the I/Os' latencies over
# the trial's wall time = how many were in flight on average, which cannot
# exceed the most at once. iopattern times every latency inside the trial's
# wall time (io_uring: from its submission round to its completion seen;
# threads: back to back within each thread), so the product is at most
# max_in_flight (io_uring) or jobs (threads) up to the CSV's rounding: iops
# has 6 significant digits, lat_mean_us 3 decimals. 2% slack covers that
# with a wide margin and no more; a product over it was not measured so.
LITTLE_SLACK = 1.02
