"""Lab 2: locking and flushing.  Characters, line counts and batch sizes
are drawn anew for every grading.

The grader itself holds the locks the student's writers must respect: it
takes a lock of one kind on a file it created in the fresh run directory
before any student program started, starts the writers, and reads
/proc/locks (global: the writers inside bubblewrap's PID namespace show
too) to know that they wait.  Where a lock is a record lock, the grader
never opens that file a second time while it holds it: closing any
descriptor of a file drops a process's record locks on it.

Whether every byte reaches the file while a lock is held is seen by the
grader's tracer (grading/tracer.py: strace, from outside the sandbox): the
locks, unlocks and write calls on the file of one writer running alone,
every one the kernel served, stdio's own included; bytes the file holds
beyond those written inside a lock reached it with none held.  Two
writers side by side then show what the lab is about: nothing lost, every
run a whole number of batches.
"""

import csv
import fcntl
import io
import os
import struct
import time

from grading import tracer
from grading.gradelib import Fail, Mutant, check, expect, lines_of, median, number, standard

LAB = 2
STANDARD = standard(build=1, columns=1, figures=2)  # points of each build, CSV, the figures
QUESTIONS = {"Q2.1": 3, "Q2.2": 3, "Q2.3": 4, "Q2.4": 5, "Q2.5": 3, "Q2.6": 3, "Q2.7": 4, "Q2.8": 2}
LAB2_CSV = "data/lab2.csv"
WHOLE = ["lines_per_lock", "trial", "lines_written", "vol_cs", "invol_cs", "lines_found", "lost_lines", "runs",
         "max_run_lines"]
NUMBERS = WHOLE + ["wall_s", "user_s", "sys_s", "start_delay_s", "median_run_lines"]
KINDS = ("flock", "fcntl", "ofd")


# ------------------------------------------------------------------ checks

@check(2, "flock-writer and lockbench: N lines of the character, lockbench --csv", needs=["flock-writer", "lockbench"])
def counts(g):
    c, n, k = g.char(), g.between(1000, 30000), g.between(1, 3000)
    g.put("f", lines_of("X", 3))
    again = f"printf 'X\\nX\\nX\\n' >f; bin/flock-writer -c {c} -n {n} -k {k} f"
    g.ok(g.student("flock-writer", "-c", c, "-n", n, "-k", k, "f"), "flock-writer", again)
    expect(g.read("f") == (lines_of("X", 3) + lines_of(c, n)).encode(),
           f"3 lines of X, then {n} lines of '{c}' expected", again)

    g.fresh()
    c, n, k = g.char(), g.between(1000, 30000), g.between(1, 3000)
    opts = ["--lock", g.pick("flock", "fcntl", "ofd", "none")] + g.pick([], ["--no-flush"])
    if n // k <= 16:  # a sync per batch waits for the disk: only a few batches with one
        opts += ["--sync", g.pick("none", "fdatasync", "fsync")]
    args = ["-c", c, "-n", n, "-k", k, *opts]
    shown = " ".join(map(str, args))
    g.put("f", lines_of("X", 3))
    r = g.student("lockbench", *args, "--csv", "f")
    g.ok(r, "lockbench", f"bin/lockbench {shown} --csv f")
    expect(g.read("f") == (lines_of("X", 3) + lines_of(c, n)).encode(),
           f"3 lines of X, then {n} lines of '{c}' expected", f"printf 'X\\nX\\nX\\n' >f; bin/lockbench {shown} f")
    # the kit's header, and its row up to the batches; then three times
    want = list(csv.reader(io.StringIO(g.reference("lockbench", *args, "--csv", "kit.txt").text)))
    got = list(csv.reader(io.StringIO(r.text)))
    ok = len(got) == 2 and got[0] == want[0] and len(got[1]) == 10 and got[1][:7] == want[1][:7]
    if ok:
        try:
            wall, wait, held = (number(x) for x in got[1][7:])
            ok = all("." in x for x in got[1][7:]) and wall > 0 and wait >= 0 and held >= 0 \
                and wait + held <= wall + 2e-6
        except Fail:
            ok = False
    expect(ok, f"--csv: expected the kit's header and a row starting {','.join(want[1][:7])},\n"
           f"then wall_s > 0 and lock_wait_s + lock_held_s <= wall_s; got: {r.text.strip()[:300]}",
           f"bin/lockbench {shown} --csv f")


