"""Containment for students' code: an own uid, limits, a system-call filter,
and bubblewrap as a second layer where it can start.

Layers, outermost first (docs/instructors.md has the table):
  1. As root, every grading claims a uid of its own from a reserved range
     (no passwd entry needed).  Students' programs run as that uid, so the
     process limit, signals and file permissions are per submission, and
     every process of the uid is killed when a check ends, until the
     kernel's count of the uid's tasks proves none is left (kill_uid).
  2. Resource limits: CPU time, file size, address space, processes, open
     files, no core dumps; a watchdog on the bytes and files the uid writes,
     builds included.
  3. A seccomp filter, a list of what is allowed (ALLOWED: what the labs'
     programs, their builds and gnuplot call; anything else ENOSYS): no
     sockets (but those bubblewrap needs to set up its network namespace,
     where they reach nothing), no socket pair and no descriptor sent over
     a socket, no System V IPC or POSIX message queue, no keyring, nothing
     of another process (ptrace and the like), no namespace or mount, no
     fallocate (gigabytes of disk between two looks of the watchdog; an
     io_uring request could still ask for it), no memfd but in Lab 1, no
     io_uring unless a check asks for it and bubblewrap runs (no filter
     sees an io_uring request: outside bubblewrap, one could open a Unix
     socket of the machine by its path, which nothing else closes; inside,
     its program writes only in a tmpfs of bounded size: a fallocate),
     nothing but the machine's own system-call ABI.  Each program starts
     in a session keyring of its own, empty: the grader's is out of its
     reach.
  4. Landlock, where the kernel has it (grading/landlock.py): read only the
     system's directories and the run's, write only the run directory, no
     TCP, no signal or abstract Unix socket leaving the sandbox, no /proc.
  5. bubblewrap, where it can start: new namespaces (no network, own /tmp,
     /var/tmp and /dev/shm of bounded size, own PIDs, own System V IPC),
     and only /usr, the libraries, a minimal /etc and the directories the
     run needs.
Nothing outlives a check: its processes are killed, the System V IPC
objects of the uid removed, and (as root) its run directory closed to the
uid; its files in shared directories, at any depth, go when the grading
ends.  Disk and memory are limited for the whole grading, not per process.
A grader that is not root cannot change uid: it runs students' code only
inside bubblewrap, or, with --unsafe-no-sandbox, as itself (and says so).
"""

import ctypes
import errno
import fcntl
import functools
import hashlib
import math
import os
import platform
import re
import resource
import shlex
import shutil
import signal
import stat
import struct
import subprocess
import tempfile
import time

from grading import landlock, syscalls, tracer

# The kit's root: grading/ is in it.
KIT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# Uids handed to gradings: base + slot.  Far above the ranges distributions
# give to users, system services and subordinate-id maps (and below 2^31,
# which some tools read as signed).  IOLAB_UID_BASE moves it.
UID_BASE = int(os.environ.get("IOLAB_UID_BASE", "1500000000"))
UID_SLOTS = 1000

LIMIT_FSIZE = 512 << 20      # largest file one program may write
LIMIT_AS = 2 << 30           # address space
LIMIT_NPROC = 192            # processes and threads of the uid (make + cc need some)
# A run with this many processes at once (a build needs a handful, no lab
# more than a few dozen) is a fork bomb at its limit: the watchdog ends it
# at its next look, rather than let it spin on both cores until its time
# limit (10 s and more).
BOMB_PROCESSES = LIMIT_NPROC * 3 // 4
LIMIT_NOFILE = 256
# Bytes the uid may have in its directories and /tmp, and files.  What
# holds them to it is a look every WATCH_PERIOD, so they grow only as fast
# as the page cache lets data in (the filter refuses fallocate, which takes
# gigabytes in a millisecond).  IOLAB_LIMIT_DISK_MIB lowers it: the tests'
# disk fillers then stay small enough to reach it in seconds on a slow disk.
LIMIT_DISK = int(os.environ.get("IOLAB_LIMIT_DISK_MIB", "1024")) << 20
LIMIT_FILES = 20000
# Resident memory of all the processes of a run, System V shared memory
# included.  IOLAB_LIMIT_MEMORY_MIB lowers it (the tests' memory hogs stay small).
LIMIT_MEMORY = int(os.environ.get("IOLAB_LIMIT_MEMORY_MIB", "2048")) << 20
WATCH_PERIOD = 0.5           # seconds between two looks at a run's disk and memory: each walks
                             # /proc (about 10 ms of CPU with 180 processes on a loaded VM)
TMPFS_SIZE = 256 << 20       # each of the sandbox's /tmp, /var/tmp, /dev/shm

# What leaves root for a grading's uid under the tracer (util-linux, in
# every Debian and Ubuntu system).
SETPRIV = shutil.which("setpriv", path="/usr/bin:/bin:/usr/sbin:/sbin") or "setpriv"

# Directories any user may write to, where a program could leave files
# behind (or fill a disk) outside its run directory.
SHARED_TMP = ("/tmp", "/var/tmp", "/dev/shm", "/dev/mqueue", "/run/lock")


# ------------------------------------------------------------------ seccomp

_ARCH = {  # machine: (AUDIT_ARCH_*, x32 bit or 0)
    "x86_64": (0xC000003E, 0x40000000),
    "aarch64": (0xC00000B7, 0),
}
_AF_UNIX, _AF_NETLINK = 1, 16
_PR_SET_SECCOMP = 22
# clone(2)'s flags that make a namespace: a student's program makes none
# (CLONE_NEWNS, NEWCGROUP, NEWUTS, NEWIPC, NEWUSER, NEWPID, NEWNET).
_CLONE_NEW = 0x00020000 | 0x02000000 | 0x04000000 | 0x08000000 | 0x10000000 | 0x20000000 | 0x40000000
# personality(2)'s arguments a program may pass: 0xffffffff reads it,
# PER_LINUX (0) and ADDR_NO_RANDOMIZE (0x0040000) are what ThreadSanitizer's
# run time sets before it runs itself again.  READ_IMPLIES_EXEC,
# MMAP_PAGE_ZERO, another execution domain and the like are refused.
_PERSONALITY = (0xFFFFFFFF, 0, 0x0040000)


def _names(table):
    """The names of a table below: words, '#' to the end of a line a comment."""
    return [w for line in table.splitlines() for w in line.split("#", 1)[0].split()]


