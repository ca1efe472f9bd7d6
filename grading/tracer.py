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
LINE_LIMIT = 1 << 16      # characters of one line (no string is printed unless a check asks: strings=)
UNAVAILABLE = ("strace is not installed (apt-get install strace): the grader cannot watch the program "
               "from outside")

THREADS = ("clone", "clone3")     # the calls that start threads: what threads_started reads
CHILDREN = ("execve", "clone", "clone3", "fork", "vfork", "wait4")     # what children_usage reads
WRITES = ("write", "writev", "pwrite64", "pwritev", "pwritev2")
LOCKS = ("flock", "fcntl", "close") + WRITES     # what lock_order reads (of one file: paths=)

# pid name(args) = ret, and its two halves
# (ret may be followed by an errno's name and text, or strace's "(DELAYED)")
_WHOLE = re.compile(r"(\d+) +(\w+)\((.*)\) += (-?\d+|0x[0-9a-f]+|\?)(?: .*)?")
_ENTER = re.compile(r"(\d+) +(\w+)\((.*) <unfinished \.\.\.>")
_RESUMED = re.compile(r"(\d+) +<\.\.\. (\w+) resumed>(.*)\) += (-?\d+|0x[0-9a-f]+|\?)(?: .*)?")
_GONE = re.compile(r"(\d+) +\+\+\+ (?:exited with -?\d+|killed by \w+)")


def command(log, calls, inject=(), paths=(), env=None, strings=0, fds=False, options=()):
    """strace's argv before the command it runs: follow every process and
    thread (-f), trace calls only, write the log to log (a path of the
    grader's), print no signal and no string (strings: the characters of
    each it prints, e.g. execve's path); inject: strace's -e inject= specs
    (a delay, say); paths: trace only the calls on these files (-P); env:
    variables for the command, not for strace itself (a preloaded shim
    must not load into the tracer); fds: each descriptor with its file's
    path (-y), for writers(); options: more of strace's, after those
    (Lab 6's recorder: strings whole, in hex)."""
    argv = [STRACE, "-f", "-q", "--seccomp-bpf", "-s", str(strings), "-e", "signal=none", *options,
            "-e", "trace=" + ",".join(calls), "-o", log]
    if fds:
        argv.append("-y")
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


def most_inside(path, names, among=None):
    """The most threads that were inside one of the calls names at once,
    as strace saw them: a call that began and had not returned when
    another thread's began; among: only these threads' calls count."""
    inside, most = set(), 0
    for e in events(path):
        if among is not None and e.pid not in among:
            continue
        if e.name in names and e.kind == "enter":
            inside.add(e.pid)
            most = max(most, len(inside))
        elif e.kind in ("call", "gone"):
            if e.kind == "call" and e.name in names and e.pid not in inside:
                most = max(most, len(inside) + 1)    # whole: it was inside, alone or beside the others
            inside.discard(e.pid)
    return most


def calls_by_thread(path, names):
    """{thread id: how many of the calls names it made that succeeded}."""
    made = {}
    for e in events(path):
        if e.kind == "call" and e.name in names and e.ret is not None and e.ret >= 0:
            made[e.pid] = made.get(e.pid, 0) + 1
    return made


def submissions(path):
    """What the io_uring_enter calls handed to the kernel: (the most one
    call did, how many calls handed it any, how many requests in all),
    from their return values: the submission queue entries each consumed."""
    took = [e.ret for e in events(path) if e.kind == "call" and e.name == "io_uring_enter"
            and e.ret is not None and e.ret > 0]
    return max(took, default=0), len(took), sum(took)


def _lock_kind(e):
    """What the call e does to a lock on its file: "lock" (exclusive, to
    the end of the file, where O_APPEND writes land), "partial" (shared,
    or a record lock with a length), "unlock", or None."""
    if e.name == "flock":
        if "LOCK_UN" in e.args:
            return "unlock"
        return "lock" if "LOCK_EX" in e.args else "partial" if "LOCK_SH" in e.args else None
    if e.name == "fcntl" and re.search(r"F_(?:OFD_)?SETLKW?,", e.args):
        # Only the whole file locks or unlocks it: a range that starts past
        # 0 misses the end where O_APPEND writes land, or releases nothing.
        whole = "l_whence=SEEK_SET, l_start=0, l_len=0}" in e.args
        if not whole:
            return "partial"
        return "unlock" if "F_UNLCK" in e.args else "lock" if "F_WRLCK" in e.args else "partial"
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


