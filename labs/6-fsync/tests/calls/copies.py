"""copies.py - fsrecord's copies family, in the kernel: copy_file_range
with and without offsets, sendfile with and without one, from a file
there at the start and from one written under the recording (what it
held at the copy, not at the end); an fsync of the first copy only.
"splice" as the argument: a file to a file through a pipe (the
recorder follows the pipe's bytes), then bytes it does not see
(vmsplice) through it, which the kit cannot model."""
import ctypes
import os
import sys

src = os.open("src", os.O_RDONLY)               # "0123456789", there at the start
if sys.argv[1:2] == ["splice"]:
    r, w = os.pipe()
    out = os.open("s", os.O_WRONLY | os.O_CREAT, 0o644)
    os.write(w, b"ab")
    os.splice(src, w, 4, offset_src=2)         # ab2345 in the pipe
    os.read(r, 1)                               # b2345
    os.splice(r, out, 3)                        # s: b23
    os.splice(r, out, 2, offset_dst=10)         # s: b23, zeros, 45 at 10
    if sys.argv[2:] == ["vmsplice"]:
        buf = ctypes.create_string_buffer(b"x")
        iov = (ctypes.c_void_p * 2)(ctypes.addressof(buf), 1)     # one iovec
        if ctypes.CDLL(None).vmsplice(w, iov, 1, 0) != 1:
            sys.exit(1)
        os.splice(r, out, 1)
    sys.exit(0)
a = os.open("a", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.copy_file_range(src, a, 4)                   # 0123, src's offset now 4
os.copy_file_range(src, a, 2, 8, 6)             # 89 at 6: a is 0123\0\089
os.fsync(a)
b = os.open("b", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.sendfile(b, src, None, 3)                    # 456, src's offset 4 -> 7
os.sendfile(b, src, 0, 1)                       # 0, src's offset left at 7
w = os.open("w", os.O_RDWR | os.O_CREAT | os.O_TRUNC, 0o644)
os.write(w, b"old")
c = os.open("c", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
os.copy_file_range(w, c, 3, 0)                  # old: what w holds now
os.pwrite(w, b"new", 0)