# Why a list of what is allowed: a deny-list stops only the calls someone
# thought of (each kernel adds some: memfd_secret, pidfd_getfd,
# process_madvise, open_tree...).  What the labs' programs, their builds
# (make, sh, bash, gcc's cc1, as, collect2 and ld, clang, sed, the kit's
# scripts) and gnuplot (the figures check) call, gathered with strace -f
# over builds with the system's gcc and clang and Debian unstable's gcc 16
# and clang 21, and with the kernel's log of the calls off a first list
# over a whole grading of the reference handin (IOLAB_SECCOMP_LOG below),
# then reviewed by hand, group by group.  Everything else fails with
# ENOSYS, which is what glibc expects of a call the kernel is too old
# for, so its fallbacks work: clone3 -> clone (whose flags the filter can
# read), mseal and map_shadow_stack left unused.  A newer glibc or
# compiler that needs a call without a fallback fails its build with
# "Function not implemented" (CI's .ci/toolchains builds the kit with the
# newest gcc and clang under this filter to find out first): set
# IOLAB_SECCOMP_LOG=1, grade once and read the kernel's log (dmesg:
# "audit: type=1326 ... syscall=N"): the calls off the list are allowed
# and logged instead.
ALLOWED = _names("""
# Files: open, read, write, seek, close, and what make, cc, ld, bash and
# sed do to paths and descriptors.  ioctl: a terminal's (isatty), FIONREAD,
# FICLONE (cp); the Landlock ruleset and the uid's permissions bound it.
read write readv writev pread64 pwrite64 preadv pwritev preadv2 pwritev2
open openat openat2 creat close close_range lseek dup dup2 dup3 fcntl ioctl flock
stat fstat lstat newfstatat statx statfs fstatfs access faccessat faccessat2
readlink readlinkat getdents64 getcwd chdir fchdir umask
mkdir mkdirat rmdir unlink unlinkat rename renameat renameat2 link linkat symlink symlinkat
chmod fchmod fchmodat fchmodat2 utime utimes utimensat futimesat truncate ftruncate
mknod mknodat
# Lab 6 and Lab 4 make data durable (Lab 6's recorder models each); Lab 3 and Lab 5 advise the cache
fsync fdatasync sync syncfs sync_file_range fadvise64 readahead
# copying between descriptors, as a fillcopy or cp may
sendfile copy_file_range splice tee
# pipes and waiting on descriptors (make's jobserver: pselect6)
pipe pipe2 select pselect6 poll ppoll eventfd eventfd2
epoll_create epoll_create1 epoll_ctl epoll_wait epoll_pwait epoll_pwait2
# Memory: the heap, mappings, advice (Lab 3's membw, ThreadSanitizer's
# shadow: mincore, madvise)
brk mmap munmap mremap mprotect madvise mincore msync
# Processes and threads: fork, exec, wait (clone's flags are checked:
# no namespace; clone3 passes its flags in memory no filter reads, so
# it is left to ENOSYS, and glibc clones), and what they ask of
# themselves
clone fork vfork execve execveat wait4 waitid exit exit_group
set_tid_address set_robust_list get_robust_list rseq futex arch_prctl
getpid gettid getppid getpgrp getpgid setpgid getsid setsid
getuid geteuid getgid getegid getresuid getresgid getgroups capget
sched_yield sched_getaffinity sched_setaffinity sched_getparam sched_getscheduler
sched_get_priority_max sched_get_priority_min getpriority setpriority getcpu
getrlimit setrlimit prlimit64 getrusage times sysinfo uname
# Ids: make's children and gnuplot set those they already have (the
# grading's uid has no capability to take another); NUMA policy (gnuplot)
setuid setgid setreuid setregid setresuid setresgid get_mempolicy set_mempolicy
# Signals and timers (to processes of the uid: its own, the sandbox's)
kill tgkill tkill rt_sigaction rt_sigprocmask rt_sigreturn rt_sigsuspend rt_sigpending
rt_sigtimedwait rt_sigqueueinfo rt_tgsigqueueinfo sigaltstack pause alarm getitimer setitimer
timer_create timer_settime timer_gettime timer_getoverrun timer_delete
signalfd signalfd4 timerfd_create timerfd_settime timerfd_gettime restart_syscall
# Time and randomness (the vDSO answers most clock calls without one)
clock_gettime clock_getres clock_nanosleep nanosleep gettimeofday time getrandom
""")

# Checked by their arguments (seccomp_filter): prctl (not PR_SET_SECCOMP),
# clone (no namespace), personality (_PERSONALITY), socket (refused).
_BY_ARGUMENT = _names("prctl clone personality socket")

# Refused with an errno of their own rather than ENOSYS, where a program
# (or glibc) takes that answer, or a lab's check quotes it:
REFUSED = {
    # Lab 5's check "io_uring refused" wants the EPERM of a container's
    # profile; io_uring_enter and _register need a ring first
    "io_uring_setup": errno.EPERM,
    # glibc's posix_fallocate writes the blocks when fallocate answers
    # EOPNOTSUPP: 4 GB of blocks in 12 ms would pass between two looks of
    # the watchdog, writes wait for the page cache
    "fallocate": errno.EOPNOTSUPP,
    # POSIX message queues outlive a process where nobody lists them
    "mq_open": errno.EACCES,
}
# ... and EPERM, the answer of a container's profile, for what reaches
# past the run (the deny-list's, whose answers programs and tests know):
REFUSED.update(dict.fromkeys(_names("""
# System V IPC: objects that outlive their processes, open to every uid
# their mode lets in (a 0666 segment of one grading read by the grading
# beside it, where no bubblewrap gives each its IPC namespace)
shmget shmat shmctl shmdt semget semop semctl semtimedop msgget msgsnd msgrcv msgctl
# the kernel's key store: keys reached through an inherited keyring are
# "possessed", readable and writable whatever the uid
add_key request_key keyctl
# descriptors in flight (a memfd sent over a socket, then closed: held by
# no process, memory the watchdog's look at processes never sees), and
# pairs of sockets whose queues no process shows either
sendmsg sendmmsg socketpair
# another process's memory, descriptors or events (its uid's only, but the
# grader's launcher runs as that uid), and memory no look sees
ptrace process_vm_readv process_vm_writev pidfd_getfd kcmp perf_event_open
bpf userfaultfd memfd_secret fanotify_init
# a filter of its own: one answering SECCOMP_RET_USER_NOTIF takes the
# calls it names before the grader's tracer sees them
seccomp
"""), errno.EPERM))

# Allowed only where a lab's rubric module asks for them (its
# SYSTEM_CALLS, or a check's g.student(..., io_uring=True)), which says why:
ON_REQUEST = {
    # a file in memory only: the watchdog counts those that processes hold
    # or map, not one in flight (sendmsg is refused)
    "memfd_create": ("memfd_create",),
    # Lab 5's --iodepth check, inside bubblewrap only (NO_IO_URING)
    "io_uring": ("io_uring_setup", "io_uring_enter", "io_uring_register"),
}