def children_left_to_the_kernel(path):
    """Whether a traced process set SIGCHLD to be ignored or SA_NOCLDWAIT
    (calls ["rt_sigaction"]): its children are then reaped by the kernel,
    and their CPU time, faults and I/O added to nobody's."""
    return any(e.kind == "call" and e.name == "rt_sigaction" and e.ret == 0 and e.args.startswith("SIGCHLD, {")
               and ("sa_handler=SIG_IGN" in e.args or "SA_NOCLDWAIT" in e.args) for e in events(path))


_USAGE = re.compile(r"ru_utime=\{tv_sec=(\d+), tv_usec=(\d+)\}, ru_stime=\{tv_sec=(\d+), tv_usec=(\d+)\}")


def children_usage(path, program):
    """What the process that exec'd program (its path) started and reaped,
    as the kernel answered it (calls CHILDREN, strings at least the path's
    length): [(child's pid, (user, system) CPU seconds that wait4 handed
    back for it, or None where no wait4 returned it with its rusage)], in
    the order it started them (fork, vfork, clone without CLONE_THREAD)."""
    parent, started, usage = None, [], {}
    for e in events(path):
        if e.kind != "call" or e.ret is None or e.ret <= 0 and e.name != "execve":
            continue
        if e.name == "execve" and e.ret == 0 and e.args.startswith(f'"{program}",'):
            parent, started, usage = e.pid, [], {}
        elif e.pid != parent:
            continue
        elif e.name in ("fork", "vfork", "clone", "clone3") and "CLONE_THREAD" not in e.args:
            started.append(e.ret)
        elif e.name == "wait4" and (m := _USAGE.search(e.args)):
            usage[e.ret] = (int(m[1]) + int(m[2]) / 1e6, int(m[3]) + int(m[4]) / 1e6)
    return [(pid, usage.get(pid)) for pid in started]


_FD_PATH = re.compile(r"\d+<(.*)>,")     # -y: a descriptor, and its file's path
_FDS = re.compile(r"\d+<([^<>]*)>")     # each, in order (strace escapes < and > in a path)
WRITERS = ("execve",) + WRITES      # what writers reads


def writers(path):
    """Which threads did a program's writing (calls WRITERS, fds): ({file's
    path: the ids of the threads whose write calls put bytes in it}, the
    ids of the processes' main threads, those that exec'd a program).
    Every id is as strace saw it: a thread id a call returned inside
    bubblewrap's PID namespace is another number."""
    files, mains = {}, set()
    for e in events(path):
        if e.kind != "call" or e.ret is None:
            continue
        if e.name == "execve" and e.ret == 0:
            mains.add(e.pid)
        elif e.name in WRITES and e.ret > 0 and (m := _FD_PATH.match(e.args)):
            files.setdefault(m[1], set()).add(e.pid)
    return files, mains


# The calls that put bytes into a file by no write call of the thread the
# bytes come from (fds): stores through a shared writable mapping (made by
# any thread, written by all), a copy from another file (copy_file_range,
# sendfile, splice: written there by whom?), a clone of another file's
# blocks (FICLONE).  A pwriters whose main thread wrote every file but
# its last byte so, each thread then appending one, passed as "each file
# written by a thread of its own".
INDIRECT = ("mmap", "sendfile", "copy_file_range", "splice", "ioctl")


def indirect_writes(path):
    """[(thread id, call, file's path)] of the calls (calls INDIRECT, fds)
    that put bytes into a file otherwise than a write call: a mapping
    shared and writable, a copy into it, a clone of blocks.  Not into a
    pipe, a socket or a device."""
    found = []
    for e in events(path):
        if e.kind != "call" or e.ret is None or e.ret < 0:
            continue
        fds = _FDS.findall(e.args)
        if e.name == "mmap":
            into = fds[:1] if "PROT_WRITE" in e.args and "MAP_SHARED" in e.args else []
        elif e.name == "ioctl":
            into = fds[:1] if re.search(r"FICLONE|FIDEDUPE", e.args) else []
        elif e.name == "sendfile":     # (out_fd, in_fd, ...)
            into = fds[:1]
        else:                          # copy_file_range, splice: (fd_in, off_in, fd_out, ...)
            into = fds[1:2]
        found += [(e.pid, e.name, p) for p in into if not p.startswith(("pipe:", "socket:", "/dev/"))]
    return found
