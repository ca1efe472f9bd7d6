"""tracer: what a student's program did, seen from outside it.

The evidence a check awards points on (the threads a program started, the
requests one io_uring call handed to the kernel, the threads inside pread
at once) comes from strace, the field's tracer (ptrace), running as the
grader: outside the students' uid and sandbox, started before them and
writing its log into the grader's own directory. No process it traces can
write that log, signal strace (another uid, or, inside bubblewrap, outside
its PID namespace) or hide a call from it: ptrace stops the process in the
kernel at each call, however it was made (libc, a raw syscall, a thread
started with clone instead of pthread_create). What a student's program
prints is data the log is compared with, never evidence.

A line of the log is "PID name(args) = ret"; a call another process's
line interrupted is split in two, "PID name(args <unfinished ...>" and
"PID <... name resumed>rest) = ret"; "PID +++ exited with N +++" and
"PID +++ killed by SIG +++" end a thread. strace escapes what a traced
process hands it (a string written, a file name): no byte of it can start
a line of the log.

Only the calls a check names are traced (--seccomp-bpf: the others run at
full speed, ptrace stops none of them).
"""

import re
import shutil

STRACE = shutil.which("strace", path="/usr/bin:/bin:/usr/sbin:/sbin")
LOG_LIMIT = 64 << 20      # bytes of a log the grader reads: past that, what came later is not looked at
LINE_LIMIT = 1 << 16      # characters of one line (strings are not printed: -s 0)
UNAVAILABLE = ("strace is not installed (apt-get install strace): the grader cannot watch the program "
               "from outside")

THREADS = ("clone", "clone3")     # the calls that start threads: what threads_started reads
WRITES = ("write", "writev", "pwrite64", "pwritev", "pwritev2")
LOCKS = ("flock", "fcntl", "close") + WRITES     # what lock_order reads (of one file: paths=)

# pid name(args) = ret, and its two halves
# (ret may be followed by an errno's name and text, or strace's "(DELAYED)")
_WHOLE = re.compile(r"(\d+) +(\w+)\((.*)\) += (-?\d+|0x[0-9a-f]+|\?)(?: .*)?")
_ENTER = re.compile(r"(\d+) +(\w+)\((.*) <unfinished \.\.\.>")
_RESUMED = re.compile(r"(\d+) +<\.\.\. (\w+) resumed>(.*)\) += (-?\d+|0x[0-9a-f]+|\?)(?: .*)?")
_GONE = re.compile(r"(\d+) +\+\+\+ (?:exited with -?\d+|killed by \w+)")


def command(log, calls, inject=(), paths=(), env=None, options=()):
    """strace's argv before the command it runs: follow every process and
    thread (-f), trace calls only, write the log to log (a path of the
    grader's), print no string (-s 0) and no signal; inject: strace's -e
    inject= specs (a delay, say); paths: trace only the calls on these
    files (-P); env: variables for the command, not for strace itself (a
    preloaded shim must not load into the tracer); options: more of
    strace's, after those (Lab 6's recorder: strings whole, in hex)."""
    argv = [STRACE, "-f", "-q", "--seccomp-bpf", "-s", "0", "-e", "signal=none", *options,
            "-e", "trace=" + ",".join(calls), "-o", log]
    for spec in inject:
        argv += ["-e", f"inject={spec}"]
    for path in paths:
        argv += ["-P", path]
    for name, value in (env or {}).items():
        argv += ["-E", f"{name}={value}"]
    return argv + ["--"]


class Event:
    """One thing the log says: kind "enter" (a call began and is not done
    yet), "call" (a call, whole: args and ret) or "gone" (a thread ended)."""

    __slots__ = ("kind", "pid", "name", "args", "ret")

    def __init__(self, kind, pid, name=None, args="", ret=None):
        self.kind, self.pid, self.name, self.args, self.ret = kind, pid, name, args, ret

    def __repr__(self):
        return f"Event({self.kind}, {self.pid}, {self.name}, {self.args[:40]!r}, {self.ret})"