@check(3, "two writers with a lock and the flush: nothing lost, runs multiples of K, writes inside the lock",
       needs=["flock-writer", "lockbench"])
def together(g):
    # deterministic: one writer alone, each kind of lock, its order logged
    inside_lock(g, "flock-writer")
    for kind in KINDS:
        inside_lock(g, "lockbench", "--lock", kind)
    # two writers: K lines per lock is more than a stdio buffer holds, so
    # several write(2)s per batch that only the lock keeps together; N a
    # multiple of K, so that the last batch is whole too.  The writers
    # interleave almost always; up to 3 tries for a file that shows it (a
    # correct program passes whatever the scheduler does).
    kind = g.pick(*KINDS)
    for prog, lock, opts in (("flock-writer", "flock", ()), ("lockbench", kind, ("--lock", kind))):
        k = g.between(3000, 8000)
        n = k * g.between(150, 250)
        for _ in range(3):
            writers(g, lock, prog, n, k, *opts)
            r = g.reference("runs", "-q", "--expect", f"A={n},B={n}", "--multiple", k, "f")
            expect(r.status == 0, f"two writers, {prog} -k {k} {' '.join(opts)}: "
                   f"{r.err.decode('utf-8', 'replace').strip()[:200]}", again(lock, n, k, prog, *opts))
            if runs_in(g, "f") > 2:
                break


@check(2, "two writers with --no-flush: nothing lost, runs no longer multiples of K", needs=["lockbench"])
def no_flush(g):
    kind = g.pick(*KINDS)
    # One writer alone: still a lock per batch, but with K odd (2K bytes, no
    # multiple of a stdio buffer's size) some unlock comes before all of its
    # batch reached the file: stdio writes whole buffers, not batches.
    k = g.between(500, 1999) | 1
    n = k * g.between(3, 5)
    seen = lock_order(g, "lockbench", n, k, "--lock", kind, "--no-flush")
    trace = f"strace -e trace=flock,fcntl,write bin/lockbench -n {n} -k {k} --lock {kind} --no-flush t"
    expect(len(seen["pairs"]) == batches_of(n, k) and not seen["relocked"],
           f"--no-flush: {len(seen['pairs'])} lock-unlock pairs, not one per batch ({batches_of(n, k)})", trace)
    expect(seen["pairs"] != [2 * k] * len(seen["pairs"]),
           f"--no-flush -n {n} -k {k}: every batch reached the file before its unlock: "
           "the batches were still written inside the lock, as with the flush", trace)
    # Two writers: every write(2) is O_APPEND, so still no line is lost.
    n = g.between(300, 500) * 1000
    writers(g, kind, "lockbench", n, 1000, "--lock", kind, "--no-flush")
    r = g.reference("runs", "-q", "--expect", f"A={n},B={n}", "f")
    expect(r.status == 0, "two writers with --no-flush lost or changed lines: "
           f"{r.err.decode('utf-8', 'replace').strip()[:200]}",
           again(kind, n, 1000, "lockbench", "--lock", kind, "--no-flush"))


@check(3, "locks exclude writers until released; --lock none and fcntl ignore flock",
       needs=["flock-writer", "lockbench"])
def exclusion(g):
    # an flock excludes the flock writers, a record lock (fcntl or OFD:
    # they conflict with each other) the fcntl and OFD writers
    k = g.between(1, 20)
    excluded(g, "flock", "flock-writer", "-k", k)
    excluded(g, "flock", "lockbench", "-k", k, "--lock", "flock")
    excluded(g, g.pick("fcntl", "ofd"), "lockbench", "-k", k, "--lock", "fcntl")
    excluded(g, g.pick("fcntl", "ofd"), "lockbench", "-k", k, "--lock", "ofd")
    ignored(g, "flock", "lockbench", "-k", k, "--lock", "none")
    ignored(g, "flock", "lockbench", "-k", k, "--lock", "fcntl")


