"""gradelib: what a lab's checks are written with (grade.sh's library).

A lab's rubric, grading/labN/checks.py, imports what it uses from here and
declares its checks, one short function each:

    from grading.gradelib import check, expect, lines_of, standard

    LAB = 1
    STANDARD = standard(build=1, columns=1, figures=2)  # points of each build, CSV, the figures
    QUESTIONS = {"Q1.1": 2, ...}          # written answers, graded by hand

    @check(3, "writer: line counts, append and overwrite modes", needs=["writer"])
    def writer(g):
        c, n = g.char(), g.between(1000, 40000)
        again = f"bin/writer -c {c} -n {n} plain.txt"
        g.ok(g.student("writer", "-c", c, "-n", n, "plain.txt"), "writer", again)
        expect(g.read("plain.txt") == lines_of(c, n).encode(), f"not {n} lines of '{c}'", again)

A check passes when it returns (a string it returns is shown beside its
PASS), fails when it raises Fail (expect(cond, message, reproduce) raises
it, g.ok when a run did not exit 0), and is skipped, its points out of the
maximum, when it raises Skip (the machine cannot run it).  `g` (a
Grading) runs the student's programs contained (g.student, g.start), the
kit's own programs on the grader's own copies of the inputs (g.reference),
writes a run's inputs (g.put), reads what students' programs wrote without
following their links (g.read), and a submission's files and CSVs
(g.file, g.rows); g.char, g.between and g.pick draw the inputs from the
grading's seed.  Every check gets a fresh run directory, and every process
it started is gone when it ends.  One record per check: the terminal
report, results.json and the class CSV are all rendered from the records
(grading/report.py).  MUTANTS = [Mutant(...)], known-wrong programs each
check must catch, are graded by grading/mutants.py.
"""

import collections
import contextlib
import csv
import functools
import io
import math
import os
import re
import select
import shutil
import signal
import stat
import subprocess
import tempfile
import time
import unicodedata

from common import columns  # the labs' declarations of their CSVs, and the one number parser
from grading import sandbox

KIT = sandbox.KIT
OUTPUT_LIMIT = 1 << 20      # what the grader reads of a program's output or file
FILE_LIMIT = 4 << 20        # the largest submission file the grader reads (make labs writes < 1 MiB)
# The grader's own memory stays bounded (under 200 MB) whatever a submission
# holds: a file over KEEP_LIMIT is read again when asked for rather than kept
# (figures and sources are read once anyway), a CSV of more than CELL_LIMIT
# values is refused (parsed, each costs about 100 bytes; make labs's largest,
# lab5.csv, has some 15,000 at SCALE=quick), and only the parsed CSVs of the
# lab being graded are kept.
KEEP_LIMIT = 256 << 10
CELL_LIMIT = 100_000
DECLARED = "declared"   # g.rows' numeric for every column its lab declares, by its kind (g.data)


@functools.lru_cache(maxsize=None)
def kit_declared():
    """Every lab's declared CSV columns: {data file name: (lab, [Column])}
    (labs/N-topic/columns.csv, read by common/columns.py)."""
    return columns.declared(KIT)


@functools.lru_cache(maxsize=None)
def kit_trials():
    """Every lab's declared trials rules: {data file name: columns.Trials}
    (labs/N-topic/trials.csv)."""
    return columns.declared_trials(KIT)


def declared_columns(name):
    """The names of data/NAME's columns, as its lab declares them, in order."""
    return [c.name for c in kit_declared()[name][1]]


class Fail(Exception):
    """A check failed: message says what, reproduce how to see it again."""

    def __init__(self, message, reproduce=None):
        super().__init__(message)
        self.message, self.reproduce = message, reproduce


class Skip(Exception):
    """The machine grading cannot run this check (io_uring refused by the
    container, say): not the submission's fault.  Reported SKIP, with the
    reason; its points are left out of the maximum."""


class Check:
    def __init__(self, lab, points, title, fn, needs, timeout):
        self.lab, self.points, self.title, self.fn = lab, points, title, fn
        self.calls = ()     # its lab's SYSTEM_CALLS (discover.py's load)
        self.needs, self.timeout = needs, timeout

    @property
    def name(self):
        return f"lab{self.lab}: {self.title}" if self.lab else f"all: {self.title}"


class Mutant:
    """A known-wrong variant of a kit program: in file, each (old, new) of
    edits replaces text that is there exactly once, and the check kills (the
    @check function itself, not its title) must then fail in every grading
    (grading/mutants.py)."""

    def __init__(self, name, file, edits, kills):
        self.name, self.file, self.edits, self.kills = name, file, edits, kills


