"""A submission, copied into the grader's own directory without trusting it.

A .tar.gz is read as a stream, member by member: only regular files and
directories with relative names and no "..", within a count limit, and a
limit on every byte that comes out of the gzip stream (headers and skipped
data included), enforced while reading, so that a gzip bomb stops at the
limit instead of being listed first.  A directory submission is copied the
same way: regular files and directories only, never through a link, and
never deeper than MAX_DEPTH (a walk that recursed would break on a tree a
thousand directories deep).  A refusal says why in one line: over the size
limit, it names the largest files.
"""

import gzip
import os
import stat
import tarfile

MAX_BYTES = 200 << 20   # all that a submission may unpack to
MAX_ENTRIES = 5000
MAX_DEPTH = 16          # make handin's deepest path has 4 parts
# What a tar header may hold, checked before tarfile reads, splits or
# decodes it: a GNU long name (or link name) and a pax header are read whole
# into memory, and every member's name and pax records are kept until the
# end, so unbounded ones let a 150 KB tarball take gigabytes.
MAX_NAME = 4096         # bytes of a name or link name: PATH_MAX (make handin's are under 60)
MAX_PAX = 8192          # bytes of one pax header
MAX_PAX_RECORDS = 32    # records a member's pax headers hold (GNU tar writes at most about 12)


class Refused(Exception):
    """The submission is not accepted; the message says why."""


class _TooBig(Exception):
    """More than MAX_BYTES came out."""


def _too_big(sizes):
    """The refusal over the size limit, naming the largest files."""
    largest = sorted(sizes, key=lambda s: -s[0])[:3]
    names = ", ".join(f"{_shown(name)} ({size >> 20} MiB)" for size, name in largest)
    return Refused(f"unpacks to more than {MAX_BYTES >> 20} MiB" + (f"; its largest files: {names}" if names else ""))


def _shown(name):
    """A member's name for a message: short, and escaped by the caller's clean()."""
    return repr(name if len(name) <= 80 else name[:80] + "...")


class _Capped:
    """A file object that refuses to give more than limit bytes."""

    def __init__(self, f, limit):
        self.f, self.left = f, limit

    def read(self, n=-1):
        data = self.f.read(self.left + 1 if n < 0 else min(n, self.left + 1))
        self.left -= len(data)
        if self.left < 0:
            raise _TooBig()
        return data


class _Header(tarfile.TarInfo):
    """A member whose header is checked before tarfile processes it."""

    def _proc_member(self, tar):
        # GNU's old sparse format reads extension blocks for as long as they
        # say more follow: refused before any is read
        if self.type == tarfile.GNUTYPE_SPARSE:
            raise Refused(f"not a plain file or directory: {_shown(self.name)}")
        if self.type in (tarfile.GNUTYPE_LONGNAME, tarfile.GNUTYPE_LONGLINK) and self.size > MAX_NAME:
            raise Refused(f"a GNU long name of {self.size} bytes (at most {MAX_NAME})")
        if self.type in (tarfile.XHDTYPE, tarfile.XGLTYPE, tarfile.SOLARIS_XHDTYPE) and self.size > MAX_PAX:
            raise Refused(f"a pax header of {self.size} bytes (at most {MAX_PAX})")
        return super()._proc_member(tar)


def _safe_name(name):
    parts = name.split("/")
    if name.startswith("/") or ".." in parts or "\0" in name:
        raise Refused(f"unsafe path: {_shown(name)}")
    parts = [p for p in parts if p not in ("", ".")]
    if len(parts) > MAX_DEPTH:
        raise Refused(f"a path {len(parts)} directories deep (at most {MAX_DEPTH}): {_shown(name)}")
    return "/".join(parts)


def _make_file(dest, rel, reader):
    path = os.path.join(dest, rel)
    os.makedirs(os.path.dirname(path), mode=0o700, exist_ok=True)
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(fd, "wb") as out:
        while True:
            chunk = reader(1 << 16)
            if not chunk:
                break
            out.write(chunk)