@check(1, "failed writes and syncs exit 1, bad arguments exit 2", needs=["flock-writer", "lockbench"])
def errors(g):
    # /dev/null cannot be synced; /dev/full takes no byte
    sync, n = g.pick("fsync", "fdatasync"), g.between(1, 5000)
    fails(g, 1, f"/dev/null: {sync}: Invalid argument", "lockbench", "-n", n, "--sync", sync, "--lock",
          g.pick("flock", "fcntl", "ofd", "none"), "/dev/null")
    fails(g, 1, "/dev/full: No space left on device", "flock-writer", "-n", n, "/dev/full")
    fails(g, 1, "/dev/full: No space left on device", "lockbench", "-n", n, g.pick("--no-flush", "--csv"),
          "/dev/full")
    fails(g, 2, "usage:", "flock-writer", "-k", 0, "f")
    fails(g, 2, "usage:", "flock-writer", "-c", g.char() + g.char(), "f")
    fails(g, 2, "usage:", "lockbench", "--lock", g.pick("flok", "posix", "lockf"), "f")
    fails(g, 2, "usage:", "lockbench", "--sync", g.pick("always", "msync", "sometimes"), "f")


@check(2, "data/lab2.csv: every experiment, plausible values, 2+ real trials")
def data_plausible(g):
    rows = g.rows(LAB2_CSV, NUMBERS, lab=2)
    seen, walls, trials = set(), {}, {}
    for n, r in enumerate(rows, start=2):
        def bad(why):
            raise Fail(f"{LAB2_CSV} line {n}: {why}", "make lab2")
        if not (r["experiment"] in ("plain", "sweep", "lockstep", "locks", "sync") and r["flush"] in ("0", "1")
                and r["lock"] in ("none", "flock", "fcntl", "ofd") and r["sync"] in ("none", "fdatasync", "fsync")
                and r["writer"] in ("A", "B") and r["runs_multiple_of_k"] in ("0", "1")):
            bad("unknown experiment, flush, lock, sync or writer")
        for c in WHOLE:
            if r[c] != int(r[c]) or r[c] < 0:
                bad(f"{c} is not a whole number")
        if not (r["lines_per_lock"] > 0 and r["trial"] > 0 and r["lines_written"] > 0):
            bad("lines_per_lock, trial or lines_written is 0")
        if not (0 < r["wall_s"] < 600 and r["user_s"] >= 0 and r["sys_s"] >= 0 and 0 <= r["start_delay_s"] < 10):
            bad("wall_s must be positive and below 600 s, CPU times and start_delay_s not negative")
        if r["lines_written"] * 2 / 1048576 / r["wall_s"] >= 1e5:  # 2-byte lines; no memory moves 10^5 MiB/s
            bad("more than 10^5 MiB/s")
        # flock-writer measures no lock times; lockbench both, within its elapsed time
        if (r["experiment"] == "plain") != (r["lock_wait_s"] == "" and r["lock_held_s"] == ""):
            bad("lock_wait_s and lock_held_s are empty for plain (flock-writer) only")
        if r["experiment"] != "plain":
            wait, held = number(r["lock_wait_s"], "lock_wait_s: "), number(r["lock_held_s"], "lock_held_s: ")
            if not (wait >= 0 and held >= 0 and wait + held <= r["wall_s"] + 2e-6):
                bad("lock_wait_s + lock_held_s is more than wall_s")
        if r["lines_found"] + r["lost_lines"] != r["lines_written"]:
            bad("lines_found + lost_lines is not lines_written")
        if not (r["median_run_lines"] <= r["max_run_lines"] <= r["lines_found"]
                and (r["lines_found"] == 0 or r["runs"] >= 1)):
            bad("run lengths that do not add up")
        key = (conf(r), r["trial"], r["writer"])
        if key in seen:
            bad(f"a second row for {conf(r)} trial {r['trial']:g} writer {r['writer']}")
        seen.add(key)
        walls.setdefault(conf(r), []).append(r["wall_s"])
        trials.setdefault(conf(r), set()).add(r["trial"])

    def fail(why):
        raise Fail(f"{LAB2_CSV}: {why}", "make lab2")
    for c in walls:
        if len(walls[c]) != 2 * len(trials[c]):
            fail(f"{c}: not one row for writer A and one for B in every trial")
    plain = max((len(trials[conf(r)]) for r in rows if r["experiment"] == "plain"), default=0)
    if plain < 2:
        fail(f"{plain} trials of plain (at least 2)")
    swept = {}
    for r in rows:
        if r["experiment"] == "sweep":
            key = (r["lines_per_lock"], r["flush"])
            swept[key] = max(swept.get(key, 0), len(trials[conf(r)]))
    ks = {k for k, _ in swept}
    if len(ks) < 5 or 1 not in ks or 1000 not in ks:
        fail(f"sweep at {len(ks)} values of K; the lab sweeps 5, from 1 to 10000")
    for k in sorted(ks):
        for f in ("0", "1"):
            if swept.get((k, f), 0) < 2:
                fail(f"{swept.get((k, f), 0)} trials of sweep K={k:g} flush={f} (at least 2)")
    kinds = {r["lock"] for r in rows if r["experiment"] == "locks" and r["lines_per_lock"] == 1}
    if not {"none", "flock", "fcntl", "ofd"} <= kinds:
        fail("locks at K=1 lacks one of none, flock, fcntl, ofd")
    if not {"none", "fdatasync", "fsync"} <= {r["sync"] for r in rows if r["experiment"] == "sync"}:
        fail("sync lacks one of none, fdatasync, fsync")
    # A and B of one trial may tie to the microsecond; 4 rows or more may not.
    for c, w in walls.items():
        if len(w) >= 4 and len(set(w)) == 1:
            fail(f"every writer of {c} took exactly {w[0]:.6f} s: not measured")