# What bubblewrap itself calls to set up its sandbox, under the filter a
# build or a figure starts with: its namespaces and mounts, its
# capabilities in them, and netlink and Unix sockets for the loopback of
# its network namespace, in which they reach nothing.  The program it
# starts runs under the program's filter too (its --seccomp).
BWRAP_SETUP = _names("""
unshare mount umount2 pivot_root capset setgroups sethostname
connect bind sendto recvfrom recvmsg getsockname setsockopt getsockopt
""")

# Why no student program gets io_uring outside bubblewrap: the operations
# it submits (IORING_OP_SOCKET, _CONNECT) are no system calls, so the
# filter never sees them; Landlock restricts TCP but not connect() to a
# Unix socket by its path, and a network namespace does not hold those.
# Only bubblewrap's mount namespace hides the machine's sockets (D-Bus's,
# say).  The checks that need io_uring are skipped there (gradelib).
NO_IO_URING = ("outside bubblewrap the grader refuses io_uring: its requests pass the seccomp filter, "
               "and could open Unix sockets no other layer closes")


def _bpf(code, k, jt=0, jf=0):
    return struct.pack("HBBI", code, jt, jf, k)


def seccomp_filter(allow_io_uring, setup=False, calls=()):
    """_seccomp_program's BPF program, built once a grading for each set of
    arguments (a grading asks some 360 times, for every program it runs)."""
    return _seccomp_program(bool(allow_io_uring), setup, tuple(calls), bool(os.environ.get("IOLAB_SECCOMP_LOG")))


@functools.lru_cache(maxsize=None)
def _seccomp_program(allow_io_uring, setup, calls, log):
    """The BPF program: the calls of ALLOWED, those of the ON_REQUEST
    groups named in calls (and io_uring's where allow_io_uring), those of
    BWRAP_SETUP and netlink and Unix sockets where setup (bubblewrap starts
    under it); REFUSED's with their errno, prctl(PR_SET_SECCOMP) and clone
    into a namespace with EPERM, socket with EACCES; foreign ABIs killed,
    x32's calls and everything else ENOSYS (log: allowed and logged)."""
    machine = platform.machine()
    arch, x32 = _ARCH[machine]
    nr = syscalls.numbers(machine)
    allowed = list(ALLOWED) + [c for group in calls for c in ON_REQUEST[group]]
    if allow_io_uring:
        allowed += ON_REQUEST["io_uring"]
    if setup:
        allowed += BWRAP_SETUP
    LD, JEQ, JGE, JSET, RET = 0x20, 0x15, 0x35, 0x45, 0x06
    ALLOW, ERRNO, KILL, LOG = 0x7FFF0000, 0x00050000, 0x80000000, 0x7FFC0000
    ARG0 = 16                                # the low 32 bits of the first argument
    prog = [
        _bpf(LD, 4),                         # arch
        _bpf(JEQ, arch, 1, 0),
        _bpf(RET, KILL),
        _bpf(LD, 0),                         # syscall number
    ]
    if x32:
        prog += [_bpf(JGE, x32, 0, 1), _bpf(RET, ERRNO | errno.ENOSYS)]
    if setup:   # bubblewrap's loopback: netlink; Unix sockets: its own and glibc's
        prog += [_bpf(JEQ, nr["socket"], 0, 5), _bpf(LD, ARG0), _bpf(JEQ, _AF_NETLINK, 2, 0),
                 _bpf(JEQ, _AF_UNIX, 1, 0), _bpf(RET, ERRNO | errno.EACCES), _bpf(RET, ALLOW)]
    else:
        prog += [_bpf(JEQ, nr["socket"], 0, 1), _bpf(RET, ERRNO | errno.EACCES)]
    if setup:   # bubblewrap clones into its namespaces, and installs the program's filter
        prog += [_bpf(JEQ, nr["clone"], 0, 1), _bpf(RET, ALLOW), _bpf(JEQ, nr["prctl"], 0, 1), _bpf(RET, ALLOW)]
    else:
        prog += [_bpf(JEQ, nr["prctl"], 0, 4), _bpf(LD, ARG0),      # the option
                 _bpf(JEQ, _PR_SET_SECCOMP, 0, 1), _bpf(RET, ERRNO | errno.EPERM), _bpf(RET, ALLOW)]
        prog += [_bpf(JEQ, nr["clone"], 0, 4), _bpf(LD, ARG0),  # the flags
                 _bpf(JSET, _CLONE_NEW, 0, 1), _bpf(RET, ERRNO | errno.EPERM), _bpf(RET, ALLOW)]
    prog += [_bpf(JEQ, nr["personality"], 0, len(_PERSONALITY) + 3), _bpf(LD, ARG0)]
    for i, persona in enumerate(_PERSONALITY):
        prog.append(_bpf(JEQ, persona, len(_PERSONALITY) - i, 0))
    prog += [_bpf(RET, ERRNO | errno.EPERM), _bpf(RET, ALLOW)]
    for name, err in REFUSED.items():
        if name in nr and name not in allowed:
            prog += [_bpf(JEQ, nr[name], 0, 1), _bpf(RET, ERRNO | err)]
    for name in dict.fromkeys(allowed):
        if name in nr:
            prog += [_bpf(JEQ, nr[name], 0, 1), _bpf(RET, ALLOW)]
    # IOLAB_SECCOMP_LOG: the calls off the list allowed, and logged by the
    # kernel (for an instructor finding what a new toolchain calls)
    prog.append(_bpf(RET, LOG if log else ERRNO | errno.ENOSYS))
    return b"".join(prog)


_LIBC = ctypes.CDLL(None, use_errno=True)


class _Fprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


def _filter_program(prog):
    """A struct sock_fprog for prog (kept alive with the buffer it points to)."""
    buf = ctypes.create_string_buffer(prog)
    fprog = _Fprog(len(prog) // 8, ctypes.addressof(buf))
    fprog.buf = buf
    return fprog


def _pipe_holding(data):
    """The read end of a pipe that holds data and then ends (data fits the
    pipe's buffer): for a child to read the filter from."""
    r, w = os.pipe()
    try:
        os.write(w, data)
    finally:
        os.close(w)
    return r


PR_SET_NO_NEW_PRIVS = 38


def _install_seccomp(fprog):
    PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2
    if _LIBC.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0 or \
            _LIBC.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(fprog), 0, 0) != 0:
        os.write(2, b"sandbox: cannot install the system-call filter\n")
        os._exit(126)


# ------------------------------------------------------------------ processes of a uid

