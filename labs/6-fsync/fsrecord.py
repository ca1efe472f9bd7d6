#!/usr/bin/env python3
"""fsrecord - Lab 6's recorder: runs a command under strace and writes
down, in order, every call of it (and of every process it starts) that
changes a file under a root directory or makes one durable, with its
bytes, for bin/crashstates to replay.

  bin/fsrecord -o LOG [--root DIR] -- COMMAND [ARG...]

The calls are seen from outside the program, by strace (ptrace): however
it makes them (libc, stdio, a raw syscall, a shell's redirection, a
program it runs), and without its being able to write into the log. The
root is the current directory unless --root says otherwise; calls on
other files (the terminal, /dev/null, /proc, the loader's) are left out.

The log, one line per call, paths relative to the root (%XX for a byte
other than letters, digits and . _ / -), data in hex:
  fsrecord 1
  init dir PATH | init file PATH HEX     what the root held at the start
  open PATH fd=ID flags=wronly|creat|trunc created=1
  write PATH fd=ID off=0 len=6400 data=6b6579...
  copy_file_range PATH fd=ID off=0 len=6 from=SRC data=68656c...
                                 (sendfile, splice, ficlone, ficlonerange
                                 too): the bytes SRC held then (- for a file
                                 outside, pipe for a pipe's)
  punch_hole PATH fd=ID off=0 len=4096 data=0000... | zero_range ...
  ftruncate PATH fd=ID size=0 | truncate PATH size=0 | fallocate PATH fd=ID size=N
  fsync PATH fd=ID | fdatasync PATH fd=ID | sync_file_range PATH fd=ID
  syncfs | sync                  everything under the root made durable
  close PATH fd=ID
  rename FROM TO | link FROM TO | unlink PATH | mkdir PATH | rmdir PATH
  exit                           the command ended (not killed by a signal)
ID names an open file (what one open returned, with its dup'ed and
inherited copies in every process), not a descriptor number. A write on
a file opened O_SYNC or O_DSYNC (or pwritev2's RWF_SYNC, RWF_DSYNC) is
followed by the fsync or fdatasync it implies.

Followed: every process and thread (fork, clone, exec), each with its own
descriptor table and working directory unless CLONE_FILES or CLONE_FS
shares them; exec closes O_CLOEXEC descriptors; offsets moved by read,
write, a copy and lseek, shared by duplicated descriptors; O_APPEND; what
each file under the root holds, which a copy from it takes. Refused,
with one line naming the call (a log that lost them would show no broken
state where there are): calls that change files in ways the kit does not
model (a splice into a file from a pipe bytes went through that it does
not follow: vmsplice, tee, a pipe it did not see made; fallocate's collapse and insert ranges, a writable shared mmap of a file,
io_uring, O_TMPFILE, RENAME_EXCHANGE, symbolic links, a file moved in from
outside the root, a copy from a file outside the root changed while
recording or from a pipe or socket), a write of more
than 16 MiB in one call (the data strace prints) or a file grown past
it, and a log of more than
64 MiB (what crashstates reads). O_DIRECT is said,
and recorded as ordinary writes. Paths are taken as the program wrote
them: a symbolic link under the root is not followed. Not followed
either: the offset a preadv2 at the descriptor's offset moves.

Exit status: the command's (128 + N when signal N killed it), with the log
written; 1 when it cannot be recorded (no strace, a refused call: one
line says which, and no log is written); 2 for a bad command line.
"""

import fcntl
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

PROG = "fsrecord"
STRACE = shutil.which("strace", path="/usr/bin:/bin:/usr/sbin:/sbin")
DATA_LIMIT = 16 << 20       # bytes of one write strace prints (crashstates' largest file)
INIT_LIMIT = 16 << 20       # bytes of the root's files recorded at the start
LOG_LIMIT = 1 << 30         # bytes of strace's log read
OUT_LIMIT = 64 << 20        # bytes of the log written (crashstates reads no more)

# The calls strace traces: "?" for those an architecture may not have.
CALLS = ["?open", "openat", "?openat2", "?creat", "write", "writev", "pwrite64", "pwritev", "pwritev2",
         "read", "readv", "lseek", "close", "?close_range", "dup", "?dup2", "dup3", "fcntl",
         "truncate", "ftruncate", "?rename", "renameat", "?renameat2", "?unlink", "unlinkat",
         "?mkdir", "mkdirat", "?rmdir", "?link", "linkat", "?symlink", "symlinkat",
         "fsync", "fdatasync", "sync_file_range", "syncfs", "sync", "chdir", "fchdir",
         "clone", "?clone3", "?fork", "?vfork", "execve", "execveat",
         "copy_file_range", "sendfile", "splice", "?pipe", "pipe2", "vmsplice", "tee", "ioctl", "fallocate", "mmap", "?io_uring_setup"]
# What the converter needs strace to print: every string whole (up to
# DATA_LIMIT bytes) in hex, which no byte of a traced program's can
# break out of; read's buffer not (only its count matters); the pids
# clone returns in a sandbox's PID namespace, as strace's. The grader
# adds them to its tracer's options.
STRINGS = ["-s", str(DATA_LIMIT), "-xx", "-e", "raw=read,readv", "--pidns-translation"]