@check(2, "data/lab2.csv: nothing lost, locked runs multiples of K, K=1 slower than K=1000")
def data_trends(g):
    # What holds on any machine, disk or tmpfs, one core or many, idle or busy:
    #  - no line is lost: every write(2) is O_APPEND (on a network file system,
    #    whose appends are not atomic, only writes made inside a lock count);
    #  - with a lock and the flush, every run is a multiple of K;
    #  - a lock per line costs more than a lock per 1000 lines, flush or not:
    #    at least twice the median time (10 to 100 times at SCALE=quick; 2 is
    #    safe at SCALE=tiny, where starting the writers weighs most).
    # Not checked, since a machine may not show it: runs that are not
    # multiples of K without the flush (the writers may not overlap), a sync
    # that costs more than none (a tmpfs), and with no lock either way.
    rows = g.rows(LAB2_CSV, NUMBERS, lab=2)
    machine = (g.file("data/machine.txt") or b"").decode("utf-8", "replace")
    fs = next((line.split(":", 1)[1].strip() for line in machine.splitlines()
               if line.startswith("scratch_dir_fs:")), "")
    walls = {}
    for n, r in enumerate(rows, start=2):
        locked = r["flush"] == "1" and r["lock"] != "none"
        expect(r["lost_lines"] == 0 or not (locked or not fs.startswith(NETWORK_FS)),
               f"line {n}: {r['lost_lines']:g} lines lost; O_APPEND loses none", "make lab2")
        expect(not locked or r["runs_multiple_of_k"] == "1",
               f"line {n}: a lock and the flush, yet a run that is not a multiple of K", "make lab2")
        # lockstep: the writers meet before every batch, so every trial
        # tests the flush: whole batches with it, broken ones without
        if r["experiment"] == "lockstep":
            expect(r["interleaved"] == "1" and r["runs_multiple_of_k"] == r["flush"],
                   f"line {n}: lockstep, flush={r['flush']}, yet runs_multiple_of_k={r['runs_multiple_of_k']} "
                   f"(interleaved={r['interleaved']}): with the flush every batch stays whole, without it "
                   "batches break", "make lab2")
        if r["experiment"] == "sweep" and r["lines_per_lock"] in (1, 1000):
            walls.setdefault((r["lines_per_lock"], r["flush"]), []).append(r["wall_s"])
    for f in ("0", "1"):
        expect((1, f) in walls and (1000, f) in walls, f"no sweep at K=1 and K=1000 with flush={f}", "make lab2")
        one, thousand = median(walls[1, f]), median(walls[1000, f])
        expect(one >= 2 * thousand, f"sweep, flush={f}: median wall_s {one:g} s at K=1, not twice the "
               f"{thousand:g} s at K=1000: a lock per line costs more", "make lab2")