def become_subreaper(on=True):
    """Orphans of the processes this grader starts (a double-forked daemon,
    the children of a killed fork bomb) become its children, not init's: it
    can reap them, so none lingers as a zombie counted against the uid.
    on=False: a process that reaps none (the batch, whose gradings prove
    their uids empty before they end) leaves them to init."""
    PR_SET_CHILD_SUBREAPER = 36
    _LIBC.prctl(PR_SET_CHILD_SUBREAPER, int(on), 0, 0, 0)


# Children started by Sandbox.popen and not yet waited for: their exit
# status belongs to whoever started them, so reap_orphans leaves them.
_unwaited = set()


def _orphans(spare=None):
    """(pid, state) of the grader's children but those in spare (by
    default those a check waits for): orphans that were reparented to it."""
    spare = _unwaited if spare is None else spare
    me = str(os.getpid()).encode()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) in spare:
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                # pid (comm) state ppid ...: comm may hold spaces and parentheses
                state, ppid = f.read().rsplit(b")", 1)[1].split()[:2]
        except (OSError, ValueError):
            continue
        if ppid == me:
            yield int(name), state


def reap_orphans(spare=None):
    """Reaps the orphans that have ended (zombies nobody else waits for).
    spare: the children to leave (by default those a check waits for).
    The kernel is asked first, without reaping, whether any child has
    ended: mostly none has, and the walk of every process's stat is left
    out (some 5 ms of CPU on a machine of 130 processes, 500 times a
    grading); with nothing to spare, every ended child is reaped as the
    kernel hands it over."""
    spare = _unwaited if spare is None else spare
    try:
        if not spare:   # every ended child is the grader's to reap
            while (pid := os.waitpid(-1, os.WNOHANG)[0]) != 0:
                _unwaited.discard(pid)
            return
        if os.waitid(os.P_ALL, 0, os.WEXITED | os.WNOHANG | os.WNOWAIT) is None:
            return      # children, none of them ended
    except ChildProcessError:
        return          # no child at all
    for pid, state in _orphans(spare):
        if state == b"Z":
            try:
                os.waitpid(pid, os.WNOHANG)
            except ChildProcessError:
                pass
            _unwaited.discard(pid)


def kill_orphans():
    """Not root: kills the orphans still running (a daemon that left its
    session), and theirs, which become orphans in turn."""
    for _ in range(200):
        running = [pid for pid, state in _orphans() if state != b"Z"]
        for pid in running:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        reap_orphans()
        if not running:
            return


# Seconds kill_uid tries before it says a uid cannot be emptied.  A killed
# process inside a write or fsync dies when the call returns: on a machine
# whose disk was busy (a batch beside an apt-get), 5 s stopped gradings of
# Lab 2, whose programs fsync, as "processes outlived SIGKILL".
KILL_TIMEOUT = 30


# How the grader compiles its own C programs (built; .ci/toolchains builds
# them the same way with other compilers).
HELPER_CFLAGS = ("-std=c11", "-Wall", "-Wextra", "-Werror", "-O2")


def built(name, suffix="", flags=("-static",), libs=(), source=None):
    """grading/name.c (or source, a path in the kit) compiled into the
    kit's build/grading/ once, under a name made of its source's hash (a
    changed source is built anew, never taken for the old): its path.
    Static by default, so that no library preloaded into a student's
    program is loaded into it. Two gradings building it at once each write
    a file of their own and rename it into place, so neither sees half a
    program."""
    src = os.path.join(KIT, source or os.path.join("grading", name + ".c"))
    cc = shlex.split(os.environ.get("CC", "cc"))  # "ccache gcc", as make takes it
    with open(src, "rb") as f:
        text = f.read()
    # the headers it includes from its own folder ("filter.h") are part of it
    for header in re.findall(rb'^#include "([\w.]+)"', text, re.M):
        with open(os.path.join(os.path.dirname(src), header.decode()), "rb") as f:
            text += f.read()
    key = hashlib.sha256(text + repr((cc, list(flags), list(libs))).encode()).hexdigest()[:16]
    cache = os.path.join(KIT, "build", "grading")
    path = os.path.join(cache, f"{name}-{key}{suffix}")
    if os.path.exists(path):
        return path
    os.makedirs(cache, mode=0o700, exist_ok=True)
    tmp = f"{path}.{os.getpid()}"
    done = subprocess.run([*cc, *HELPER_CFLAGS, *flags, "-o", tmp, src, *libs],
                          capture_output=True, text=True)
    if done.returncode != 0:
        raise RefuseError(f"the grader could not build its {name}.c: ask your instructor\n" + done.stderr[-500:])
    os.replace(tmp, path)
    return path


def kill_uid(uid):
    """Kills every process of uid and proves, by the kernel, that none is
    left, zombies included; whether it could.  A listing of /proc cannot
    prove it: a process that forks and exits every millisecond is never
    both listed and alive.  Nor can kill(-1)'s result: it is 0 whenever
    any other process exists, one it may signal or not.  The proof is the
    kernel's own count of uid's tasks, which RLIMIT_NPROC is held to: it
    counts zombies until they are reaped, and the tasks in bubblewrap's
    user namespace.  A child that has become uid, with a process limit of
    2, sends SIGKILL to every process it may signal (exactly uid's), then
    forks: the fork succeeds only once it is uid's only task (that child
    is grading/enduid.c, a program of its own: a fork of the grader cost
    some 38 ms of CPU, 90 times a grading).  Until then the grader reaps
    the zombies its subreaping handed to it, and tries again: every child
    it has started is of uid, killed, so nobody will ask for their status
    any more."""
    # kill(-1) as root would end every process of the machine: uid 0 is
    # root's, and -1 (2^32 - 1) leaves setresuid's uids as they are.
    if not 0 < uid < 2 ** 32 - 1:
        raise RefuseError(f"uid {uid} is not a grading's")
    end = time.monotonic() + KILL_TIMEOUT
    enduid = built("enduid")
    while time.monotonic() < end:
        code = subprocess.run([enduid, str(uid)], stdin=subprocess.DEVNULL).returncode
        if code == 0:
            return True
        if code == 2:    # (a user namespace that maps no such uid)
            raise RefuseError(f"cannot become uid {uid} to end its processes")
        # Others are left (or a process of uid killed the killer): the
        # zombies the grader's subreaping adopted are its to reap, then again.
        reap_orphans(spare=())
    return False


def remove_tree(path):
    """Removes path and all below it, however deep (a student's program may
    nest thousands of directories: shutil.rmtree recurses and raises
    RecursionError): rm -rf walks it iteratively, without following links;
    a directory made unreadable is opened up and removal tried again.
    Whether path is gone."""
    for _ in range(2):
        subprocess.run(["rm", "-rf", "--one-file-system", "--", path], stderr=subprocess.DEVNULL)
        if not os.path.lexists(path):
            return True
        subprocess.run(["chmod", "-R", "u+rwx", "--", path], stderr=subprocess.DEVNULL)
    return False