AT_FDCWD = "AT_FDCWD"


class Refused(Exception):
    """A call the kit cannot model, or a log it cannot read: one line."""


def command(log):
    """strace's argv, before the command it runs."""
    return [STRACE, "-f", "-q", "--seccomp-bpf", "-e", "signal=none", *STRINGS,
            "-e", "trace=" + ",".join(CALLS), "-o", log, "--"]


# ------------------------------------------------------------------ strace's lines

_WHOLE = re.compile(r"(\d+) +(\w+)\((.*)\) += (-?\d+|0x[0-9a-f]+|\?)( .*)?")
_ENTER = re.compile(r"(\d+) +(\w+)\((.*) <unfinished \.\.\.>")
_RESUMED = re.compile(r"(\d+) +<\.\.\. (\w+) resumed>(.*)\) += (-?\d+|0x[0-9a-f]+|\?)( .*)?")
# A child's pid in strace's PID namespace, after the one clone returned in
# the child's own (bubblewrap's sandbox: --pidns-translation)
_OUR_PID = re.compile(r" /\* (\d+) in strace's PID NS \*/")
_GONE = re.compile(r"(\d+) +\+\+\+ (exited with (-?\d+)|killed by (\w+))")


def events(path):
    """strace's log as (kind, pid, name, args, ret): kind "enter" (a call
    begun, not yet returned), "call" (whole, in the order calls returned)
    or "gone" (ret: the exit status, or minus the signal's number)."""
    begun = {}
    with open(path, encoding="ascii", errors="replace") as f:
        left = LOG_LIMIT
        for line in f:
            left -= len(line)
            if left < 0:
                raise Refused(f"strace's log is larger than {LOG_LIMIT >> 30} GiB")
            line = line.rstrip("\n")
            if m := _WHOLE.fullmatch(line):
                yield "call", int(m[1]), m[2], m[3], _number(m[4], m[5])
            elif m := _ENTER.fullmatch(line):
                begun[int(m[1])] = m[3]
                yield "enter", int(m[1]), m[2], m[3], None
            elif m := _RESUMED.fullmatch(line):
                yield "call", int(m[1]), m[2], begun.pop(int(m[1]), "") + m[3], _number(m[4], m[5])
            elif m := _GONE.match(line):
                begun.pop(int(m[1]), None)
                status = int(m[3]) if m[3] is not None else -getattr(signal, m[4], signal.SIGKILL)
                yield "gone", int(m[1]), None, "", status


def _number(ret, rest):
    if ret == "?":
        return None
    if rest and (m := _OUR_PID.match(rest)):
        return int(m[1])
    return int(ret, 16) if ret.startswith("0x") else int(ret)