# Each must lose the points of the check it names in every grading
# (python3 grading/mutants.py --labs 2).
LOCKBENCH, FLOCK_WRITER = "labs/2-locking/lockbench.c", "labs/2-locking/flock-writer.c"
FLUSH = "\t\tif (flush && fflush(fp) != 0)\n\t\t\tdie_errno(path);\n"
MUTANTS = [
    # the flush after the unlock: the batch's last write(2) comes unlocked
    Mutant("lockbench-unlock-before-flush", LOCKBENCH,
           [(FLUSH, ""), ("\t\tint64_t released = now_ns();\n", "\t\tint64_t released = now_ns();\n" + FLUSH)],
           together),
    Mutant("flock-writer-unlock-before-flush", FLOCK_WRITER,
           [("\t\tif (fflush(fp) != 0)\n\t\t\tdie_errno(path);\n", ""),
            ("\t\tdone += batch;\n", "\t\tif (fflush(fp) != 0)\n\t\t\tdie_errno(path);\n\t\tdone += batch;\n")],
           together),
    # --lock is parsed and printed, but no lock is ever taken
    Mutant("lockbench-no-lock", LOCKBENCH, [("switch (kind) {", "switch (kind * 0) {")],
           exclusion),
    # record locks "released" with F_WRLCK: held until the writer exits
    Mutant("lockbench-unlock-with-wrlck", LOCKBENCH,
           [(".l_type = take ? F_WRLCK : F_UNLCK,", ".l_type = F_WRLCK,")],
           together),
    # a record lock on the first byte only: appends land outside it
    Mutant("lockbench-one-byte-range", LOCKBENCH, [(".l_len = 0,", ".l_len = 1,")],
           together),
    # --no-flush accepted, and printed in the CSV, but every batch still flushed
    Mutant("lockbench-no-flush-ignored", LOCKBENCH, [("if (flush && fflush(fp) != 0)", "if (fflush(fp) != 0)")],
           no_flush),
    # a line short in every batch
    Mutant("flock-writer-batch-off-by-one", FLOCK_WRITER,
           [("for (uint64_t i = 0; i < batch; i++)", "for (uint64_t i = 1; i < batch; i++)")],
           counts),
    # the --csv row counts a batch too many
    Mutant("lockbench-csv-batches", LOCKBENCH,
           [("sync_names[o->sync], (unsigned long long)batches,",
             "sync_names[o->sync], (unsigned long long)batches + 1,")],
           counts),
    # a failed fdatasync or fsync spins forever instead of exiting 1
    Mutant("lockbench-hang-on-failed-sync", LOCKBENCH,
           [('die("%s: fdatasync: %s", path, strerror(errno));', "for (;;)\n\t\t\t\t;"),
            ('die("%s: fsync: %s", path, strerror(errno));', "for (;;)\n\t\t\t\t;")],
           errors),
]


# ------------------------------------------------------------------ locks the grader holds

class Held:
    """An exclusive lock of kind on the run directory's file name, held by
    the grader until release() (closing the descriptor frees every kind)."""

    def __init__(self, g, kind, name):
        self.path = os.path.join(g.run, name)
        # made by g.put before any student program ran: no link to follow
        self.fd = os.open(self.path, os.O_WRONLY | os.O_NOFOLLOW)
        if kind == "flock":
            fcntl.flock(self.fd, fcntl.LOCK_EX)
        else:  # the whole file: struct flock {l_type, l_whence, l_start, l_len, l_pid}
            cmd = fcntl.F_SETLKW if kind == "fcntl" else fcntl.F_OFD_SETLKW
            fcntl.fcntl(self.fd, cmd, struct.pack("hhqqi4x", fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0))
        st = os.fstat(self.fd)
        self.where = f"{os.major(st.st_dev):02x}:{os.minor(st.st_dev):02x}:{st.st_ino}"

    def size(self):
        return os.fstat(self.fd).st_size

    def waiting(self):
        """How many lock requests wait on the file (/proc/locks' "->" lines;
        0 where it cannot be read, and the callers' time limits decide)."""
        try:
            with open("/proc/locks") as f:
                return sum(1 for line in f if " -> " in line and f" {self.where} " in line)
        except OSError:
            return 0

    def release(self):
        if self.fd is not None:
            os.close(self.fd)
            self.fd = None