def writable_dirs(uid, tops=SHARED_TMP):
    """The directories below tops, tops included, where uid may make files
    though they are not its own: those any user may write to, at any depth
    (a 0777 directory another user made in /tmp).  Not below uid's own
    directories, which go whole, nor through links, nor below a directory
    uid may not pass through (a 0700 one of another user's: the test
    suite's, or a batch's, hold thousands of directories that no grading
    uid can reach; walking them made each call take a second).  A grading's
    uid has its own number as its one group."""
    found = []
    stack = [(t, True) for t in tops if os.path.isdir(t) and not os.path.islink(t)]
    while stack:
        path, writable = stack.pop()
        if writable:
            found.append(path)
        try:
            entries = list(os.scandir(path))
        except OSError:
            continue
        for e in entries:
            try:
                if e.is_dir(follow_symlinks=False):
                    st = e.stat(follow_symlinks=False)
                    search = stat.S_IXOTH | (stat.S_IXGRP if st.st_gid == uid else 0)
                    if st.st_uid != uid and st.st_mode & search:
                        stack.append((e.path, bool(st.st_mode & stat.S_IWOTH)))
            except OSError:
                pass
    return found


def elsewhere_writable(uid):
    """The world-writable directories uid may reach outside SHARED_TMP (a
    chroot's /tmp or /run/lock, say), where nothing but Landlock or
    bubblewrap keeps its programs from writing: a walk of the whole file
    system but /proc and /sys (some 1.5 CPU-s, so once a grading)."""
    tops = [e.path for e in os.scandir("/") if e.is_dir(follow_symlinks=False) and e.name not in ("proc", "sys")]
    below = tuple(t + "/" for t in SHARED_TMP)
    return tuple(d for d in writable_dirs(uid, tops) if d not in SHARED_TMP and not d.startswith(below)
                 and os.lstat(d).st_mode & stat.S_IWOTH)


def remove_files_of(uid, dirs=None):
    """Removes what uid left in the shared temporary directories, at any
    depth where it could write (dirs: writable_dirs(uid))."""
    for top in writable_dirs(uid) if dirs is None else dirs:
        try:
            entries = list(os.scandir(top))
        except OSError:
            continue
        for e in entries:
            try:
                if e.stat(follow_symlinks=False).st_uid != uid:
                    continue
                if e.is_dir(follow_symlinks=False):
                    remove_tree(e.path)
                else:
                    os.unlink(e.path)
            except Exception:   # whatever is left, the next grading of the slot tries again
                pass


def sysv_ipc(uid):
    """[(kind, id, bytes)]: the System V shared memory segments, semaphore
    sets and message queues that uid owns or created, from /proc/sysvipc
    (bytes: the resident size, where the kernel says, else the size, of a
    segment no process has attached, whose pages no process's resident
    memory shows; 0 for the others)."""
    found = []
    for kind in ("shm", "sem", "msg"):
        try:
            with open(f"/proc/sysvipc/{kind}") as f:
                head, *rows = f.read().splitlines()
        except OSError:
            continue
        cols = head.split()
        for row in rows:
            v = dict(zip(cols, row.split()))
            if str(uid) in (v.get("uid"), v.get("cuid")):
                size = int(v.get("rss", v.get("size", 0))) if kind == "shm" and v.get("nattch") == "0" else 0
                found.append((kind, int(row.split()[1]), size))
    return found


_IPC_RMID = 0


def remove_ipc_of(uid):
    """Removes uid's System V IPC objects, which outlive every process (a
    segment goes once no process has it attached: all have been killed)."""
    for kind, ident, _ in sysv_ipc(uid):
        if kind == "shm":
            _LIBC.shmctl(ident, _IPC_RMID, None)
        elif kind == "sem":
            _LIBC.semctl(ident, 0, _IPC_RMID)
        else:
            _LIBC.msgctl(ident, _IPC_RMID, None)


def tree_of(pid, uid=None):
    """pid and every process below it, and (uid given) every process whose
    /proc directory belongs to uid: one pass over /proc.  A process that
    escaped the tree (its launcher killed) is still uid's; one that made
    itself undumpable (its /proc root's) is still in the tree, whose every
    orphan the reaper or the grader adopts."""
    parents, tree = {}, set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            if uid is not None and os.stat(f"/proc/{name}").st_uid == uid:
                tree.add(int(name))
            with open(f"/proc/{name}/stat", "rb") as f:
                # the fields after the command's ")": state, ppid, ...
                parents.setdefault(int(f.read().rsplit(b")", 1)[1].split()[1]), []).append(int(name))
        except (OSError, ValueError, IndexError):
            continue
    todo, below = [pid], set()
    while todo:
        p = todo.pop()
        if p not in below:
            below.add(p)
            todo += parents.get(p, [])
    return tree | below


def _nameless_mapped(pid):
    """{(dev, inode): bytes} of the files pid maps that have no name left
    (unlinked, or a memfd's), from /proc/PID/maps: for a watchdog that
    is not root, which may list map_files but not stat its entries (the
    kernel asks CAP_CHECKPOINT_RESTORE in the first user namespace).  Each
    file's size is taken as the end of its furthest mapping: a file larger
    than what is mapped of it counts that much only."""
    found = {}
    try:
        with open(f"/proc/{pid}/maps", "rb") as f:
            lines = f.read().splitlines()
    except OSError:
        return found
    for line in lines:
        # start-end perms offset major:minor inode path
        fields = line.split(maxsplit=5)
        if len(fields) < 6 or fields[4] == b"0":
            continue
        path = fields[5]
        if not (path.endswith(b" (deleted)") or path.startswith(b"/memfd:")):
            continue
        try:
            start, end = (int(x, 16) for x in fields[0].split(b"-"))
            major, minor = (int(x, 16) for x in fields[3].split(b":"))
            key = (os.makedev(major, minor), int(fields[4]))
            found[key] = max(found.get(key, 0), int(fields[2], 16) + end - start)
        except ValueError:
            continue
    return found