def events(path):
    """The log's events in the order strace saw them: a call interrupted
    by another process's line gives an "enter" where it began and a "call"
    (args whole) where it ended."""
    begun = {}      # pid: (name, args so far) of its unfinished call
    with open(path, encoding="utf-8", errors="replace") as f:
        left = LOG_LIMIT
        while left > 0:
            line = f.readline(LINE_LIMIT)
            if not line:
                break
            left -= len(line)
            line = line.rstrip("\n")
            if m := _WHOLE.fullmatch(line):
                yield Event("call", int(m[1]), m[2], m[3], _number(m[4]))
            elif m := _ENTER.fullmatch(line):
                begun[int(m[1])] = (m[2], m[3])
                yield Event("enter", int(m[1]), m[2], m[3])
            elif m := _RESUMED.fullmatch(line):
                name, args = begun.pop(int(m[1]), (m[2], ""))
                yield Event("call", int(m[1]), m[2], args + m[3], _number(m[4]))
            elif m := _GONE.match(line):
                begun.pop(int(m[1]), None)
                yield Event("gone", int(m[1]))


def _number(ret):
    if ret == "?":
        return None
    return int(ret, 16) if ret.startswith("0x") else int(ret)


def threads_started(path):
    """How many threads the traced processes started: clone and clone3
    calls with CLONE_THREAD that returned a thread id (pthread_create or
    a raw clone alike)."""
    return sum(1 for e in events(path)
               if e.kind == "call" and e.name in ("clone", "clone3") and "CLONE_THREAD" in e.args
               and e.ret is not None and e.ret > 0)


def most_inside(path, name):
    """The most threads that were inside a call name at once, as strace
    saw them: a call that began and had not returned when another thread's
    began."""
    inside, most = set(), 0
    for e in events(path):
        if e.name == name and e.kind == "enter":
            inside.add(e.pid)
            most = max(most, len(inside))
        elif e.kind in ("call", "gone"):
            if e.kind == "call" and e.name == name and e.pid not in inside:
                most = max(most, len(inside) + 1)    # whole: it was inside, alone or beside the others
            inside.discard(e.pid)
    return most


def largest_submit(path):
    """The most requests one io_uring_enter call handed to the kernel (its
    return value: how many of its submission queue entries it consumed)."""
    return max((e.ret for e in events(path) if e.kind == "call" and e.name == "io_uring_enter"
                and e.ret is not None and e.ret > 0), default=0)


def _lock_kind(e):
    """What the call e does to a lock on its file: "lock" (exclusive, to
    the end of the file, where O_APPEND writes land), "partial" (shared,
    or a record lock with a length), "unlock", or None."""
    if e.name == "flock":
        if "LOCK_UN" in e.args:
            return "unlock"
        return "lock" if "LOCK_EX" in e.args else "partial" if "LOCK_SH" in e.args else None
    if e.name == "fcntl" and re.search(r"F_(?:OFD_)?SETLKW?,", e.args):
        if "F_UNLCK" in e.args:
            return "unlock"
        return "lock" if "F_WRLCK" in e.args and "l_len=0}" in e.args else "partial"
    return None


def lock_order(path):
    """What the log of a writer traced alone on one file (paths=[file],
    calls LOCKS) says of its locks: a dict with pairs (the bytes its write
    calls put in the file inside each lock-unlock pair), inside (their
    sum), relocked (a lock taken again while held: the unlock did not
    release it) and partial (locks that do not keep other writers from the
    end of the file). Closing the descriptor that holds the lock releases
    it. Bytes the file holds beyond inside reached it with no lock held,
    by whatever call."""
    seen = dict(pairs=[], inside=0, relocked=0, partial=0)
    held = {}       # pid: (the locked descriptor, bytes written since the lock)
    for e in events(path):
        if e.kind != "call" or e.ret is None or e.ret < 0:
            continue
        fd = e.args.split(",", 1)[0].strip()
        kind = _lock_kind(e)
        if kind == "lock":
            if e.pid in held:
                seen["relocked"] += 1
            else:
                held[e.pid] = (fd, 0)
        elif kind == "partial":
            seen["partial"] += 1
        elif (kind == "unlock" or e.name == "close") and e.pid in held and held[e.pid][0] == fd:
            seen["pairs"].append(held.pop(e.pid)[1])
        elif e.name in WRITES and e.pid in held:
            held[e.pid] = (held[e.pid][0], held[e.pid][1] + e.ret)
    seen["inside"] = sum(seen["pairs"])
    return seen