def ended(running):
    """Whether a started program has ended (without reaping it: its
    Running.wait() does that)."""
    try:
        return os.waitid(os.P_PID, running.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def wait_for(cond, seconds):
    end = time.monotonic() + seconds
    while not cond() and time.monotonic() < end:
        time.sleep(0.01)


def again(kind, n, k, prog, *opts):
    """How a student does what writers() does."""
    o = "".join(f" {x}" for x in opts)
    return (f"rm -f t; bin/lockbench -c H -n 1 -k 1 --lock {kind} --hold-ms 1000 t & sleep 0.3; "
            f"bin/{prog} -c A -n {n} -k {k}{o} t & bin/{prog} -c B -n {n} -k {k}{o} t; wait; "
            f"tail -n +2 t >u; bin/runs -q --expect A={n},B={n} --multiple {k} u")


def writers(g, kind, prog, n, k, *opts):
    """Writers A and B (the student's prog -c A|B -n N -k K OPTS f) on a new
    file f, released together: the grader holds a kind lock while both
    start and queue behind it.  The file ends up in g.ref/f, the grader's
    copy for the kit's runs; Fail if a writer failed."""
    g.fresh()
    g.put("f", b"")
    held = Held(g, kind, "f")
    try:
        a = g.start(prog, "-c", "A", "-n", n, "-k", k, *opts, "f", timeout=20)
        b = g.start(prog, "-c", "B", "-n", n, "-k", k, *opts, "f", timeout=20)
        wait_for(lambda: held.waiting() >= 2 or ended(a) or ended(b) or held.size() > 0, 5)
    finally:
        held.release()
    ra, rb = a.wait(), b.wait()
    for r in (ra, rb):
        g.ok(r, prog, again(kind, n, k, prog, *opts))
    g.put("f", g.read("f") or b"", where=g.ref)


def runs_in(g, name):
    """How many runs of lines the kit's runs finds in the grader's g.ref/name."""
    r = g.reference("runs", "--csv", name)
    expect(r.status == 0, "the kit's runs failed: ask your instructor")
    return len(r.text.splitlines()) - 1


# ------------------------------------------------------------------ one writer, its lock order logged

def lock_order(g, prog, n, k, *opts):
    """Runs the student's prog -c C -n N -k K OPTS f alone under the
    grader's tracer; checks the lines, and returns what the tracer saw
    (tracer.lock_order): pairs, relocked, partial, and outside (the bytes
    that reached the file with no lock held)."""
    c = g.char()
    g.fresh()
    g.put("f", b"")
    shown = " ".join(str(x) for x in opts)
    r = g.student(prog, "-c", c, "-n", n, "-k", k, *opts, "f", timeout=20, trace=tracer.LOCKS, on=["f"])
    g.ok(r, prog, f"bin/{prog} -c {c} -n {n} -k {k} {shown} t")
    data = g.read("f")
    expect(data == lines_of(c, n).encode(), f"{prog} -n {n} -k {k} {shown}: not {n} lines of '{c}'",
           f"bin/{prog} -c {c} -n {n} -k {k} {shown} t")
    seen = tracer.lock_order(r.trace)
    seen["outside"] = max(len(data) - seen["inside"], 0)
    return seen


def batches_of(n, k):
    return -(-n // k)


def inside_lock(g, prog, *opts):
    """One writer: a lock and an unlock per batch, every byte written
    between them (the batch flushed before the unlock)."""
    k = g.between(500, 1999) | 1
    n = k * g.between(3, 5) + g.between(1, k - 1)
    shown = "".join(f" {x}" for x in opts)
    seen = lock_order(g, prog, n, k, *opts)
    trace = f"strace -e trace=flock,fcntl,write bin/{prog} -n {n} -k {k}{shown} t"
    expect(not seen["partial"], f"{prog}{shown}: a lock that does not keep other writers from the end of the "
           "file, where O_APPEND writes land: a shared lock, or a record lock with a length (l_len 0: to the end)",
           trace)
    expect(not seen["relocked"], f"{prog}{shown}: a lock taken again while held: the unlock did not release it",
           trace)
    # The hint follows what the tracer saw: no lock at all, or writes that
    # came after a batch's unlock.
    expect(seen["pairs"] or not seen["outside"],
           f"{prog} -n {n} -k {k}{shown}: it took no lock at all ({seen['outside']} of {2 * n} bytes reached the "
           "file with no lock held): lock the file around each batch", trace)
    expect(seen["outside"] == 0,
           f"{prog} -n {n} -k {k}{shown}: {seen['outside']} of {2 * n} bytes reached the file with no lock "
           "held: flush the batch before the unlock", trace)
    expect(len(seen["pairs"]) == batches_of(n, k),
           f"{prog} -n {n} -k {k}{shown}: {len(seen['pairs'])} lock-unlock pairs, not one per batch "
           f"({batches_of(n, k)})", trace)


def excluded(g, holder, prog, *opts):
    """While the grader holds a holder lock on f, the student's prog -c B
    OPTS f writes nothing (it waits, as /proc/locks shows, or has failed);
    once the lock is released it writes its lines."""
    m = g.between(1, 50)
    shown = "".join(f" {x}" for x in opts)
    again = (f"rm -f t; bin/lockbench -c H -n 1 -k 1 --lock {holder} --hold-ms 2000 t & sleep 0.3; "
             f"bin/{prog} -c B -n {m}{shown} t; cat t")
    g.fresh()
    g.put("f", b"")
    held = Held(g, holder, "f")
    try:
        w = g.start(prog, "-c", "B", "-n", m, *opts, "f", timeout=20)
        wait_for(lambda: held.waiting() >= 1 or ended(w), 10)
        time.sleep(0.1)  # a writer that took no lock would have written by now
        wrote = held.size()
    finally:
        held.release()
    r = w.wait()
    expect(wrote == 0, f"{prog}{shown} wrote while another process held an {holder} lock on the file", again)
    expect(r.status == 0 and not r.killed and g.read("f") == lines_of("B", m).encode(),
           f"{r.why(prog) if r.status or r.killed else prog + shown}: not {m} lines of B once the {holder} lock "
           "was released", again)


def ignored(g, holder, prog, *opts):
    """While the grader holds a holder lock on f, the student's prog -c B
    OPTS f writes its lines and ends: the locks are advisory, and flock and
    record locks do not meet."""
    m = g.between(1, 50)
    shown = "".join(f" {x}" for x in opts)
    g.fresh()
    g.put("f", b"")
    held = Held(g, holder, "f")  # an flock: reading the file does not free it
    try:
        r = g.student(prog, "-c", "B", "-n", m, *opts, "f", timeout=5)
        data = g.read("f")
    finally:
        held.release()
    expect(r.status == 0 and not r.killed and data == lines_of("B", m).encode(),
           f"{r.why(prog) if r.status or r.killed else prog + shown}: not {m} lines of B while another process "
           f"held an {holder} lock",
           f"rm -f t; bin/lockbench -c H -n 1 -k 1 --lock {holder} --hold-ms 2000 t & sleep 0.3; "
           f"bin/{prog} -c B -n {m}{shown} t; cat t")


def fails(g, want, message, prog, *args):
    r = g.student(prog, *args, timeout=3)  # each fails at once
    shown = " ".join(map(str, args))
    if r.killed:
        raise Fail(r.why(prog), f"bin/{prog} {shown}; echo $?")
    err = r.err.decode("utf-8", "replace")
    expect(r.status == want and message in err,
           f"{prog} {shown}: expected exit status {want} and '{message}' on stderr; got {r.status} and: "
           f"{err.strip().splitlines()[0][:200] if err.strip() else '(nothing)'}",
           f"bin/{prog} {shown}; echo $?")


# ------------------------------------------------------------------ data/lab2.csv

def conf(r):
    return f"{r['experiment']} K={r['lines_per_lock']:g} flush={r['flush']} lock={r['lock']} sync={r['sync']}"


NETWORK_FS = ("nfs", "cifs", "smb", "9p", "v9fs", "afs", "ceph", "lustre", "glusterfs", "fuse")