def unpack_tar(path, dest):
    sizes = []      # (size, name) of the files so far, for a refusal over the size limit
    try:
        raw = gzip.open(path, "rb")
        with tarfile.open(fileobj=_Capped(raw, MAX_BYTES), mode="r|", tarinfo=_Header) as tar:
            count = 0
            for m in tar:
                count += 1
                if count > MAX_ENTRIES:
                    raise Refused(f"more than {MAX_ENTRIES} entries")
                rel = _safe_name(m.name)
                # tarfile keeps every member: each kept small
                if len(m.name) > MAX_NAME or len(m.linkname) > MAX_NAME:
                    raise Refused(f"a name of more than {MAX_NAME} characters: {_shown(m.name)}")
                if len(m.pax_headers) > MAX_PAX_RECORDS:
                    raise Refused(f"{_shown(m.name)} has {len(m.pax_headers)} pax records (at most {MAX_PAX_RECORDS})")
                sizes.append((m.size, m.name[:100]))
                if m.size > MAX_BYTES:
                    raise _too_big(sizes)
                if m.isdir():
                    if rel:
                        os.makedirs(os.path.join(dest, rel), mode=0o700, exist_ok=True)
                    continue
                if m.type not in (tarfile.REGTYPE, tarfile.AREGTYPE) or m.sparse is not None or \
                        any(k.startswith("GNU.sparse") for k in m.pax_headers):
                    raise Refused(f"not a plain file or directory: {m.name!r}")
                if not rel:
                    raise Refused(f"unsafe path: {m.name!r}")
                src = tar.extractfile(m)
                try:
                    _make_file(dest, rel, src.read)
                except FileExistsError:
                    raise Refused(f"{m.name!r} appears twice") from None
    except Refused:
        raise
    except _TooBig:
        raise _too_big(sizes) from None
    except (OSError, EOFError, tarfile.TarError, gzip.BadGzipFile, RecursionError, ValueError) as e:
        raise Refused(f"not a readable .tar.gz ({type(e).__name__}: {str(e)[:200]})") from None


def copy_dir(src, dest):
    total = count = 0
    sizes = []
    todo = [""]     # directories to copy, relative to src: a walk without recursion
    while todo:
        top = todo.pop()
        if top.count("/") + 1 > MAX_DEPTH:
            raise Refused(f"a path more than {MAX_DEPTH} directories deep: {_shown(top)}")
        for name in sorted(os.listdir(os.path.join(src, top))):
            rel = os.path.join(top, name)
            p = os.path.join(src, rel)
            st = os.lstat(p)
            count += 1
            if count > MAX_ENTRIES:
                raise Refused(f"more than {MAX_ENTRIES} entries")
            if stat.S_ISDIR(st.st_mode):
                os.makedirs(os.path.join(dest, rel), mode=0o700, exist_ok=True)
                todo.append(rel)
            elif stat.S_ISREG(st.st_mode):
                total += st.st_size
                sizes.append((st.st_size, rel[:100]))
                if total > MAX_BYTES:
                    raise _too_big(sizes)
                fd = os.open(p, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
                with os.fdopen(fd, "rb") as f:
                    _make_file(dest, rel, f.read)
            else:
                raise Refused(f"links or special files are not accepted: {rel}")


def unpack(submission, dest):
    """Copies submission (a .tar.gz or a directory) into dest; make handin's
    one top directory is stepped into."""
    os.makedirs(dest, mode=0o700)
    if os.path.isdir(submission) and not os.path.islink(submission):
        copy_dir(submission, dest)
    elif os.path.isfile(submission):
        unpack_tar(submission, dest)
    else:
        raise Refused("no such file or directory")
    entries = os.listdir(dest)
    if "labs" not in entries and len(entries) == 1 and os.path.isdir(os.path.join(dest, entries[0])):
        return os.path.join(dest, entries[0])
    return dest