class Standard:
    """The rows every lab has, each worth the points given: build (one per
    program of labs/N-topic/), columns (one per CSV its columns.csv declares)
    and figures (the kit's plot/labN-*.gp draw the student's data). A
    module declares them in one line, STANDARD = standard(...); the grader
    grades them (grading/standard.py), the builds before the module's
    checks and the rest after, with a row of 0 points that tells the hand
    grader which questions have no answer (what an answer is worth, only a
    reader judges)."""

    def __init__(self, build, columns, figures):
        self.build, self.columns, self.figures = build, columns, figures


def standard(*, build, columns, figures):
    return Standard(build, columns, figures)


CHECKS = []     # every lab's checks, in the order they are declared
_current_lab = [None]


def check(points, title, needs=(), timeout=120):
    """Declares a check of the lab whose module is being loaded."""
    def register(fn):
        CHECKS.append(Check(_current_lab[0], points, title, fn, tuple(needs), timeout))
        return fn
    return register


# ------------------------------------------------------------------ text from students

LINE_CAP = 300          # characters of one quoted line the report shows
MESSAGE_CAP = 40        # lines of one quoted message

# Candidates for escaping: every character but printable ASCII, tab and
# newline; of those, the ones whose Unicode category can move the cursor,
# break or reorder a line (U+0085, U+2028, U+2029, bidi controls, ...) or
# hide text are escaped, the rest (letters, accents, symbols) kept.
_CANDIDATE = re.compile(r"[^\x20-\x7e\n\t]")
_ESCAPED = {"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"}


def _escape(m):
    ch = m.group()
    if unicodedata.category(ch) not in _ESCAPED:
        return ch
    code = ord(ch)
    if 0xdc80 <= code <= 0xdcff:    # a byte that is not UTF-8 (a file name's, os.fsdecode)
        return f"\\x{code - 0xdc00:02x}"
    return f"\\x{code:02x}" if code < 0x100 else f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def clean(data, line_cap=LINE_CAP, lines=MESSAGE_CAP):
    """Text that is safe to print and to put in JSON, and short: invalid
    UTF-8, control and format characters (ESC, CR, U+2028, bidi controls,
    ...) shown as \\xNN or \\uNNNN; each line cut at line_cap characters,
    and only the last `lines` lines kept, each cut saying so."""
    if isinstance(data, bytes):
        data = data.decode("utf-8", "surrogateescape")
    data = str(data)
    kept = data.split("\n")
    if len(kept) > lines:
        kept = [f"({len(kept) - lines} earlier lines not shown)"] + kept[-lines:]
    out = []
    for line in kept:
        if len(line) > line_cap:
            line = f"{line[:line_cap]}... ({len(line) - line_cap} more characters)"
        out.append(_CANDIDATE.sub(_escape, line))
    return "\n".join(out)


def one_line(data, line_cap=LINE_CAP):
    """clean(data) as one line, its line breaks shown as \\n: for text
    that the report prints at the start of a line of its own (a refusal,
    a path, a note), where a name holding "\\nScore: 999/999" had printed
    a line that read as the report's own."""
    if isinstance(data, bytes):
        data = data.decode("utf-8", "surrogateescape")
    return clean(str(data).replace("\n", "\\n"), line_cap, 1)


def number(text, where=""):
    """A number by the kit's one rule (common/columns.py: decimal or
    exponent form, no sign, nan, inf, hex or 1e9919), or Fail saying why."""
    try:
        return columns.number(text)
    except columns.Bad as e:
        raise Fail(f"{where}{e}") from None


median = columns.median     # the kit's one median: the checks', the lab scripts' and make class's


# ------------------------------------------------------------------ running programs

class Result:
    """How a program ended and what it printed."""

    def __init__(self, status, out, err, wall_s, cpu_s, killed=None, io=None, signal=0, faults=None, trace=None):
        self.status, self.out, self.err = status, out, err
        # the signal that ended it (0: it exited), reported by the reaper:
        # status is 128 + it then, as a shell says, and an exit(139) too
        self.signal = signal
        self.wall_s, self.cpu_s, self.killed = wall_s, cpu_s, killed
        # /proc/PID/io of the ended process (rchar, wchar, ...: bytes its
        # read and write calls moved, with those of the children it waited
        # for); None where there is no such count for the program ({} where
        # the kernel keeps none).
        self.io = io
        # Page faults, minor + major, of the program and every process it
        # started (the reaper's wait4), or None where it could not tell.
        self.faults = faults
        # The tracer's log (a path of the grader's: tracer.py reads it) of
        # a program run with trace=, else None.
        self.trace = trace

    @property
    def text(self):
        return self.out.decode("utf-8", "replace")

    def why(self, prog):
        """Why it did not exit 0, in words."""
        if self.killed:
            return f"{prog} {self.killed}"
        first = clean(self.err.decode("utf-8", "replace").strip().split("\n")[0])[:200]
        if self.signal:
            return f"{prog} was killed by {signal_name(self.signal)}" + (f" (it said: {first})" if first else "")
        return f"{prog}: exit status {self.status}" + (f" ({first})" if first else "")