def footprint(pids):
    """(bytes of memory, bytes of disk, open files) of the processes pids:
    their resident memory (a shared page in each process that maps it: a
    memfd mapped and closed shows nowhere else), and the regular files they
    hold open, each once, unlinked and memfd files included (no directory
    shows them), and the unlinked and memfd files they map though no
    descriptor is left (a memfd filled by write(2), mapped, never touched,
    then closed: no page of it is resident in any process): as root, their
    blocks (map_files); not root, what is mapped of them (_nameless_mapped).
    ((dev, inode) of each file counted, for usage_of to skip.)"""
    page = os.sysconf("SC_PAGE_SIZE")
    memory = disk = 0
    seen = set()
    unseen = {}     # not root: the nameless files mapped, for after the descriptors
    for pid in pids:
        try:
            with open(f"/proc/{pid}/statm", "rb") as f:
                memory += int(f.read().split()[1]) * page
            held = [f"/proc/{pid}/fd/{fd}" for fd in os.listdir(f"/proc/{pid}/fd")]
        except (OSError, ValueError):
            continue
        try:
            # map_files: of the files mapped, those with no name left
            # (st_nlink 0); one with a name is counted where its name is.
            mapped = [f"/proc/{pid}/map_files/{m}" for m in os.listdir(f"/proc/{pid}/map_files")]
        except OSError:
            mapped = []
        for path in held + mapped:
            try:
                st = os.stat(path)
            except PermissionError:
                if path in held:
                    continue
                # map_files, not root: the maps instead, once for the process
                for key, size in _nameless_mapped(pid).items():
                    unseen[key] = max(unseen.get(key, 0), size)
                break
            except OSError:
                continue
            if not stat.S_ISREG(st.st_mode) or (st.st_dev, st.st_ino) in seen:
                continue
            if path in held or st.st_nlink == 0:
                seen.add((st.st_dev, st.st_ino))
                disk += st.st_blocks * 512
    for key, size in unseen.items():
        if key not in seen:
            seen.add(key)
            disk += size
    return memory, disk, seen


def usage_of(paths, uid, shared=(), seen=None):
    """(bytes, files) that uid has under paths and at the top of the shared
    directories shared (writable_dirs), skipping the files in seen ((dev,
    inode) pairs, counted already); stops counting past the limits."""
    total = files = 0
    seen = set(seen or ())
    stack = list(paths)
    for top in shared:
        try:
            stack += [e.path for e in os.scandir(top) if e.stat(follow_symlinks=False).st_uid == uid]
        except OSError:
            pass
    while stack and total <= LIMIT_DISK and files <= LIMIT_FILES:
        path = stack.pop()
        try:
            st = os.lstat(path)
        except OSError:
            continue
        files += 1
        if (st.st_dev, st.st_ino) not in seen:
            seen.add((st.st_dev, st.st_ino))   # a hard link counts once
            total += st.st_blocks * 512
        if os.path.isdir(path) and not os.path.islink(path):
            try:
                stack += [e.path for e in os.scandir(path)]
            except OSError:
                pass
    return total, files


# ------------------------------------------------------------------ the sandbox