def split_args(text):
    """strace's arguments, split at the commas outside strings, [] and {}."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(text):
        c = text[i]
        if c == '"':    # -xx: only \xNN inside, no quote
            i = text.index('"', i + 1)
        elif c in "[{":
            depth += 1
        elif c in "]}":
            depth -= 1
        elif c == "," and depth == 0:
            out.append(text[start:i].strip())
            start = i + 1
        i += 1
    if text[start:].strip():
        out.append(text[start:].strip())
    return out


def string(arg, call):
    """The bytes of a string argument ("\\xNN..." with -xx); Refused when
    strace cut it short.  Read with slices and bytes.fromhex: a regular
    expression over one write of 16 MiB took 20 s and 2.4 GB (the grader
    reads a student's log in its own process)."""
    cut = arg.endswith('"...')
    body = arg[1:-4] if cut else arg[1:-1]
    data = None
    if len(arg) >= 2 and arg[0] == '"' and (cut or arg[-1] == '"') and len(body) % 4 == 0 \
            and not body[0::4].strip("\\") and not body[1::4].strip("x"):
        try:
            data = bytes.fromhex(body.replace("\\x", ""))
        except ValueError:
            pass
    if data is None or len(data) != len(body) // 4:     # (fromhex skips spaces)
        raise Refused(f"{call}: cannot read strace's string {arg[:40]}")
    if cut:     # strace printed len(data) bytes of it: its -s
        n = len(data)
        size = f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB" if n >= 1 << 10 else f"{n} bytes"
        raise Refused(f"{call} of more than {size} in one call: more than the recorder reads of it")
    return data


def iov_bytes(arg, call):
    """The bytes of an iovec array, in order."""
    return b"".join(string(s, call) for s in re.findall(r'iov_base=("[^"]*"(?:\.\.\.)?)', arg))


def flags_of(arg):
    return set(arg.split("|"))


# ------------------------------------------------------------------ the model of the processes

class File:
    """An open file description: what open returned, shared by its dup'ed
    and inherited descriptors."""

    def __init__(self, path, rel, ident, flags):
        self.path, self.rel, self.id, self.offset = path, rel, ident, 0
        self.ino = None     # the file under the root it is (set by open), whatever its name later
        self.pipe = None    # a pipe's end: its Pipe
        self.append = "O_APPEND" in flags
        self.sync = "fsync" if "O_SYNC" in flags else "fdatasync" if "O_DSYNC" in flags else None


class Pipe:
    """The bytes in a pipe the recorder saw made (pipe, pipe2), which a
    splice may move into a file: known, unless something it does not
    follow put some there (vmsplice, tee, a copy of unknown bytes)."""

    def __init__(self):
        self.data, self.known = bytearray(), True

    def put(self, data):
        if data is None:
            self.known = False
        elif self.known:
            self.data += data

    def take(self, n):
        data, self.data = bytes(self.data[:n]), self.data[n:]
        return data if self.known else None


class Proc:
    def __init__(self, fds, fs):
        self.fds = fds      # {fd: [File, cloexec]}, shared under CLONE_FILES
        self.fs = fs        # [cwd], shared under CLONE_FS


class Recorder:
    def __init__(self, root, cwd, init, inherited=None, skip=(), since=None):
        """root: the directory recorded (absolute); cwd: the command's
        working directory; init: {rel: bytes, or None for a directory};
        inherited: the descriptors the command starts with, {fd: (absolute
        path, offset, flags)}; skip: paths (relative) never recorded (the
        log itself); since: when the recording began (ns, the clock of a
        file's ctime): a file outside the root not changed since may be
        copied from (None: none may)."""
        self.root, self.skip = os.path.normpath(root), set(skip)
        self.names = {}     # rel: inode number, of what is under the root now
        # what each file under the root holds now: a copy's bytes are the
        # source's at the time of the copy
        self.data, self.dirs, self.next_ino, self.next_id = {}, set(), 0, 2
        for rel, data in init.items():
            self.names[rel] = self.next_ino
            if data is None:
                self.dirs.add(self.next_ino)
            else:
                self.data[self.next_ino] = bytearray(data)
            self.next_ino += 1
        self.names["."] = -1
        self.dirs.add(-1)
        fds = {}
        for fd, (path, offset, flags) in (inherited or {}).items():
            fds[fd] = [self._file(path, flags), False]
            fds[fd][0].offset = offset
            fds[fd][0].ino = self.names.get(fds[fd][0].rel)
        self.first = Proc(fds, [os.path.normpath(cwd)])
        self.procs, self.pending, self.lines, self.notes = {}, {}, [], []
        self.top, self.ended, self.out_bytes = None, False, 0
        self.since, self.outside = since, {}     # outside: {path: bytes} of the files copied from

    # -- paths

    def _relative(self, path):
        """path (absolute, normalised) relative to the root, or None."""
        if path == self.root:
            return "."
        if path.startswith(self.root.rstrip("/") + "/"):
            rel = path[len(self.root.rstrip("/")) + 1:]
            return None if rel in self.skip else rel
        return None

    def _path(self, proc, dirfd, arg, call):
        """The absolute path a call's (dirfd, path) arguments name."""
        name = os.fsdecode(string(arg, call))
        if name.startswith("/"):
            base = "/"
        elif dirfd == AT_FDCWD:
            base = proc.fs[0]
        else:
            f = proc.fds.get(int(dirfd, 0))
            if f is None:
                raise Refused(f"{call}: a path relative to descriptor {dirfd}, which the recorder did not "
                              "see opened")
            base = f[0].path
        # normpath keeps a leading "//"; the kernel does not
        return "/" + os.path.normpath(os.path.join(base, name)).lstrip("/")

    def _file(self, path, flags):
        """A new open file; those under the root numbered in the log from 3."""
        rel = self._relative(path)
        if rel is not None:
            self.next_id += 1
        return File(path, rel, self.next_id if rel is not None else None, flags)

    # -- the log

    def emit(self, call, *paths, **fields):
        words = [call] + [escape(p) for p in paths] + [f"{k}={v}" for k, v in fields.items()]
        self.lines.append(" ".join(words))
        self.out_bytes += len(self.lines[-1]) + 1
        if self.out_bytes > OUT_LIMIT:
            raise Refused(f"more than {OUT_LIMIT >> 20} MiB of calls (their bytes in hex): more than "
                          "crashstates reads")

    def _fd(self, proc, arg):
        """The File behind descriptor arg (a number), or None."""
        try:
            f = proc.fds.get(int(arg, 0))
        except ValueError:
            return None
        return f[0] if f else None

    # -- the calls

    def event(self, kind, pid, name, args, ret):
        if kind == "enter":
            if name in ("clone", "clone3", "fork", "vfork"):
                self.pending[pid] = args
            return
        if kind == "gone":
            if pid == self.top:
                self.ended = ret >= 0
            self.procs.pop(pid, None)
            return
        proc = self.procs.get(pid) or self._new_proc(pid)
        if name in ("clone", "clone3", "fork", "vfork"):
            self.pending.pop(pid, None)
            if ret is not None and ret > 0 and ret not in self.procs:
                self.procs[ret] = self._child(proc, name, args)
            return
        if ret is None or ret < 0:
            return      # failed (or never returned: exit, exec's own): changed nothing
        a = split_args(args)
        getattr(self, "on_" + name, lambda *_: None)(proc, name, a, ret)

    def _new_proc(self, pid):
        """A pid seen for the first time: the command itself, or a child
        whose first call came before its parent's clone returned."""
        if self.top is None:
            self.top = pid
            proc = self.first
        else:
            parents = list(self.pending.items())
            if len(parents) != 1:
                raise Refused(f"process {pid}: cannot tell which process started it")
            parent, args = parents[0]
            proc = self._child(self.procs[parent], "clone", args)
        self.procs[pid] = proc
        return proc

    def _child(self, parent, name, args):
        shares = set(re.findall(r"CLONE_\w+", args)) if name in ("clone", "clone3") else set()
        fds = parent.fds if "CLONE_FILES" in shares else {k: list(v) for k, v in parent.fds.items()}
        fs = parent.fs if "CLONE_FS" in shares else list(parent.fs)
        return Proc(fds, fs)

    def on_execve(self, proc, name, a, ret):
        proc.fds = dict(proc.fds)       # unshared
        for fd in [fd for fd, v in proc.fds.items() if v[1]]:
            self._drop(proc, fd)        # O_CLOEXEC: closed

    on_execveat = on_execve

    def on_chdir(self, proc, name, a, ret):
        proc.fs[0] = self._path(proc, AT_FDCWD, a[0], name)

    def on_fchdir(self, proc, name, a, ret):
        f = self._fd(proc, a[0])
        if f is None:
            raise Refused(f"fchdir to descriptor {a[0]}, which the recorder did not see opened")
        proc.fs[0] = f.path

    # opening

    def on_open(self, proc, name, a, ret):
        self._open(proc, ret, self._path(proc, AT_FDCWD, a[0], name), flags_of(a[1]), name)

    def on_openat(self, proc, name, a, ret):
        self._open(proc, ret, self._path(proc, a[0], a[1], name), flags_of(a[2]), name)

    def on_openat2(self, proc, name, a, ret):
        how = re.search(r"flags=([\w|]+)", a[2])
        self._open(proc, ret, self._path(proc, a[0], a[1], name), flags_of(how[1] if how else ""), name)

    def on_creat(self, proc, name, a, ret):
        self._open(proc, ret, self._path(proc, AT_FDCWD, a[0], name), {"O_WRONLY", "O_CREAT", "O_TRUNC"}, name)

    def _open(self, proc, fd, path, flags, call):
        f = self._file(path, flags)
        proc.fds[fd] = [f, "O_CLOEXEC" in flags]
        if f.rel is None:
            return
        if "O_TMPFILE" in flags or "__O_TMPFILE" in flags:
            raise Refused(f"{call} O_TMPFILE in {f.rel}: the kit does not model files without a name")
        if "O_DIRECT" in flags:
            self.notes.append(f"{f.rel} opened O_DIRECT: its writes are recorded as ordinary ones")
        created = f.rel not in self.names
        if created:
            if "O_CREAT" not in flags:
                raise Refused(f"{call} {f.rel}: opened, but the recorder never saw it made (a symbolic link? "
                              "a call it does not follow?)")
            self.names[f.rel] = self._ino()
            self.data[self.names[f.rel]] = bytearray()
        ino = f.ino = self.names[f.rel]
        if "O_TRUNC" in flags and ino not in self.dirs:
            self.data[ino] = bytearray()
        acc = "wronly" if "O_WRONLY" in flags else "rdwr" if "O_RDWR" in flags else "rdonly"
        extra = [w for w in ("creat", "trunc", "append", "directory", "excl") if f"O_{w.upper()}" in flags]
        self.emit("open", f.rel, fd=f.id, flags="|".join([acc] + extra), created=int(created))

    def _ino(self):
        self.next_ino += 1
        return self.next_ino

    def on_dup(self, proc, name, a, ret):
        self._dup(proc, a[0], ret, False)

    def on_dup2(self, proc, name, a, ret):
        if int(a[0]) != ret:
            self._dup(proc, a[0], ret, False)

    def on_dup3(self, proc, name, a, ret):
        self._dup(proc, a[0], ret, "O_CLOEXEC" in a[2])

    def _dup(self, proc, old, new, cloexec):
        f = proc.fds.get(int(old, 0))
        self._drop(proc, new)           # what new named is closed first
        if f is not None:               # (else a pipe, a socket: nothing the recorder follows)
            proc.fds[new] = [f[0], cloexec]

    def on_fcntl(self, proc, name, a, ret):
        fd = int(a[0], 0)
        if a[1] in ("F_DUPFD", "F_DUPFD_CLOEXEC"):
            self._dup(proc, a[0], ret, a[1] == "F_DUPFD_CLOEXEC")
        elif a[1] == "F_SETFD" and fd in proc.fds:
            proc.fds[fd][1] = "FD_CLOEXEC" in a[2]
        elif a[1] == "F_SETFL" and fd in proc.fds:
            proc.fds[fd][0].append = "O_APPEND" in a[2]

    def on_close(self, proc, name, a, ret):
        self._drop(proc, int(a[0], 0))

    def _drop(self, proc, fd):
        """Descriptor fd closed: written down when it was the process's
        last descriptor of its file."""
        f = proc.fds.pop(fd, None)
        if f and f[0].rel is not None and all(g[0] is not f[0] for g in proc.fds.values()):
            self.emit("close", f[0].rel, fd=f[0].id)

    def on_close_range(self, proc, name, a, ret):
        first, last = int(a[0], 0), int(a[1], 0) if a[1][:1].isdigit() else 1 << 32
        for fd in sorted(fd for fd in proc.fds if first <= fd <= last):
            if "CLOSE_RANGE_CLOEXEC" in a[2]:
                proc.fds[fd][1] = True
            else:
                self._drop(proc, fd)

    # data and offsets

    def on_read(self, proc, name, a, ret):
        f = self._fd(proc, a[0])
        if f and f.pipe:
            f.pipe.take(ret)
        elif f:
            f.offset += ret

    on_readv = on_read

    def on_lseek(self, proc, name, a, ret):
        f = self._fd(proc, a[0])
        if f:
            f.offset = ret

    def on_write(self, proc, name, a, ret):
        self._write(proc, name, a[0], a[1], string, ret, None)

    def on_writev(self, proc, name, a, ret):
        self._write(proc, name, a[0], a[1], iov_bytes, ret, None)

    def on_pwrite64(self, proc, name, a, ret):
        self._write(proc, name, a[0], a[1], string, ret, int(a[3]))

    def on_pwritev(self, proc, name, a, ret):
        self._write(proc, name, a[0], a[1], iov_bytes, ret, int(a[3]))

    def on_pwritev2(self, proc, name, a, ret):
        flags = flags_of(a[4])
        off = int(a[3])
        self._write(proc, name, a[0], a[1], iov_bytes, ret, None if off == -1 else off,
                    append="RWF_APPEND" in flags,
                    sync="fsync" if "RWF_SYNC" in flags else "fdatasync" if "RWF_DSYNC" in flags else None)

    def _write(self, proc, call, fd, arg, decode, done, off, append=False, sync=None):
        """A write of done bytes (arg, strace's, read by decode) at off
        (None: at the descriptor's offset)."""
        f = self._fd(proc, fd)
        if f is None:
            return
        if f.rel is not None:
            self._put(f, call, decode(arg, call)[:done], off, append, sync)
        elif f.pipe:
            f.pipe.put(decode(arg, call)[:done])
        elif off is None:
            f.offset += done

    def _put(self, f, call, data, off, append=False, sync=None, **source):
        """data written into f (a file under the root) at off (None: at the
        descriptor's offset), as call: a write, or a copy (source: from=)."""
        held = self.data.setdefault(f.ino, bytearray())
        if (f.append or append) and (off is None or append):
            off = len(held)
        at = f.offset if off is None else off
        self._fits(f.rel, call, at + len(data))
        self.emit("write" if call.startswith(("write", "pwrite")) else call, f.rel, fd=f.id, off=at,
                  len=len(data), **source, data=data.hex())
        if len(held) < at:
            held.extend(bytes(at - len(held)))
        held[at:at + len(data)] = data
        if sync or f.sync:     # O_SYNC or RWF_SYNC: the stronger
            self.emit("fsync" if "fsync" in (sync, f.sync) else "fdatasync", f.rel, fd=f.id)
        if off is None:
            f.offset = at + len(data)

    def _fits(self, rel, call, size):
        """Refused past the largest file a state holds (crashstates')."""
        if size > DATA_LIMIT:
            raise Refused(f"{call} makes {rel} larger than {DATA_LIMIT >> 20} MiB: more than a crash state "
                          "holds")

    def _resize(self, ino, size):
        held = self.data.setdefault(ino, bytearray())
        del held[size:]
        held.extend(bytes(size - len(held)))

    def on_ftruncate(self, proc, name, a, ret):
        f = self._fd(proc, a[0])
        if f and f.rel is not None:
            self._fits(f.rel, name, int(a[1]))
            self._resize(f.ino, int(a[1]))
            self.emit("ftruncate", f.rel, fd=f.id, size=int(a[1]))

    def on_truncate(self, proc, name, a, ret):
        rel = self._relative(self._path(proc, AT_FDCWD, a[0], name))
        if rel is not None:
            self._fits(rel, name, int(a[1]))
            self._resize(self.names.get(rel), int(a[1]))
            self.emit("truncate", rel, size=int(a[1]))

    # durability

    def _sync_fd(self, proc, name, a, ret):
        f = self._fd(proc, a[0])
        if f and f.rel is not None:
            self.emit(name, f.rel, fd=f.id)

    on_fsync = on_fdatasync = on_sync_file_range = _sync_fd

    def on_syncfs(self, proc, name, a, ret):
        f = self._fd(proc, a[0])
        if f and f.rel is not None:
            self.emit("syncfs")

    def on_sync(self, proc, name, a, ret):
        self.emit("sync")

    # names

    def on_rename(self, proc, name, a, ret):
        self._rename(proc, name, AT_FDCWD, a[0], AT_FDCWD, a[1], "0")

    def on_renameat(self, proc, name, a, ret):
        self._rename(proc, name, a[0], a[1], a[2], a[3], "0")

    def on_renameat2(self, proc, name, a, ret):
        self._rename(proc, name, a[0], a[1], a[2], a[3], a[4])

    def _rename(self, proc, call, d1, p1, d2, p2, flags):
        frm = self._relative(self._path(proc, d1, p1, call))
        to = self._relative(self._path(proc, d2, p2, call))
        if frm is None and to is None:
            return
        if "RENAME_EXCHANGE" in flags or "RENAME_WHITEOUT" in flags:
            raise Refused(f"{call} {flags} of {frm or to}: the kit does not model it")
        if frm is None:
            raise Refused(f"{call} into {to} from outside the root: its bytes were never recorded")
        if to is None:
            self._unlink(frm, "unlink")
            return
        if frm == to:
            return
        for p in [p for p in self.names if p == frm or p.startswith(frm + "/")]:   # a directory: what is in it
            self.names[to + p[len(frm):]] = self.names.pop(p)
        self.emit("rename", frm, to)

    def _unlink(self, rel, call):
        self.names.pop(rel, None)
        self.emit(call, rel)

    def on_unlink(self, proc, name, a, ret):
        self._names_call(proc, name, AT_FDCWD, a[0], "unlink")

    def on_unlinkat(self, proc, name, a, ret):
        self._names_call(proc, name, a[0], a[1], "rmdir" if "AT_REMOVEDIR" in a[2] else "unlink")

    def on_rmdir(self, proc, name, a, ret):
        self._names_call(proc, name, AT_FDCWD, a[0], "rmdir")

    def on_mkdir(self, proc, name, a, ret):
        self._names_call(proc, name, AT_FDCWD, a[0], "mkdir")

    def on_mkdirat(self, proc, name, a, ret):
        self._names_call(proc, name, a[0], a[1], "mkdir")

    def _names_call(self, proc, call, dirfd, arg, kind):
        rel = self._relative(self._path(proc, dirfd, arg, call))
        if rel is None:
            return
        if kind == "mkdir":
            self.names[rel] = self._ino()
            self.dirs.add(self.names[rel])
            self.emit("mkdir", rel)
        else:
            self._unlink(rel, kind)

    def on_link(self, proc, name, a, ret):
        self._link(proc, name, AT_FDCWD, a[0], AT_FDCWD, a[1])

    def on_linkat(self, proc, name, a, ret):
        self._link(proc, name, a[0], a[1], a[2], a[3])

    def _link(self, proc, call, d1, p1, d2, p2):
        frm = self._relative(self._path(proc, d1, p1, call))
        to = self._relative(self._path(proc, d2, p2, call))
        if to is None:
            return
        if frm is None or frm not in self.names:
            raise Refused(f"{call} of {to} to a file outside the root or never seen: its bytes were never "
                          "recorded")
        self.names[to] = self.names[frm]
        self.emit("link", frm, to)

    def on_symlink(self, proc, name, a, ret):
        self._symlink(self._path(proc, AT_FDCWD, a[1], name), name)

    def on_symlinkat(self, proc, name, a, ret):
        self._symlink(self._path(proc, a[1], a[2], name), name)

    def _symlink(self, path, call):
        rel = self._relative(path)
        if rel is not None:
            raise Refused(f"{call} {rel}: the kit does not model symbolic links")

    # what the kit cannot model: refused when it touches the root

    def _refuse_on(self, proc, call, fd, why):
        """Refused when fd is a file under the root."""
        f = self._fd(proc, fd)
        if f and f.rel is not None:
            raise Refused(f"{call} into {f.rel}: {why}")

    # copies: the bytes the source holds at that point, which the recorder
    # knows (a file under the root: its start and every call since), or
    # reads (a file outside it, unchanged since the recording began)

    def on_copy_file_range(self, proc, name, a, ret):
        self._copy(proc, name, a[0], _pointer(a[1]), a[2], _pointer(a[3]), ret)

    def on_sendfile(self, proc, name, a, ret):
        self._copy(proc, name, a[1], _pointer(a[2]), a[0], None, ret)

    def on_splice(self, proc, name, a, ret):
        self._copy(proc, name, a[0], _pointer(a[1]), a[2], _pointer(a[3]), ret)

    def on_pipe(self, proc, name, a, ret):
        ends = re.findall(r"\d+", a[0])
        pipe, flags = Pipe(), flags_of(a[1]) if len(a) > 1 else set()
        for fd in ends[:2]:
            proc.fds[int(fd)] = [File("pipe", None, None, flags), "O_CLOEXEC" in flags]
            proc.fds[int(fd)][0].pipe = pipe

    on_pipe2 = on_pipe

    def on_vmsplice(self, proc, name, a, ret):
        f = self._fd(proc, a[0])
        if f and f.pipe:
            f.pipe.put(None)    # bytes from memory, which strace does not print whole

    def on_tee(self, proc, name, a, ret):
        f = self._fd(proc, a[1])
        if f and f.pipe:
            f.pipe.put(None)

    def on_ioctl(self, proc, name, a, ret):
        if "FICLONE" not in a[1]:
            return      # FIDEDUPERANGE shares blocks that hold the same bytes: nothing a reader sees changes
        if "FICLONERANGE" in a[1]:
            r = {k: int(v) for k, v in re.findall(r"(\w+)=(\d+)", a[2])}
            src, soff, length, doff = str(r.get("src_fd", -1)), r.get("src_offset", 0), r.get("src_length", 0), \
                r.get("dest_offset", 0)
        else:
            src, soff, length, doff = a[2], 0, 0, 0
        s = self._fd(proc, src)
        if s is not None and length == 0:   # 0: to the source's end
            length = max(0, len(self._source(s, name, a[0])) - soff)
        self._copy(proc, a[1].split()[-1].lower(), src, soff, a[0], doff, length, moves=False)

    def _copy(self, proc, call, src_fd, soff, dst_fd, doff, done, moves=True):
        """done bytes copied by the kernel from src_fd at soff (None: its
        offset, moved) to dst_fd at doff (None: its offset, moved)."""
        s, d = self._fd(proc, src_fd), self._fd(proc, dst_fd)
        if done == 0:
            return      # the source's end: nothing copied
        at = soff if soff is not None or s is None else s.offset
        if s is not None and s.pipe:
            piped = s.pipe.take(done)
        elif s is not None and soff is None and moves:
            s.offset += done
        if d is not None and d.pipe:    # into a pipe: the bytes, when the recorder knows them
            if s is None or s.pipe:
                d.pipe.put(piped if s else None)
            else:
                try:
                    d.pipe.put(bytes(self._source(s, call, "a pipe")[at:at + done]))
                except Refused:     # refused only if they reach a file under the root
                    d.pipe.put(None)
            return
        if d is None or d.rel is None:
            if d is not None and doff is None and moves:
                d.offset += done
            return
        if s is None:
            raise Refused(f"{call} into {d.rel} from descriptor {src_fd}, which the recorder did not see opened "
                          "(a pipe? a socket?): the bytes copied were never recorded")
        if s.pipe:
            if piped is None:
                raise Refused(f"{call} into {d.rel} from a pipe that bytes the recorder does not see went "
                              "through (vmsplice, tee, a copy from outside): the kit cannot model it")
            data = piped
        else:
            data = bytes(self._source(s, call, d.rel)[at:at + done])
        if len(data) != done:
            raise Refused(f"{call} into {d.rel}: {done} bytes copied from {s.rel or s.path} at {at}, which the "
                          f"recorder knows {len(data)} bytes of")
        self._put(d, call, data, doff, **{"from": "pipe" if s.pipe else escape(s.rel) if s.rel is not None else "-"})

    def _source(self, s, call, to):
        """What the file s holds now: under the root, as the recorder
        followed it; outside, read, when unchanged since the recording
        began (otherwise refused)."""
        if s.rel is not None:
            return self.data.get(s.ino, b"")
        if s.path not in self.outside:
            try:
                if self.since is None:      # (the grader's: a student's trace names no file it reads)
                    raise OSError
                st = os.stat(s.path)
                if st.st_ctime_ns >= self.since or st.st_size > DATA_LIMIT:
                    raise OSError
                with open(s.path, "rb") as f:
                    self.outside[s.path] = f.read(DATA_LIMIT + 1)
            except OSError:
                raise Refused(f"{call} into {to} from {s.path}, a file outside the root changed while recording "
                              f"or gone (or larger than {DATA_LIMIT >> 20} MiB): its bytes were never recorded") \
                    from None
        return self.outside[s.path]

    def on_fallocate(self, proc, name, a, ret):
        f = self._fd(proc, a[0])
        if f is None or f.rel is None:
            return
        mode, off, length = set(a[1].split("|")) - {"0"}, int(a[2]), int(a[3])
        size = len(self.data.setdefault(f.ino, bytearray()))
        if mode - {"FALLOC_FL_KEEP_SIZE", "FALLOC_FL_PUNCH_HOLE", "FALLOC_FL_ZERO_RANGE"}:
            raise Refused(f"{name} {a[1]} into {f.rel}: the kit cannot model it")
        if mode & {"FALLOC_FL_PUNCH_HOLE", "FALLOC_FL_ZERO_RANGE"}:
            # reads of the range give zeros: a write of them, kept within
            # the size under KEEP_SIZE (which a hole's punch needs)
            end = min(off + length, size) if "FALLOC_FL_KEEP_SIZE" in mode else off + length
            self._fits(f.rel, name, end)
            if end > off:
                kind = "punch_hole" if "FALLOC_FL_PUNCH_HOLE" in mode else "zero_range"
                self._put(f, kind, bytes(end - off), off)
        elif "FALLOC_FL_KEEP_SIZE" not in mode and off + length > size:
            # blocks reserved: what a reader sees is the new size, zeros past the old one
            self._fits(f.rel, name, off + length)
            self._resize(f.ino, off + length)
            self.emit("fallocate", f.rel, fd=f.id, size=off + length)

    def on_mmap(self, proc, name, a, ret):
        if "MAP_SHARED" in a[3] and "PROT_WRITE" in a[2]:
            self._refuse_on(proc, name, a[4], "a writable shared mapping, whose stores no tracer sees: the kit "
                            "cannot model it")

    def on_io_uring_setup(self, proc, name, a, ret):
        raise Refused("io_uring_setup: the requests of an io_uring are no system calls, which the recorder "
                      "would not see: the kit cannot model them")

    def log(self):
        """The log's lines after the init ones."""
        return self.lines + (["exit"] if self.ended else [])


def _pointer(arg):
    """The offset behind strace's [N], or, where the call moved it, [N] =>
    [M] (strace 6) or [N => M] (strace 7): N; None for NULL."""
    m = re.match(r"\[(\d+)(?:\]| =>)", arg)
    return int(m[1]) if m else None


def escape(path):
    return "".join(chr(b) if re.fullmatch(rb"[A-Za-z0-9._/-]", bytes([b])) else "%%%02X" % b
                   for b in os.fsencode(path))


def snapshot(root, skip=()):
    """What root holds: {rel: bytes, or None for a directory}, in name
    order; Refused past INIT_LIMIT bytes."""
    out, total = {}, 0
    for top, dirs, files in os.walk(root):
        dirs.sort()
        rel_top = os.path.relpath(top, root)
        for name in sorted(dirs + files):
            rel = name if rel_top == "." else f"{rel_top}/{name}"
            full = os.path.join(top, name)
            if rel in skip or os.path.islink(full):
                continue
            if os.path.isdir(full):
                out[rel] = None
            elif os.path.isfile(full):
                with open(full, "rb") as f:
                    out[rel] = f.read(INIT_LIMIT + 1)
                total += len(out[rel])
                if total > INIT_LIMIT:
                    raise Refused(f"{root}: more than {INIT_LIMIT >> 20} MiB of files to record at the start: "
                                  "record in a directory holding only what the program changes (--root)")
    return dict(sorted(out.items()))


def convert(trace, root, cwd, init, inherited=None, skip=(), since=None):
    """The log's text from strace's log trace of a command started in cwd
    with root's files init (snapshot) at since (Recorder). Refused: a call
    the kit cannot model."""
    rec = Recorder(root, cwd, init, inherited, skip, since)
    for e in events(trace):
        rec.event(*e)
    if rec.top is None:
        raise Refused("strace recorded no call of the command: it could not trace it (see above)")
    head = ["fsrecord 1"] + [f"init dir {escape(p)}" if d is None else f"init file {escape(p)} {d.hex()}"
                             for p, d in init.items()]
    return "\n".join(head + rec.log()) + "\n", rec.notes


# ------------------------------------------------------------------ the command

USAGE = f"usage: {PROG} -o LOG [--root DIR] -- COMMAND [ARG...]"


def usage_error(message):
    print(f"{PROG}: {message}\n{USAGE}\nsee {PROG} --help for every option", file=sys.stderr)
    sys.exit(2)


def parse(argv):
    log, root, i = None, ".", 0
    while i < len(argv):
        a = argv[i]
        if a in ("-h", "--help"):
            parts = __doc__.split("\n\n")     # all but its synopsis, which USAGE is
            print(USAGE + "\n\n" + parts[0] + "\n\n" + "\n\n".join(parts[2:]))
            sys.exit(0)
        if a == "--":
            i += 1
            break
        if a in ("-o", "--root"):
            if i + 1 >= len(argv):
                usage_error(f"{a} needs a value")
            if a == "-o":
                log = argv[i + 1]
            else:
                root = argv[i + 1]
            i += 2
        elif a.startswith("-"):
            usage_error(f"unknown option {a}")
        else:
            break
    if log is None:
        usage_error("no log (-o LOG)")
    if i >= len(argv):
        usage_error("no command to record")
    return log, root, argv[i:]


def inherited_fds():
    """The descriptors the command inherits, 0, 1 and 2: {fd: (the path
    they name, their offset, {"O_APPEND"} or not)}; a pipe's or a
    terminal's are of no interest."""
    out = {}
    for fd in (0, 1, 2):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
            offset = os.lseek(fd, 0, os.SEEK_CUR)
        except OSError:
            continue
        append = {"O_APPEND"} if fcntl.fcntl(fd, fcntl.F_GETFL) & os.O_APPEND else set()
        if target.startswith("/"):
            out[fd] = (target, offset, append)
    return out


def main(argv):
    log, root, cmd = parse(argv)
    if not os.path.isdir(root):
        raise Refused(f"{root}: not a directory")
    if not STRACE:
        raise Refused("strace is not installed (apt-get install strace): the recorder runs the command under it")
    root, cwd = os.path.realpath(root), os.path.realpath(os.getcwd())
    log_rel = os.path.relpath(os.path.realpath(log), root)
    skip = {log_rel, log_rel + ".tmp"}
    since = time.time_ns()
    init = snapshot(root, skip)
    inherited = inherited_fds()
    work = tempfile.mkdtemp(prefix="fsrecord.")
    try:
        trace = os.path.join(work, "strace.log")
        # Signals for the command go to the command: the recorder waits.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        status = subprocess.call(command(trace) + cmd, preexec_fn=lambda: [
            signal.signal(s, signal.SIG_DFL) for s in (signal.SIGINT, signal.SIGTERM)])
        text, notes = convert(trace, root, cwd, init, inherited, skip, since)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    for note in notes:
        print(f"{PROG}: {note}", file=sys.stderr)
    try:
        with open(log + ".tmp", "w") as f:
            f.write(text)
        os.replace(log + ".tmp", log)
    except OSError as e:
        try:
            os.unlink(log + ".tmp")
        except OSError:
            pass
        raise Refused(f"{log}: {e.strerror}") from None
    return status if status >= 0 else 128 - status


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv[1:]))
    except Refused as e:
        print(f"{PROG}: {e}", file=sys.stderr)
        sys.exit(1)
