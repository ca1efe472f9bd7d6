"""Landlock rulesets for students' programs: a layer that needs no
namespaces and no privilege, so it holds where bubblewrap cannot start
(Gradescope's Docker).

The grader (as root, or as itself) builds a ruleset: read and execute
only the system's directories a C program and the compiler need and the
run's own directories, write only the run directory, no TCP bind or
connect (Landlock ABI >= 4), and, from ABI 6, no abstract Unix socket and
no signal that leaves the sandbox.  The program side restricts itself to
it (landlock_restrict_self): the reaper (grading/reaper.c) after it has
opened /proc/self/io, or grading/confine.c just before it runs the
program.  The rules name inodes, not paths, so a ruleset built outside
bubblewrap holds inside it too, and they hold for io_uring's operations
(its connect included) as for system calls.

Where the kernel has no Landlock, abi() is 0 and ruleset() None: the
report says so and the other layers stay.
"""

import ctypes
import os
import stat
import struct

_LIBC = ctypes.CDLL(None, use_errno=True)
# The same numbers on every architecture (the generic system-call table).
_CREATE_RULESET, _ADD_RULE = 444, 445
_CREATE_RULESET_VERSION = 1
_RULE_PATH_BENEATH = 1

# File system rights, by the ABI that brought them.
EXECUTE, WRITE_FILE, READ_FILE, READ_DIR = 1 << 0, 1 << 1, 1 << 2, 1 << 3
_FS_BY_ABI = {1: (1 << 13) - 1, 2: (1 << 14) - 1, 3: (1 << 15) - 1, 5: (1 << 16) - 1}
_TRUNCATE, _IOCTL_DEV = 1 << 14, 1 << 15
_FILE_RIGHTS = EXECUTE | WRITE_FILE | READ_FILE | _TRUNCATE | _IOCTL_DEV   # what a rule on a file may hold
_NET_TCP = 0b11                   # bind and connect, ABI 4
_SCOPES = 0b11                    # abstract Unix sockets and signals, ABI 6

READ = EXECUTE | READ_FILE | READ_DIR
WRITE = READ | _FS_BY_ABI[5]      # everything in the directory (cut to the ABI's rights)

# What a C program, make and the compiler read and run.  /proc is not
# here: a program sees no other process through it (the reaper opens its
# own /proc/self/io before it restricts itself), only /proc/meminfo,
# which Lab 3's fillcopy reads.  Of /sys, what glibc's get_nprocs and the
# kit's huge-page code read.
SYSTEM_READ = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
               "/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d", "/etc/alternatives",
               "/etc/localtime", "/proc/meminfo", "/sys/devices/system/cpu",
               "/sys/kernel/mm/transparent_hugepage", "/dev/zero", "/dev/urandom", "/dev/random")
SYSTEM_WRITE = ("/dev/null", "/dev/full")


def abi():
    """The Landlock ABI version the kernel offers, 0 where it has none
    (too old, built without it, or left out of the boot's LSM list)."""
    v = _LIBC.syscall(_CREATE_RULESET, None, ctypes.c_size_t(0), ctypes.c_uint32(_CREATE_RULESET_VERSION))
    return max(v, 0)


def handled(version):
    """(fs, net, scoped): the rights a ruleset of ABI version handles."""
    fs = max(v for k, v in _FS_BY_ABI.items() if k <= version)
    return fs, (_NET_TCP if version >= 4 else 0), (_SCOPES if version >= 6 else 0)


def ruleset(reads, writes, version=None):
    """A ruleset's descriptor (close-on-exec: pass it on explicitly) that
    allows READ under reads and WRITE under writes, besides the system's
    directories, and handles every right of ABI version (the kernel's by
    default): all else is refused.  None without Landlock.  Paths that do
    not exist are left out."""
    version = abi() if version is None else version
    if version < 1:
        return None
    fs, net, scoped = handled(version)
    attr = struct.pack("QQQ", fs, net, scoped)
    size = 24 if version >= 6 else 16
    buf = ctypes.create_string_buffer(attr, len(attr))
    fd = _LIBC.syscall(_CREATE_RULESET, buf, ctypes.c_size_t(size), ctypes.c_uint32(0))
    if fd < 0:
        e = ctypes.get_errno()
        raise OSError(e, f"landlock_create_ruleset: {os.strerror(e)}")
    try:
        for paths, rights in ((SYSTEM_READ, READ), (reads, READ), (SYSTEM_WRITE, READ | WRITE_FILE | _TRUNCATE),
                              (writes, WRITE)):
            for path in paths:
                _allow(fd, path, rights & fs)
    except BaseException:
        os.close(fd)
        raise
    return fd


def _allow(fd, path, rights):
    try:
        target = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except FileNotFoundError:
        return
    try:
        if not stat.S_ISDIR(os.fstat(target).st_mode):
            rights &= _FILE_RIGHTS
        rule = ctypes.create_string_buffer(struct.pack("=Qi", rights, target), 12)
        if _LIBC.syscall(_ADD_RULE, fd, _RULE_PATH_BENEATH, rule, ctypes.c_uint32(0)) != 0:
            e = ctypes.get_errno()
            raise OSError(e, f"landlock_add_rule {path}: {os.strerror(e)}")
    finally:
        os.close(target)