class Sandbox:
    """Where one grading runs students' code.  mode is "uid" (root: an own
    uid, limits, filter), "bwrap" (an own uid or, not root, the grader's,
    inside bubblewrap too) or "unsafe" (--unsafe-no-sandbox as a user)."""

    def __init__(self, allow_unsafe=False, use_bwrap=True):
        self.root = os.geteuid() == 0
        self.uid = self.gid = None
        self._slot = None
        self._started = False   # whether a program ran since the uid was last proven empty
        self.elsewhere = ()     # world-writable directories outside SHARED_TMP it may reach (_find_shared)
        self.landlock = landlock.abi()   # 0: none
        become_subreaper()
        if self.root:
            self._claim_uid()
        else:
            self.uid, self.gid = os.getuid(), os.getgid()
        self.bwrap = shutil.which("bwrap") if use_bwrap else None
        if self.bwrap and not self._bwrap_starts():
            self.bwrap_error = "bubblewrap is installed but cannot start here"
            self.bwrap = None
        else:
            self.bwrap_error = None if self.bwrap else "no bubblewrap"
        if not self.root and not self.bwrap and not allow_unsafe:
            raise RefuseError(
                "students' code would run as you, with nothing between it and your files: "
                "install bubblewrap (sudo apt-get install bubblewrap), run as root, "
                "or pass --unsafe-no-sandbox")
        self.unsafe = not self.root and not self.bwrap
        # Without Landlock or bubblewrap a program may write in every
        # world-writable directory of the machine: a 300 MB file in a
        # chroot's /tmp was counted by no limit and outlived the grading.
        if self.root and not self.bwrap and not self.landlock:
            self.elsewhere = elsewhere_writable(self.uid)
        self._find_shared()
        # None, or why the grader's tracer cannot watch students' programs here.
        self.trace_refused = self._tracer_refused()
        # None, or why no student program may set up an io_uring here.
        self.io_uring_refused = None if self.bwrap else NO_IO_URING

    def describe(self):
        if self.unsafe:
            return ("NONE: --unsafe-no-sandbox, students' programs ran as the grader's user "
                    "under time and resource limits" +
                    (f" and Landlock ABI {self.landlock}" if self.landlock else " only"))
        parts = []
        if self.bwrap:
            parts.append("bubblewrap sandbox (no network, own /tmp, only /usr and the run's directories)")
        parts.append(f"own uid {self.uid}" if self.root else "the grader's uid in a user namespace")
        parts.append(f"limits (cpu, file size, processes; disk {LIMIT_DISK >> 20} MiB and memory "
                     f"{LIMIT_MEMORY >> 20} MiB per run, open and unlinked files and shared memory included, "
                     f"by a watchdog: no cgroup)")
        parts.append("system-call filter (no sockets" + ("" if self.bwrap else ", no netlink, no io_uring") +
                     ", no socket pairs or descriptors sent, no System V IPC or POSIX message queues, "
                     "no keyrings, "
                     "no other process's memory, no fallocate, nothing off the labs' list of calls)")
        if self.landlock:
            fs, net, scoped = landlock.handled(self.landlock)
            parts.append(f"Landlock ABI {self.landlock} on every program (files"
                         + (", no TCP" if net else "") + (", scoped signals and sockets" if scoped else "")
                         + ("" if self.bwrap else "; builds too") + ")")
        else:
            parts.append("no Landlock (the kernel has none)")
        if self.root:
            parts.append("System V IPC removed and run directories closed after each check")
        if not self.bwrap:
            parts.append(f"{self.bwrap_error}: second layer missing")
        return ", ".join(parts)

    # -- uids

    def _claim_uid(self):
        lockdir = os.path.join(os.environ.get("IOLAB_LOCK_DIR", "/run"), "iolab-grade")
        os.makedirs(lockdir, mode=0o700, exist_ok=True)
        st = os.lstat(lockdir)
        if st.st_uid != 0 or st.st_mode & 0o077 or not os.path.isdir(lockdir) or os.path.islink(lockdir):
            raise RefuseError(f"{lockdir} must be a directory only root can write to")
        for slot in range(UID_SLOTS):
            fd = os.open(os.path.join(lockdir, f"uid-{slot}"), os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                os.close(fd)
                continue
            # A grading that died may have left processes or files behind;
            # a slot whose processes cannot all be ended (zombies of a
            # process that reaps none) is left for the next.
            if not kill_uid(UID_BASE + slot):
                os.close(fd)
                continue
            self._slot, self.uid = fd, UID_BASE + slot
            self.gid = self.uid
            remove_files_of(self.uid)
            remove_ipc_of(self.uid)
            return
        raise RefuseError(f"all {UID_SLOTS} grading uids are in use")

    def release(self):
        try:
            self.end_processes()
            if self.root:
                remove_files_of(self.uid, writable_dirs(self.uid, SHARED_TMP + self.elsewhere))
        finally:
            if self._slot is not None:
                os.close(self._slot)
                self._slot = None

    def end_processes(self):
        """Every process a check started is gone when it ends: as root,
        proven (kill_uid: some 2 forks, 130 ms on a loaded machine, so not
        again where nothing ran since), or the grading stops here rather
        than let one spoil the next check or the next grading of the uid."""
        if self.root and self._started:
            if not kill_uid(self.uid):
                raise RefuseError(f"processes of uid {self.uid} outlived SIGKILL for {KILL_TIMEOUT} s "
                                  "(unkillable, or zombies nobody reaps): stopped")
            remove_ipc_of(self.uid)
            self._find_shared()
            self._started = False
        elif not self.root:
            kill_orphans()
        reap_orphans()

    def _find_shared(self):
        """The shared directories the watchdog looks into, found again
        before each check (another user may have made one meanwhile): as
        root outside bubblewrap (inside, /tmp is the sandbox's own)."""
        self.shared = writable_dirs(self.uid, SHARED_TMP + self.elsewhere) if self.root and not self.bwrap else ()

    def close(self, path):
        """A run directory whose check has ended: the grader's alone, so no
        later program of the uid reads or writes there (not root: bubblewrap
        shows a program only its own run directory)."""
        if self.root:
            os.chown(path, 0, 0, follow_symlinks=False)
            os.chmod(path, 0o700)

    def over_limits(self, paths, pid, extra=0):
        """Why the run of pid (the processes below it; as root, all of the
        uid's) must be killed, or None: BOMB_PROCESSES processes at once;
        what it holds on disk under paths,
        in the shared temporary directories and open (extra: bytes counted
        elsewhere, its captured output) against LIMIT_DISK and LIMIT_FILES,
        and its memory, System V shared memory included, against
        LIMIT_MEMORY."""
        pids = tree_of(pid, self.uid if self.root else None)
        if len(pids) >= BOMB_PROCESSES:
            return f"ran {len(pids)} processes at once, near the limit of {LIMIT_NPROC}: a fork bomb? (killed)"
        memory, held, seen = footprint(pids)
        if self.root:
            memory += sum(size for kind, _, size in sysv_ipc(self.uid) if kind == "shm")
        if memory > LIMIT_MEMORY:
            return f"used more than {LIMIT_MEMORY >> 20} MiB of memory (killed)"
        used, files = usage_of(paths, self.uid, shared=self.shared, seen=seen)
        if used + held + extra > LIMIT_DISK or files > LIMIT_FILES:
            return f"wrote more than {LIMIT_DISK >> 20} MiB or {LIMIT_FILES} files (killed)"
        return None

    def own(self, path):
        """Hands path (made by the grader) to the students' uid."""
        if self.root:
            os.chown(path, self.uid, self.gid, follow_symlinks=False)

    def share(self, path, mode):
        """path (the grader's) readable by this grading's students' uid
        through its group, and by no other user: not the other gradings'."""
        if self.root:
            os.chown(path, 0, self.gid, follow_symlinks=False)
        os.chmod(path, mode)

    # -- running

    def _bwrap_starts(self):
        proc = self.popen([os.path.realpath("/usr/bin/true")], cwd="/", binds=(), use_bwrap=True,
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            return proc.wait(10) == 0
        except subprocess.TimeoutExpired:
            self.stop(proc)
            return False
        finally:
            self.waited(proc)

    def _tracer_refused(self):
        """None if strace, run as the grader, follows a program started as
        a student's would be (setpriv, bubblewrap), else why not: no strace,
        or ptrace refused (a container's seccomp profile, Yama's
        ptrace_scope 3). Asked once, before any student's program runs."""
        if not tracer.STRACE:
            return tracer.UNAVAILABLE
        where = tempfile.mkdtemp(prefix="iolab-tracer-")
        log = os.path.join(where, "log")
        try:
            proc = self.popen([os.path.realpath("/usr/bin/true")], cwd="/", binds=(),
                              trace=dict(log=log, calls=["execve"]),
                              stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
            try:
                _, err = proc.communicate(timeout=20)
            except subprocess.TimeoutExpired:
                self.stop(proc)
                err = b"timed out"
            finally:
                self.waited(proc)
            seen = any(e.kind == "call" and e.name == "execve" and e.ret == 0 for e in tracer.events(log)) \
                if os.path.exists(log) else False
            if proc.returncode == 0 and seen:
                return None
            why = err.decode("utf-8", "replace").strip().splitlines()
            return "strace cannot trace here" + (f" ({why[0][:200]})" if why else "")
        finally:
            shutil.rmtree(where, ignore_errors=True)

    def _bwrap_args(self, cwd, binds, ro_binds, env, seccomp=None, tmpfs=()):
        args = [self.bwrap, "--unshare-all", "--die-with-parent", "--new-session",
                "--ro-bind", "/usr", "/usr", "--proc", "/proc", "--dev", "/dev"]
        for top in ("/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32"):
            if os.path.islink(top):
                args += ["--symlink", os.readlink(top), top]
            elif os.path.isdir(top):
                args += ["--ro-bind", top, top]
        # What a C program and the compiler need of /etc, nothing more.
        for f in ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
                  "/etc/localtime"):
            if os.path.exists(f):
                args += ["--ro-bind", f, f]
        for d in ("/tmp", "/var/tmp", "/dev/shm"):
            args += ["--size", str(TMPFS_SIZE), "--tmpfs", d]
        for d in ro_binds:
            args += ["--ro-bind", d, d]
        for d in binds:
            args += ["--bind", d, d]
        for d in tmpfs:     # (mounted over what is bound above)
            args += ["--size", str(TMPFS_SIZE), "--tmpfs", d]
        for name, value in env.items():
            args += ["--setenv", name, value]
        if seccomp is not None:     # the program's filter, installed just before it starts
            args += ["--seccomp", str(seccomp)]
        return args + ["--chdir", cwd, "--"]

    def popen(self, argv, cwd, binds, ro_binds=(), use_bwrap=None, allow_io_uring=False,
              cpu=60, env=None, stdin=subprocess.DEVNULL, stdout=None, stderr=None, pass_fds=(),
              address_space=LIMIT_AS, reaper=False, trace=None, calls=()):
        """Starts argv contained, in cwd, as a new session.  env adds to
        the program's environment; inside bubblewrap it is set for the
        program only, not for bwrap (an LD_PRELOAD must not load into it).
        address_space: its RLIMIT_AS (RLIM_INFINITY for a ThreadSanitizer
        build, which reserves terabytes of shadow memory it never touches).
        allow_io_uring: lets it set up an io_uring, inside bubblewrap only
        (NO_IO_URING says why not outside), where it then runs in a tmpfs
        below cwd, which it may only read; calls: the other ON_REQUEST
        groups of system calls it may make (a lab's SYSTEM_CALLS).
        Landlock lets it read ro_binds and binds and write binds: argv[0]
        confines itself where reaper (grading/reaper.c does, after opening
        what it reads of /proc), else grading/confine.c does before it
        runs argv, outside bubblewrap (which could not start confined: it
        mounts; inside it, its mount namespace is the file system layer).
        reaper also sets the process limit (IOLAB_NPROC) where it counts
        the sandbox's alone, inside bubblewrap's user namespace; confine
        sets it only for a grading's own uid, as root. Not root and
        unsandboxed (--unsafe-no-sandbox) there is none: it would count
        every process of the user's.
        The system-call filter is installed by reaper where there is one
        (after bubblewrap has set up its namespaces, which the filter need
        not allow for), else by confine before argv runs: there, bubblewrap
        starts under the filter with what it needs to set up (BWRAP_SETUP)
        and installs the program's own (its --seccomp) before it starts
        the program.
        trace: tracer.command's arguments but env (log, calls, ...): the
        program runs under strace, which runs as the grader, outside the
        sandbox; as root the uid is left by setpriv, under strace."""
        if use_bwrap is None:
            use_bwrap = bool(self.bwrap)
        env = dict(env or {})
        if reaper and (use_bwrap or self.root):
            env["IOLAB_NPROC"] = str(LIMIT_NPROC)
        rules = None
        if self.landlock and (reaper or not use_bwrap):
            rules = landlock.ruleset(list(ro_binds) + list(binds), binds, self.landlock)
            if reaper:
                env["IOLAB_LANDLOCK_FD"] = str(rules)
                pass_fds = (*pass_fds, rules)
        # The filter, built here: the child, already the students' uid,
        # could not import anything from the grader's Python. The reaper
        # and bubblewrap read it from a pipe (it fits the pipe's buffer:
        # at most 64 KiB).
        fprog = seccomp_filter(allow_io_uring and use_bwrap, calls=calls)
        filter_fd = None
        if reaper or use_bwrap:
            filter_fd = _pipe_holding(fprog)
            pass_fds = (*pass_fds, filter_fd)
        if reaper:
            env["IOLAB_SECCOMP_FD"] = str(filter_fd)
        if use_bwrap:
            inside = cwd
            if allow_io_uring:
                # io_uring's fallocate (IORING_OP_FALLOCATE, which no filter
                # sees) took 1 GiB of blocks in 28 ms, FALLOC_FL_KEEP_SIZE
                # past RLIMIT_FSIZE: the whole disk between two looks of the
                # watchdog, for every grading beside it. The program writes
                # only in a tmpfs of bounded size mounted on a new directory
                # below its run directory (so below Landlock's rule for it),
                # which is bound read-only.
                inside = tempfile.mkdtemp(prefix="io-", dir=cwd)
                binds, ro_binds = (), (*ro_binds, *binds)
            argv = self._bwrap_args(inside, binds, ro_binds, env, None if reaper else filter_fd,
                                    tmpfs=(inside,) if inside != cwd else ()) + list(argv)
            env = {}
            # bubblewrap starts under the program's filter and what it needs to set up
            fprog = seccomp_filter(allow_io_uring, setup=True, calls=calls)
        if trace is not None:
            if self.root:
                argv = [SETPRIV, f"--reuid={self.uid}", f"--regid={self.gid}", "--clear-groups", "--", *argv]
            argv = tracer.command(**trace, env=env) + argv
            env = {}
        # Not on strace either (the filter refuses ptrace): a traced
        # student's program runs under the reaper, which installs it.
        own_filter = None if reaper or trace is not None else _pipe_holding(fprog)
        # Not strace: Landlock would keep it from writing its log (a traced
        # student's program runs under the reaper, which confines itself).
        confine = rules if rules is not None and not reaper and trace is None else None
        # grading/confine.c takes the argv's first steps, as the uid (which
        # leaves root, but not strace's: under the tracer, setpriv leaves
        # it) with its limits, keyring, Landlock and filter. The CPU limit
        # in whole seconds: a check near its time limit hands its programs
        # what is left of it, a float.
        steps = [f"cpu={math.ceil(cpu)}", f"fsize={LIMIT_FSIZE}", f"nofile={LIMIT_NOFILE}",
                 "as=" + ("unlimited" if address_space == resource.RLIM_INFINITY else str(address_space))]
        if self.root:   # a per-user count: only meaningful for an own uid
            steps.append(f"nproc={LIMIT_NPROC}")
            if trace is None:
                steps += [f"uid={self.uid}", f"gid={self.gid}"]
        for name, fd in (("landlock", confine), ("seccomp", own_filter)):
            if fd is not None:
                steps.append(f"{name}={fd}")
                pass_fds = (*pass_fds, fd)
        argv = [built("confine"), *steps, "--", *argv]
        base_env = {"PATH": "/usr/bin:/bin", "LANG": "C", "LC_ALL": "C", "HOME": cwd, "TMPDIR": cwd}
        try:
            # No preexec_fn, user or group: Python starts it with vfork.
            proc = subprocess.Popen(argv, cwd=cwd, env=dict(base_env, **env), stdin=stdin,
                                    stdout=stdout, stderr=stderr, start_new_session=True, pass_fds=pass_fds)
        finally:
            for fd in (rules, filter_fd, own_filter):
                if fd is not None:
                    os.close(fd)
        _unwaited.add(proc.pid)
        self._started = True
        return proc

    @staticmethod
    def waited(proc):
        """proc has been waited for: its pid may now be reaped as an orphan's."""
        _unwaited.discard(proc.pid)

    def stop(self, proc):
        """Kills proc's whole tree: its session, and, as root, the uid."""
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        proc.wait()
        self.waited(proc)
        self.end_processes()


class RefuseError(Exception):
    """The grader will not run students' code here."""