# What usually sends a signal to a student's program, here: the sandbox's
# limits (sandbox.py) or the program's own fault.
_SIGNAL_CAUSES = {
    signal.SIGSEGV: "a bad memory access: a null or freed pointer, past an array, or the stack's limit",
    signal.SIGKILL: "the machine's memory ran out (the kernel's out-of-memory killer), or a CPU-time limit",
    signal.SIGXCPU: "its CPU-time limit",
    signal.SIGXFSZ: f"a file larger than the limit of {sandbox.LIMIT_FSIZE >> 20} MiB",
    signal.SIGABRT: "abort(): a failed assert, or the C library found the heap corrupted",
    signal.SIGBUS: "an access to a mapped file past its end, or misaligned",
    signal.SIGFPE: "an integer division by zero",
    signal.SIGSYS: "a system call the sandbox refuses",
    signal.SIGPIPE: "a write to a pipe nobody reads",
}


def signal_name(number):
    """'SIGSEGV (a bad memory access: ...)': a signal in words."""
    try:
        sig = signal.Signals(number)
    except ValueError:
        return f"signal {number}"
    return f"{sig.name} ({_SIGNAL_CAUSES.get(sig) or signal.strsignal(sig)})"


class Running:
    """A student's program started in the background (g.start)."""

    def __init__(self, g, proc, out, err, report, started, timeout, trace=None):
        self.g, self.proc, self.out, self.err, self.report = g, proc, out, err, report
        self.started, self.deadline = started, started + timeout
        self.trace = trace

    def _trace_size(self):
        """Bytes of the tracer's log so far (a program's writes, printed
        whole for Lab 6's recorder, make it grow as fast as they go)."""
        try:
            return os.path.getsize(self.trace) if self.trace else 0
        except OSError:
            return 0

    def pause_after_cpu(self, cpu_s, pause_s):
        """Once the program (with every process it started, not what it was
        started under: LAUNCHERS) has used cpu_s of CPU time, stops it with
        SIGSTOP for pause_s of elapsed time, then lets it go on (SIGCONT):
        time that passes while it uses no CPU, as a wait for a disk would,
        but the same length on any machine.
        Returns False if it ended, or hit its time limit, first."""
        while time.monotonic() < self.deadline:
            if self._ended():
                return False
            tree = _descendants(self.proc.pid)
            if sum(_program_cpu(pid) for pid in tree) >= cpu_s:
                break
            time.sleep(0.005)
        else:
            return False
        stopped = set()
        for _ in range(3):   # again for a process started meanwhile
            for pid in _descendants(self.proc.pid) - stopped:
                _signal(pid, signal.SIGSTOP)
                stopped.add(pid)
        time.sleep(pause_s)
        for pid in stopped:
            _signal(pid, signal.SIGCONT)
        return not self._ended()

    def _ended(self):
        """Whether it has exited, without reaping it (wait() does that)."""
        try:
            return os.waitid(os.P_PID, self.proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
        except ChildProcessError:
            return True

    def wait(self):
        g, killed = self.g, None
        watched = time.monotonic()
        while True:
            try:
                pid, status, usage = os.wait4(self.proc.pid, os.WNOHANG)
            except ChildProcessError:
                pid, status, usage = self.proc.pid, 0, None
            if pid:
                break
            now = time.monotonic()
            if now > self.deadline:
                killed = f"did not finish in {self.deadline - self.started:.0f} s (killed)"
            elif now > watched + sandbox.WATCH_PERIOD:
                # the disk and memory the whole run holds: a walk of /proc, not to do every poll
                watched = now
                killed = g.box.over_limits(g.watched(), self.proc.pid, os.fstat(self.out.fileno()).st_size
                                           + os.fstat(self.err.fileno()).st_size + self._trace_size())
            if killed:
                g.box.stop(self.proc)
                pid, status, usage = self.proc.pid, -9, None
                break
            time.sleep(0.005)
        self.proc.returncode = 0    # reaped above; subprocess must not wait again
        g.box.waited(self.proc)
        wall = time.monotonic() - self.started
        code, cpu, io, faults, sig = _reaper_report(self.report)
        if killed:
            code = -9
        elif code is None:  # its launcher was killed: by the program itself
            code, cpu, io = (os.waitstatus_to_exitcode(status) if usage else 0), math.inf, {}
            sig = -code if code < 0 else 0
        return Result(code, _read_capped(self.out), _read_capped(self.err), wall, cpu, killed, io, sig, faults,
                      self.trace)


def _reaper_report(f):
    """(status, CPU seconds, I/O counters, page faults, signal) from
    reaper.c's line, or Nones."""
    line = f.read(200).split()
    f.close()
    if len(line) != 9:
        return None, None, None, None, None
    counters = dict(zip(("rchar", "wchar", "read_bytes", "write_bytes"), map(int, line[2:6])))
    return int(line[0]), float(line[1]), counters, int(line[6]) + int(line[7]), int(line[8])


def _descendants(pid):
    """pid and every process below it, from /proc (bubblewrap's PID
    namespace included: the grader sees their pids as well)."""
    parents = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                with open(f"/proc/{name}/stat", "rb") as f:
                    stat_line = f.read()
            except OSError:
                continue
            # the fields after the command's ")": state, ppid, ...
            parents.setdefault(int(stat_line.rsplit(b")", 1)[1].split()[1]), []).append(int(name))
    tree, todo = set(), [pid]
    while todo:
        p = todo.pop()
        if p not in tree:
            tree.add(p)
            todo += parents.get(p, [])
    return tree


# What the grader starts a student's program under: their CPU time is not
# the program's (bubblewrap's namespaces and mounts took more than 0.05 s
# of it on a loaded machine).
LAUNCHERS = (b"bwrap", b"reaper", b"setpriv", b"strace")


def _program_cpu(pid):
    """The user and system CPU time a live process has used, every thread's;
    0 for one of LAUNCHERS."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            comm, fields = f.read().split(b" (", 1)[1].rsplit(b")", 1)
    except (OSError, ValueError):
        return 0.0
    if comm in LAUNCHERS:
        return 0.0
    fields = fields.split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _signal(pid, sig):
    try:
        os.kill(pid, sig)
    except (ProcessLookupError, PermissionError):
        pass


def _io_when_ended(pid):
    """Once the child pid has ended, and before it is reaped: its
    /proc/PID/io as a dict ({} where there is none); until then None."""
    if os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
        return None
    try:
        with open(f"/proc/{pid}/io") as f:
            return {k: int(v) for k, v in (line.split(":") for line in f if ":" in line)}
    except (OSError, ValueError):
        return {}


def output_ends(stream, timeout, keep=1 << 16):
    """Reads stream (a pipe, or a file from where it stands) to its end in
    pieces: (its first keep bytes, its last keep bytes, how many bytes
    between were dropped), so that the
    grader holds at most 2 x keep bytes of it, however much a process (a
    compiler's error messages, expanded through macro after macro) prints.
    subprocess.TimeoutExpired when it has not ended after timeout seconds."""
    deadline = time.monotonic() + timeout
    head, tail, dropped = bytearray(), bytearray(), 0
    while True:
        left = deadline - time.monotonic()
        if left <= 0 or not select.select([stream], [], [], left)[0]:
            raise subprocess.TimeoutExpired("output", timeout)
        chunk = os.read(stream.fileno(), 1 << 16)
        if not chunk:
            return bytes(head), bytes(tail), dropped
        room = keep - len(head)
        head += chunk[:room]
        tail += chunk[room:] if room > 0 else chunk
        if len(tail) > keep:
            dropped += len(tail) - keep
            del tail[:len(tail) - keep]


def _read_capped(f):
    f.seek(0)
    data = f.read(OUTPUT_LIMIT)
    f.close()
    return data


class Grading:
    """One submission being graded: its directories, its sandbox, and what
    a check needs to run programs and read files."""

    def __init__(self, sub, work, box, rng):
        self.sub, self.work, self.box, self.rng = sub, work, box, rng
        self.build = os.path.join(work, "build")     # students' uid builds here
        self.bin = os.path.join(work, "bin")         # the grader's copies of what it built
        self.run = self.ref = None
        self.deadline = math.inf     # when the check being run must be done
        self._n = self._traces = 0
        self.built = set()
        self.probes = {}    # what each lab's probe(g) learnt of the host, before any student's code ran
        self.calls = ()     # the system calls beyond the filter's list the check's lab asks for
        self._files, self._rows = {}, {}     # what file() and rows() read, once per grading
        self._rows_lab = None                # the lab whose CSVs _rows holds

    # -- inputs drawn anew for every grading, so that no answer can be
    #    written into a program in advance

    def between(self, lo, hi):
        return self.rng.randint(lo, hi)

    def char(self):
        return chr(ord("C") + self.rng.randrange(24))

    def pick(self, *choices):
        return self.rng.choice(choices)

    # -- directories

    def fresh(self):
        """A new run directory for students' programs (theirs to write) and a
        new reference directory (the grader's alone)."""
        self.box.end_processes()
        if self.run:
            self.box.close(self.run)
        self._n += 1
        self.run = os.path.join(self.work, f"run-{self._n}")
        self.ref = os.path.join(self.work, f"ref-{self._n}")
        os.mkdir(self.run, 0o700)
        os.mkdir(self.ref, 0o700)
        self.box.own(self.run)

    def put(self, name, data, where=None):
        """Writes a file the grader made into the run directory (before any
        student program runs there), or into where (e.g. g.ref)."""
        path = os.path.join(where or self.run, name)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        with os.fdopen(fd, "wb") as f:
            f.write(data.encode() if isinstance(data, str) else data)
        if where is None:
            self.box.own(path)
        return path

    def read(self, name, limit=OUTPUT_LIMIT * 64):
        """What a student's program left in the run directory: a regular
        file of the students' uid, opened without following links and
        without blocking on a FIFO; None when there is no such file."""
        dfd = os.open(self.run, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
        try:
            fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK, dir_fd=dfd)
        except FileNotFoundError:
            return None
        except OSError as e:
            raise Fail(f"{name}: not a file your program wrote ({e.strerror})") from None
        finally:
            os.close(dfd)
        with os.fdopen(fd, "rb") as f:
            st = os.fstat(f.fileno())
            if not stat.S_ISREG(st.st_mode) or (self.box.root and st.st_uid != self.box.uid):
                raise Fail(f"{name}: not a file your program wrote")
            data = f.read(limit + 1)
        if len(data) > limit:
            raise Fail(f"{name}: larger than {limit} bytes")
        return data

    # -- programs

    def watched(self):
        """The directories whose bytes and files count against a run's disk
        limit: its run directory, the build, and the grader's copies of
        what was built (a program of 480 MB of static data, copied once
        per program, took 12 GB of the grader's disk)."""
        return [d for d in (self.run, self.build, self.bin) if d]

    def watch(self, proc, timeout, out):
        """Waits for proc, started by box.popen with its output in the file
        out (a build: make and the compiler), under the watchdog of a run
        (Running.wait), and looks at the disk once more when it has ended
        (a linker writes hundreds of MB between two looks).  Why it was
        killed, or None."""
        end, watched = time.monotonic() + timeout, time.monotonic()
        try:
            while proc.poll() is None:
                now = time.monotonic()
                if now > end:
                    self.box.stop(proc)
                    return f"took more than {timeout:.0f} s (killed)"
                if now > watched + sandbox.WATCH_PERIOD:
                    watched = now
                    killed = self.box.over_limits(self.watched(), proc.pid, os.fstat(out.fileno()).st_size)
                    if killed:
                        self.box.stop(proc)
                        return killed
                time.sleep(0.01)
            return self.box.over_limits(self.watched(), proc.pid, os.fstat(out.fileno()).st_size)
        finally:
            self.box.waited(proc)

    @contextlib.contextmanager
    def building(self):
        """The build directory open to the students' uid while a build runs
        in it, and closed again once every process of the uid has ended
        (prepare_build closed it): no student's program of another check
        reaches it, to change what a later build compiles."""
        self.box.own(self.build)
        try:
            yield
        finally:
            self.box.end_processes()
            self.box.close(self.build)

    def need(self, *progs):
        for prog in progs:
            if prog not in self.built:
                raise Fail(f"bin/{prog} did not build: see the build check")

    def _capture(self):
        return tempfile.TemporaryFile(dir=self.work)

    def _within_check(self, timeout):
        """timeout, cut to what is left of the check's own time limit."""
        left = self.deadline - time.monotonic()
        if left < 1:
            raise Fail("the check ran out of time (its programs were too slow)")
        return min(timeout, left)

    def start(self, prog, *args, timeout=10, stdin=None, io_uring=False, path=None, preload=None, env=None,
              ro_binds=(), pass_fds=(), address_space=sandbox.LIMIT_AS, trace=None, inject=(), on=(), strings=0,
              fds=False, trace_options=()):
        """Starts the student's prog (or the program at path, e.g. the kit's
        launch timing it) in the run directory, contained; .wait() ends it.
        preload: a shim of the grader's (g.shim) to LD_PRELOAD into it;
        env: variables to add to its environment; ro_binds: directories it
        may read (inside bubblewrap); pass_fds: descriptors of the grader's
        it inherits; address_space: as for sandbox's popen.
        trace: the system calls the grader's tracer records (tracer.py),
        the evidence of what the program did; inject: strace's inject
        specs for them; on: trace only the calls on these files of the run
        directory; strings: the characters the log keeps of each string;
        fds: each descriptor with its file's path; trace_options: strace's
        options beyond tracer.command's (what a converter needs printed).
        The log is the Result's .trace, and its size counts in the run's
        disk limit. Where this machine
        cannot trace (need_tracer), a check calls g.need_tracer() first."""
        timeout = self._within_check(timeout)
        log = None
        if trace:
            self.need_tracer()
            self._traces += 1
            log = os.path.join(self.work, f"trace-{self._traces}.log")   # the grader's directory: no student's
            trace = dict(log=log, calls=trace, inject=inject, paths=[os.path.join(self.run, p) for p in on],
                         strings=strings, fds=fds, options=trace_options)
        # Under the grader's reaper (grading/reaper.c), which reports the
        # CPU time and I/O of the program and of all it started.
        report, to_grader = os.pipe()
        reaper = self.helper("reaper")
        argv = [reaper, str(to_grader), path or os.path.join(self.bin, prog)] + [str(a) for a in args]
        out, err, src = self._capture(), self._capture(), self._stdin(stdin)
        try:
            proc = self.box.popen(argv, cwd=self.run, binds=[self.run], reaper=True,
                                  ro_binds=[self.bin, os.path.dirname(reaper), *ro_binds]
                                  + ([preload] if preload else []),
                                  allow_io_uring=io_uring, cpu=2 * timeout + 1, pass_fds=(to_grader, *pass_fds),
                                  address_space=address_space, trace=trace, calls=self.calls,
                                  env=dict(env or {}, **({"LD_PRELOAD": preload} if preload else {})),
                                  stdin=src, stdout=out, stderr=err)
        finally:
            os.close(to_grader)
            if stdin is not None:
                src.close()
        return Running(self, proc, out, err, os.fdopen(report, "r"), time.monotonic(), timeout, log)

    def need_tracer(self):
        """Skip unless the grader's tracer works on this machine: proved by
        the sandbox before any student's program ran (Sandbox.trace_refused)."""
        if self.box.trace_refused:
            raise Skip(f"{self.box.trace_refused}: not run, its points left out of the maximum")

    def _stdin(self, data):
        """What a program reads on its standard input: data, or nothing."""
        if data is None:
            return subprocess.DEVNULL
        f = self._capture()
        f.write(data.encode() if isinstance(data, str) else data)
        f.seek(0)
        return f

    def shim(self, name, source=None):
        """grading/name.c (or source, a path in the kit) built with the
        kit's compiler into a shared library that the students' uid may
        read: its path, for preload= (or LD_PRELOAD in env, with its
        directory in ro_binds)."""
        return self._build(name, ".so", ["-shared", "-fPIC"], ["-ldl"], source)

    def helper(self, name):
        """grading/name.c built as a static program (no shim is preloaded
        into it) that the students' uid may run: its path."""
        return self._build(name, "", ["-static"], [])

    def _build(self, name, suffix, flags, libs, source=None):
        """The grading's own copy of a shim or helper, readable through its
        group only: copied from the kit's build/grading/, where each is
        built once for every grading, under a name made of its source's
        hash (a changed source is built anew, never taken for the old)."""
        path = os.path.join(self.work, "shims", name + suffix)
        if not os.path.exists(path):
            if not os.path.isdir(os.path.dirname(path)):
                os.mkdir(os.path.dirname(path))
                self.box.share(os.path.dirname(path), 0o750)
            try:
                shutil.copyfile(sandbox.built(name, suffix, flags, libs, source), path)
            except sandbox.RefuseError as e:    # (this check fails, the grading goes on)
                raise Fail(str(e)) from None
            self.box.share(path, 0o750)
        return path

    def student(self, prog, *args, **kw):
        """Runs the student's prog to its end, contained: a Result."""
        return self.start(prog, *args, **kw).wait()

    def reference(self, prog, *args, timeout=60, cwd=None, stdin=None, preload=None, env=None):
        """Runs the kit's prog as the grader, in the reference directory (or
        cwd, one of the grader's own), on the grader's own inputs; preload
        and env as for start."""
        timeout = self._within_check(timeout)
        out, err, src = self._capture(), self._capture(), self._stdin(stdin)
        env = dict(os.environ, **(env or {}), **({"LD_PRELOAD": preload} if preload else {}))
        start = time.monotonic()
        proc = subprocess.Popen([os.path.join(KIT, "bin", prog)] + [str(a) for a in args], cwd=cwd or self.ref,
                                env=env, stdin=src, stdout=out, stderr=err)
        if stdin is not None:
            src.close()
        while (io := _io_when_ended(proc.pid)) is None:
            if time.monotonic() > start + timeout:
                proc.kill()
                proc.wait()
                raise Fail(f"the kit's {prog} did not finish in {timeout:.0f} s: ask your instructor")
            time.sleep(0.005)
        _, status, usage = os.wait4(proc.pid, 0)
        proc.returncode = 0     # reaped above
        return Result(os.waitstatus_to_exitcode(status), _read_capped(out), _read_capped(err),
                      time.monotonic() - start, usage.ru_utime + usage.ru_stime, io=io,
                      signal=os.WTERMSIG(status) if os.WIFSIGNALED(status) else 0)

    def ok(self, result, prog, reproduce):
        """Fails unless result is exit status 0."""
        if result.status != 0 or result.killed:
            raise Fail(result.why(prog), reproduce)

    # -- the submission's files

    def file(self, rel):
        """Bytes of a file of the submission (already copied, read-only to
        students' code), or None; read once per grading if it is no larger
        than KEEP_LIMIT.  Fail when it is larger than FILE_LIMIT: the
        grader's own parsing stays bounded."""
        data = self._files.get(rel, False)
        if data is False:
            path = os.path.join(self.sub, rel)
            data = None
            if os.path.isfile(path) and not os.path.islink(path):
                with open(path, "rb") as f:
                    data = f.read(FILE_LIMIT + 1)
                if len(data) > FILE_LIMIT:
                    data = Fail(f"{rel} is larger than {FILE_LIMIT >> 20} MiB, more than the grader reads "
                                "(make labs writes far less): hand in the file make labs wrote")
            if not isinstance(data, bytes) or len(data) <= KEEP_LIMIT:
                self._files[rel] = data
        if isinstance(data, Fail):
            raise Fail(data.message)
        return data

    def rows(self, rel, numeric=(), lab=None):
        """The rows of the submission's CSV rel as dicts, with the numeric
        columns parsed strictly (DECLARED: every column its lab declares, by
        its kind: g.data); Fail when it is missing or malformed.
        Parsed once per grading (the checks run lab by lab: a lab's CSVs
        are let go when another's are asked for): each call gets its own
        copies."""
        if lab != self._rows_lab:
            self._rows, self._rows_lab = {}, lab
        key = (rel, numeric if numeric == DECLARED else tuple(numeric), lab)
        if key not in self._rows:
            try:
                self._rows[key] = self._parse_rows(rel, numeric, lab)
            except Fail as f:
                # a new one: f's traceback would keep the parse's text alive
                self._rows[key] = Fail(f.message, f.reproduce)
        rows = self._rows[key]
        if isinstance(rows, Fail):
            raise Fail(rows.message, rows.reproduce)
        return [dict(r) for r in rows]

    def data(self, name, lab):
        """The rows of the submission's data/NAME as dicts, every column its
        lab declares (labs/N-topic/columns.csv) parsed by its kind, as make
        class parses it (common/columns.py): numbers, counts, flags, tokens;
        None for an empty field where the kind allows it. Other columns are
        kept as text. Fail when the file is missing or a value is not of
        its kind."""
        return self.rows(f"data/{name}", DECLARED, lab)

    def _parse_rows(self, rel, numeric, lab):
        data = self.file(rel)
        again = f"make lab{lab}" if lab else None
        if data is None:
            raise Fail(f"{rel} is missing", again)
        if numeric == DECLARED:
            return self._parse_declared(rel, data, again)
        reader = csv.DictReader(io.StringIO(data.decode("utf-8", "replace")))
        rows = []
        try:
            named_twice(rel, reader.fieldnames or [], again)
            missing = [c for c in numeric if c not in (reader.fieldnames or [])]
            if missing:
                raise Fail(f"{rel}: no column {', '.join(missing)}", again)
            for n, row in enumerate(reader, start=2):
                if None in row or None in row.values():
                    raise Fail(f"{rel} line {n}: {len(reader.fieldnames)} fields expected", again)
                if (n - 1) * len(row) > CELL_LIMIT:
                    raise Fail(f"{rel} has more than {CELL_LIMIT} values (rows x columns), more than the grader "
                               "parses (make labs writes far fewer): hand in the file make labs wrote", again)
                for c in numeric:
                    row[c] = number(row[c], f"{rel} line {n}, {c}: ")
                rows.append(row)
        except csv.Error as e:	# a field past the csv module's limit, a line break inside one, ...
            raise Fail(f"{rel}: not CSV ({e})", again) from None
        if not rows:
            raise Fail(f"{rel}: no rows", again)
        return rows

    def _parse_declared(self, rel, data, again):
        declared = kit_declared()[rel.removeprefix("data/")][1]
        # ASCII and strict CSV, as make class reads it (classresults/values.py)
        try:
            text = data.decode("ascii")
        except UnicodeDecodeError:
            raise Fail(f"{rel}: not ASCII text", again) from None
        reader = csv.reader(io.StringIO(text, newline=""), strict=True)
        header, body, cells = None, [], 0
        try:
            for fields in reader:   # counted as read: the grader's memory stays bounded
                cells += len(fields)
                if cells > CELL_LIMIT:
                    raise Fail(f"{rel} has more than {CELL_LIMIT} values (rows x columns), more than the grader "
                               "parses (make labs writes far fewer): hand in the file make labs wrote", again)
                if header is None:
                    header = fields
                elif len(fields) != len(header):
                    raise Fail(f"{rel} line {reader.line_num}: {len(header)} fields expected", again)
                else:
                    body.append(fields)
        except csv.Error as e:
            raise Fail(f"{rel}: not CSV ({e})", again) from None
        if not body:
            raise Fail(f"{rel}: no rows", again)
        named_twice(rel, header, again)
        missing = [c.name for c in declared if c.name not in header]
        if missing:
            raise Fail(f"{rel}: no column {', '.join(missing)}", again)
        rows = [dict(zip(header, fields)) for fields in body]
        for c in declared:
            i = header.index(c.name)
            try:
                parsed = columns.column([fields[i] for fields in body], c.kind)
            except columns.Bad as e:
                row, why = e.args
                raise Fail(f"{rel} line {row + 2}: {c.name} {why}", again) from None
            for r, x in zip(rows, parsed):
                r[c.name] = x
        return rows

    def trials(self, name, lab, rows):
        """Fails unless the rows of data/NAME keep its lab's trials rule
        (labs/N-topic/trials.csv): every measured value within its bounds,
        enough trials of each configuration, and not all of them equal."""
        rule = kit_trials()[name]
        why = columns.out_of_bounds(rows, rule) or columns.too_few(rows, rule) or columns.forged(rows, rule)
        expect(not why, f"data/{why}", f"make lab{lab}")

    def need_io_uring(self):
        """Skip unless this machine allows io_uring (see io_uring_works) and
        the sandbox lets students' programs use it (inside bubblewrap only:
        sandbox.NO_IO_URING)."""
        if not io_uring_works():
            raise Skip("this machine refuses io_uring (io_uring_setup fails, as under Docker's default "
                       "seccomp profile): not run, its points left out of the maximum")
        if self.box.io_uring_refused:
            raise Skip(f"{self.box.io_uring_refused}: not run, its points left out of the maximum")


_IO_URING = []


def io_uring_works():
    """Whether this machine lets a process set up an io_uring at all (a
    container's seccomp profile or io_uring_disabled may refuse it even to
    root): asked once, of the kernel, with io_uring_setup(2)."""
    if not _IO_URING:
        import ctypes
        libc = ctypes.CDLL(None, use_errno=True)
        params = ctypes.create_string_buffer(120)    # struct io_uring_params, zeroed
        fd = libc.syscall(425, 1, params)            # __NR_io_uring_setup on x86-64 and arm64
        if fd >= 0:
            os.close(fd)
        _IO_URING.append(fd >= 0)
    return _IO_URING[0]


def named_twice(rel, header, again):
    """Fail where the header names a column twice: every reader of the
    kit's (make class too) refuses it, none picks one of the two (the
    grader's csv.DictReader kept the last, its declared columns the
    first). Counted in one pass: a header of 100,000 fields, one
    list.count() each, had kept the grader busy for minutes."""
    twice = sorted(c for c, n in collections.Counter(header).items() if n > 1)
    if twice:
        raise Fail(f"{rel}: a column named twice: {clean(', '.join(twice[:5]), 200, 1)}"
                   + (f" and {len(twice) - 5} more" if len(twice) > 5 else ""), again)


def expect(cond, message, reproduce=None):
    if not cond:
        raise Fail(message, reproduce)


def usage_refused(g, prog, *args):
    """Fails unless the student's prog takes args as a usage error: exit 2,
    with the usage on stderr."""
    r = g.student(prog, *args, timeout=5)
    line = " ".join(map(str, args))
    expect(r.status == 2 and b"usage:" in r.err and not r.killed,
           f"{prog} {line} should be a usage error: exit 2 and the usage on stderr "
           f"(got {r.killed or f'exit {r.status}'})", f"bin/{prog} {line}; echo $?")


def lines_of(char, n):
    """n lines holding char, as the writers of Labs 1 and 2 write them."""
    return (char + "\n") * n
