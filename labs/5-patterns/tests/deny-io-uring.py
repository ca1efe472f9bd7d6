#!/usr/bin/env python3
"""deny-io-uring.py ERRNO COMMAND [ARG...] - runs COMMAND where io_uring_setup(2)
fails with ERRNO (ENOSYS or EPERM), the way a container's seccomp filter or
an old kernel refuses io_uring. Every other system call is allowed.

The filter is a real seccomp filter (seccomp(2), as Docker's default profile
installs one), set with prctl() and kept across the exec, so the program
under test meets the refusal through its ordinary code path.
"""
import ctypes
import errno
import os
import struct
import sys

PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
SECCOMP_RET_ERRNO, SECCOMP_RET_ALLOW = 0x00050000, 0x7FFF0000
AUDIT_ARCH_X86_64, AUDIT_ARCH_AARCH64 = 0xC000003E, 0xC00000B7
NR_IO_URING_SETUP = 425  # the same number on x86-64 and arm64
LD_W_ABS, JEQ_K, RET_K = 0x20, 0x15, 0x06  # BPF_LD|BPF_W|BPF_ABS, BPF_JMP|BPF_JEQ|BPF_K, BPF_RET|BPF_K


def insn(code, jt, jf, k):
    return struct.pack("HBBI", code, jt, jf, k)


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("ENOSYS", "EPERM"):
        sys.exit("usage: deny-io-uring.py ENOSYS|EPERM COMMAND [ARG...]")
    err = getattr(errno, sys.argv[1])
    # struct seccomp_data: nr at offset 0, arch at 4. Jumps count from the
    # next instruction.
    program = b"".join([
        insn(LD_W_ABS, 0, 0, 4),                      # 0: A = arch
        insn(JEQ_K, 1, 0, AUDIT_ARCH_X86_64),         # 1: -> 3
        insn(JEQ_K, 0, 3, AUDIT_ARCH_AARCH64),        # 2: -> 3, else -> 6
        insn(LD_W_ABS, 0, 0, 0),                      # 3: A = syscall number
        insn(JEQ_K, 0, 1, NR_IO_URING_SETUP),         # 4: -> 5, else -> 6
        insn(RET_K, 0, 0, SECCOMP_RET_ERRNO | err),   # 5: fail with err
        insn(RET_K, 0, 0, SECCOMP_RET_ALLOW),         # 6: allow
    ])
    filters = ctypes.create_string_buffer(program, len(program))
    # struct sock_fprog { unsigned short len; struct sock_filter *filter; }
    fprog = struct.pack("HxxxxxxP", len(program) // 8, ctypes.addressof(filters))
    fprog_buf = ctypes.create_string_buffer(fprog, len(fprog))
    libc = ctypes.CDLL(None, use_errno=True)
    ulong = ctypes.c_ulong
    if libc.prctl(PR_SET_NO_NEW_PRIVS, ulong(1), ulong(0), ulong(0), ulong(0)) != 0 or \
            libc.prctl(PR_SET_SECCOMP, ulong(SECCOMP_MODE_FILTER),
                       ulong(ctypes.addressof(fprog_buf)), ulong(0), ulong(0)) != 0:
        e = ctypes.get_errno()
        sys.exit(f"deny-io-uring.py: prctl: {os.strerror(e)}")
    os.execvp(sys.argv[2], sys.argv[2:])


if __name__ == "__main__":
    main()
