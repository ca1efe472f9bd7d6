"""Runs a command under the grader's system-call filter (sandbox.py's
program filter: the calls a lab asks for none of), as it is, nothing else
of the sandbox:

    python3 grading/under_filter.py [--chroot DIR] [--log] -- COMMAND [ARG...]

--chroot DIR: in DIR, entered before the filter (which has no chroot).
--log: the calls off the list are allowed and logged by the kernel
(IOLAB_SECCOMP_LOG) instead of failing with ENOSYS.
CI's .ci/toolchains builds the kit with other compilers this way (the
newest gcc and clang Debian has, in a chroot): a toolchain that needs a
call the list lacks fails there first, not in a student's grading."""

import argparse
import os
import sys

if __name__ == "__main__":  # run as a file: the kit's root in place of this folder (see grade.py)
    HERE = os.path.dirname(os.path.realpath(__file__))
    sys.path[0:1 if sys.path and os.path.realpath(sys.path[0]) == HERE else 0] = [os.path.dirname(HERE)]
from grading import sandbox  # noqa: E402


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--chroot")
    ap.add_argument("--log", action="store_true")
    ap.add_argument("command", nargs=argparse.REMAINDER)
    args = ap.parse_args()
    command = args.command[1:] if args.command[:1] == ["--"] else args.command
    if not command:
        ap.error("no command")
    if args.log:
        os.environ["IOLAB_SECCOMP_LOG"] = "1"
    fprog = sandbox._filter_program(sandbox.seccomp_filter(False))
    os.environ.pop("IOLAB_SECCOMP_LOG", None)
    if args.chroot:
        os.chroot(args.chroot)
        os.chdir("/")
    sandbox._install_seccomp(fprog)
    try:
        os.execvp(command[0], command)
    except OSError as e:
        sys.exit(f"under_filter: {command[0]}: {e.strerror}")


if __name__ == "__main__":
    main()
