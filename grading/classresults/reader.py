"""Reading submissions as hostile input.

A submission is a .tar.gz from `make handin` (one top directory,
iolab-handin/), a directory (unpacked, or a Gradescope folder holding the
uploaded tarball or files), or a folder inside Gradescope's "download all
submissions" zip. Only data/machine.txt, data/lab*.csv, data/labN-load.txt
(the scale and load verdict of each lab's run) and the student's
predictions.md (beside data/) are wanted. They
are read straight from the archive into memory; nothing is ever extracted to
disk, and nothing in a submission is trusted:

- tar headers are parsed here, checksum and all: only regular files (and
  directories, skipped) are accepted; a link, device, fifo or sparse file,
  an absolute name or one with a '..' component rejects the submission;
- sizes come from the headers, and a wanted file larger than MAX_FILE is
  refused before it is read;
- every byte unpacked counts against MAX_TOTAL, checked as the bytes come
  out of gzip, so a gzip bomb stops at the limit; MAX_MEMBERS bounds the
  count of headers;
- every header of the archive is checked, to its end (what is not wanted
  is read past, not kept), so that a submission is accepted or refused as a
  whole, as the grader does, whatever the order of its members;
- files in directories are opened with O_NOFOLLOW relative to their
  directory's descriptor: a symbolic link is refused, never followed.

Everything refused raises Rejected, whose message is one line saying why.
"""

import errno
import gzip
import os
import re
import stat
import zipfile
import zlib

MAX_TOTAL = 200 * 1024 * 1024	# bytes unpacked from one submission (grade.sh's limit too)
MAX_MEMBERS = 5000		# tar headers, or files in a zip folder
MAX_FILE = 8 * 1024 * 1024	# one data file
MAX_ZIP_ENTRIES = 500000	# a whole class's zip
MAX_META = 64 * 1024		# a pax or GNU long-name header's data

# The files wanted, as they appear under data/; KEY_RE names them.
KEY_RE = re.compile(r"(lab[0-9][A-Za-z0-9_-]{0,40}\.csv|lab[0-9]-load\.txt|machine\.txt)", re.ASCII)
# The student's predictions, beside data/ (make handin packs them there).
PREDICTIONS = "predictions.md"
# data/KEY or predictions.md, at the top of a submission or under one top directory.
WANTED_RE = re.compile(r"(?:[^/]+/)?(?:data/" + KEY_RE.pattern + r"|(predictions\.md))", re.ASCII)
TARBALL_RE = re.compile(r"[^/]+\.(tar\.gz|tgz)", re.ASCII)


class Rejected(Exception):
    """A submission that cannot be read safely; the message says why."""


def quote(name):
    """A name from inside a submission, as messages show it: «name», ASCII,
    at most 80 characters. public() hides what is between the marks."""
    return "\u00ab" + name[:80].encode("ascii", "backslashreplace").decode() + "\u00bb"


def plain(reason):
    """A reason as the instructor reads it: the names, without the marks."""
    return reason.replace("\u00ab", "").replace("\u00bb", "")


def public(reason):
    """A reason with every quoted name replaced: what left-out.csv, which
    may be shared with the class, says. (quote() leaves no mark inside.)"""
    return re.sub("\u00ab[^\u00bb]*\u00bb", "(a name)", reason)


def wanted_key(name):
    """data/lab1.csv (or TOP/data/lab1.csv) -> lab1.csv, TOP/predictions.md ->
    predictions.md; None if not wanted."""
    m = WANTED_RE.fullmatch(name)
    return (m.group(1) or m.group(2)) if m else None


def safe_name(raw):
    """A member's name, checked: relative, no '..', printable. Returns it
    without a leading './' or trailing '/'."""
    try:
        name = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise Rejected("a member name that is not UTF-8") from None
    shown = quote(name)
    if not name or "\0" in name or any(ord(c) < 32 for c in name):
        raise Rejected(f"a member name with control characters: {quote(repr(name))}")
    if name.startswith("/"):
        raise Rejected(f"an absolute member name: {shown}")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if ".." in parts:
        raise Rejected(f"a member name with '..': {shown}")
    if len(name) > 1024:
        raise Rejected("a member name longer than 1024 bytes")
    return "/".join(parts)


class Limited:
    """A binary stream that counts the bytes read through it and raises
    Rejected past `limit`."""

    def __init__(self, raw, limit, what):
        self.raw, self.limit, self.what, self.count = raw, limit, what, 0

    def read(self, n):
        data = self.raw.read(n)
        self.count += len(data)
        if self.count > self.limit:
            raise Rejected(f"{self.what}: more than {self.limit >> 20} MiB unpacked (a gzip bomb?)")
        return data

    def exact(self, n):
        """n bytes, or Rejected if the stream ends first."""
        chunks, left = [], n
        while left > 0:
            data = self.read(min(left, 1 << 16))
            if not data:
                raise Rejected(f"{self.what}: truncated")
            chunks.append(data)
            left -= len(data)
        return b"".join(chunks)

    def skip(self, n):
        while n > 0:
            data = self.read(min(n, 1 << 16))
            if not data:
                raise Rejected(f"{self.what}: truncated")
            n -= len(data)


def one_line(e):
    text = str(e).splitlines()[0][:120] if str(e) else type(e).__name__
    return text.encode("ascii", "backslashreplace").decode()


def _octal(field, what):
    if field[:1] and field[0] & 0x80:
        raise Rejected(f"{what}: a binary number field in a tar header")
    digits = field.replace(b"\0", b" ").strip()
    if not digits:
        return 0
    if not re.fullmatch(rb"[0-7]{1,12}", digits):
        raise Rejected(f"{what}: not a tar archive (bad number field in a header)")
    return int(digits, 8)


def _pax_records(data, what):
    """The path and size records of a pax extended header."""
    out, pos = {}, 0
    while pos < len(data):
        m = re.match(rb"([0-9]{1,6}) ", data[pos:pos + 8])
        if not m or int(m.group(1)) < len(m.group(0)) + 2:
            raise Rejected(f"{what}: a malformed pax header")
        end = pos + int(m.group(1))
        record = data[pos + len(m.group(0)):end]
        if end > len(data) or not record.endswith(b"\n") or b"=" not in record:
            raise Rejected(f"{what}: a malformed pax header")
        key, value = record[:-1].split(b"=", 1)
        if key in (b"path", b"size"):
            out[key.decode()] = value
        pos = end
    return out


def read_tar(stream, what, wanted):
    """Reads a tar stream (an object with read(n), already decompressed and
    Limited) to its end, checking every header, keeping the files whose key
    is in `wanted`. Returns {key: bytes}, key as wanted_key() gives it."""
    found, members, pax, longname = {}, 0, {}, None
    zero = bytes(512)
    while True:
        header = stream.read(512)
        if len(header) == 0:
            break		# no end-of-archive blocks: tolerated
        if len(header) < 512:
            header += stream.exact(512 - len(header))
        if header == zero:
            break
        members += 1
        if members > MAX_MEMBERS:
            raise Rejected(f"{what}: more than {MAX_MEMBERS} members")
        chksum = _octal(header[148:156], what)
        if chksum != sum(header[:148]) + 8 * 32 + sum(header[156:]):
            raise Rejected(f"{what}: not a tar archive (header checksum)")
        kind = header[156:157]
        size = _octal(header[124:136], what)
        name = header[:100].split(b"\0", 1)[0]
        if header[257:263] == b"ustar\0":	# POSIX: a prefix for long names
            prefix = header[345:500].split(b"\0", 1)[0]
            if prefix:
                name = prefix + b"/" + name
        if kind in (b"x", b"g", b"L", b"K"):	# metadata for the next member
            if size > MAX_META:
                raise Rejected(f"{what}: a {size}-byte pax or long-name header")
            data = stream.exact(size)
            stream.skip(-size % 512)
            if kind == b"x":
                pax = _pax_records(data, what)
            elif kind == b"L":
                longname = data.split(b"\0", 1)[0]
            continue
        if longname is not None:
            name = longname
        if "path" in pax:
            name = pax["path"]
        if "size" in pax:
            if not re.fullmatch(rb"[0-9]{1,15}", pax["size"]):
                raise Rejected(f"{what}: a pax size that is not a number")
            size = int(pax["size"])
        pax, longname = {}, None
        try:
            name = safe_name(name)
        except Rejected as e:
            raise Rejected(f"{what}: {e}") from None
        shown = quote(name)
        if kind == b"5":
            pass		# a directory: nothing to read
        elif kind not in (b"0", b"\0", b"7"):
            kinds = {b"1": "a hard link", b"2": "a symbolic link", b"3": "a device",
                     b"4": "a device", b"6": "a fifo", b"S": "a sparse file"}
            raise Rejected(f"{what}: {shown} is {kinds.get(kind, 'not a regular file')}, "
                           "not a regular file")
        key = wanted_key(name) if kind != b"5" else None
        if key in wanted:
            if key in found:
                raise Rejected(f"{what}: data/{key} is in the archive twice")
            if size > MAX_FILE:
                raise Rejected(f"{what}: {shown} has {size} bytes, more than {MAX_FILE >> 20} MiB")
            found[key] = stream.exact(size)
            stream.skip(-size % 512)
        else:
            stream.skip(size + (-size % 512))
    return found


def read_targz(raw, what, wanted):
    """A .tar.gz from an open binary stream (a file, or a zip member)."""
    compressed = Limited(raw, MAX_TOTAL, what)
    try:
        with gzip.GzipFile(fileobj=compressed, mode="rb") as gz:
            return read_tar(Limited(gz, MAX_TOTAL, what), what, wanted)
    except (OSError, EOFError, zlib.error, zipfile.BadZipFile) as e:
        # gzip.BadGzipFile is an OSError; a zip member's CRC error a BadZipFile
        raise Rejected(f"{what}: not a readable .tar.gz ({one_line(e)})") from None


# ------------------------------------------------------------ directories

def _open_nofollow(name, dir_fd, directory=False):
    flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_CLOEXEC | os.O_NONBLOCK
    if directory:
        flags |= os.O_DIRECTORY
    try:
        return os.open(name, flags, dir_fd=dir_fd)
    except OSError as e:
        if e.errno == errno.ELOOP:
            raise Rejected(f"{quote(name)} is a symbolic link") from None
        if e.errno == errno.ENOTDIR:
            raise Rejected(f"{quote(name)} is not a directory") from None
        raise Rejected(f"{quote(name)}: {e.strerror}") from None


def _read_regular(name, dir_fd, limit):
    fd = _open_nofollow(name, dir_fd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise Rejected(f"{quote(name)} is not a regular file")
        if st.st_size > limit:
            raise Rejected(f"{quote(name)} has {st.st_size} bytes, more than {limit >> 20} MiB")
        chunks, total = [], 0
        while True:
            data = os.read(fd, 1 << 16)
            if not data:
                return b"".join(chunks)
            total += len(data)
            if total > limit:
                raise Rejected(f"{quote(name)} grew past {limit >> 20} MiB while read")
            chunks.append(data)
    finally:
        os.close(fd)


def _listing(dir_fd, what):
    """{name: 'file' | 'dir' | 'other'} of one directory, bounded."""
    out = {}
    with os.scandir(dir_fd) as it:
        for entry in it:
            if len(out) >= MAX_MEMBERS:
                raise Rejected(f"{what}: more than {MAX_MEMBERS} entries")
            if entry.is_symlink():
                out[entry.name] = "link"
            elif entry.is_dir(follow_symlinks=False):
                out[entry.name] = "dir"
            elif entry.is_file(follow_symlinks=False):
                out[entry.name] = "file"
            else:
                out[entry.name] = "other"
    return out


def _pick_tarball(names, what):
    """The one tarball among names (make handin's name wins), or None."""
    tarballs = sorted(n for n in names if TARBALL_RE.fullmatch(n.rsplit("/", 1)[-1]))
    if len(tarballs) > 1:
        named = [n for n in tarballs if n.rsplit("/", 1)[-1] == "iolab-handin.tar.gz"]
        if len(named) != 1:
            raise Rejected(f"{what}: several .tar.gz files, none of them iolab-handin.tar.gz")
        return named[0]
    return tarballs[0] if tarballs else None


def read_directory(path, what, wanted):
    """A submission directory: a tarball in it (a Gradescope folder), else
    its data/ (at the top or in one folder below), else the data files at
    its top (files uploaded one by one)."""
    top = _open_nofollow(path, None, directory=True)
    try:
        names = _listing(top, what)
        bad = sorted(n for n, k in names.items() if k in ("link", "other"))
        if bad:
            raise Rejected(f"{what}: {quote(bad[0])} is a link or special file")
        tarball = _pick_tarball([n for n, k in names.items() if k == "file"], what)
        if tarball:
            fd = _open_nofollow(tarball, top)
            with os.fdopen(fd, "rb") as f:
                if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
                    raise Rejected(f"{what}: {quote(tarball)} is not a regular file")
                return read_targz(f, f"{what}/{quote(tarball)}", wanted)
        data_dirs = [n for n, k in names.items() if k == "dir" and n == "data"]
        if not data_dirs:
            for sub, kind in sorted(names.items()):
                if kind != "dir" or sub.startswith("."):
                    continue
                fd = _open_nofollow(sub, top, directory=True)
                try:
                    if _listing(fd, what).get("data") == "dir":
                        data_dirs.append(sub + "/data")
                finally:
                    os.close(fd)
            if len(data_dirs) > 1:
                raise Rejected(f"{what}: data/ in several folders")
        found = {}
        if data_dirs:
            # predictions.md, beside data/
            parent = data_dirs[0].rsplit("/", 1)[0] if "/" in data_dirs[0] else None
            fd = top if parent is None else _open_nofollow(parent, top, directory=True)
            try:
                if PREDICTIONS in wanted and _listing(fd, what).get(PREDICTIONS) == "file":
                    found[PREDICTIONS] = _read_regular(PREDICTIONS, fd, MAX_FILE)
            finally:
                if fd != top:
                    os.close(fd)
            fd = top
            for part in data_dirs[0].split("/"):
                nxt = _open_nofollow(part, fd, directory=True)
                if fd != top:
                    os.close(fd)
                fd = nxt
            try:
                for name, kind in sorted(_listing(fd, what).items()):
                    if name in wanted:
                        if kind != "file":
                            raise Rejected(f"{what}: data/{name} is not a regular file")
                        found[name] = _read_regular(name, fd, MAX_FILE)
            finally:
                os.close(fd)
        else:
            for name, kind in sorted(names.items()):
                if name in wanted and kind == "file":
                    found[name] = _read_regular(name, top, MAX_FILE)
        return found
    finally:
        os.close(top)


def read_path(path, what, wanted):
    """A submission on disk: a .tar.gz or a directory."""
    try:
        st = os.lstat(path)
    except OSError as e:
        raise Rejected(f"{what}: {e.strerror}") from None
    if stat.S_ISLNK(st.st_mode):
        raise Rejected(f"{what} is a symbolic link")
    if stat.S_ISDIR(st.st_mode):
        return read_directory(path, what, wanted)
    fd = _open_nofollow(path, None)
    with os.fdopen(fd, "rb") as f:
        if not stat.S_ISREG(os.fstat(f.fileno()).st_mode):
            raise Rejected(f"{what} is not a regular file")
        return read_targz(f, what, wanted)


# ------------------------------------------------------------ a class's zip

def zip_submissions(zf):
    """Gradescope's export zip: {folder name: [ZipInfo of its files]}.
    The export's root is the folder holding submission_metadata.yml (or
    the zip's one top folder); each folder below it is a submission."""
    infos = zf.infolist()
    if len(infos) > MAX_ZIP_ENTRIES:
        raise Rejected(f"more than {MAX_ZIP_ENTRIES} entries in the zip")
    names = [i.filename for i in infos]
    metas = sorted((n for n in names if n.rsplit("/", 1)[-1] == "submission_metadata.yml"),
                   key=lambda n: n.count("/"))
    if metas:
        root = metas[0][:-len("submission_metadata.yml")]
    else:
        tops = {n.split("/", 1)[0] for n in names}
        only = next(iter(tops)) if len(tops) == 1 else None
        root = only + "/" if only and all("/" in n for n in names) else ""
    groups = {}
    for info in infos:
        if not info.filename.startswith(root):
            continue
        rest = info.filename[len(root):]
        if "/" not in rest:
            continue		# the metadata file, or a stray file at the root
        folder, inner = rest.split("/", 1)
        if folder and not folder.startswith("."):
            entries = groups.setdefault(folder, [])
            # `zip -r` records each directory, the folder's own too: no file
            if inner and not info.is_dir():
                entries.append((inner, info))
    return groups


def read_zip_folder(zip_path, entries, what, wanted):
    """One submission of a class zip: [(name inside its folder, ZipInfo)]."""
    files = {}
    with zipfile.ZipFile(zip_path) as zf:
        for inner, info in entries:
            if len(files) >= MAX_MEMBERS:
                raise Rejected(f"{what}: more than {MAX_MEMBERS} files")
            if info.is_dir():
                continue
            name = safe_name(inner.encode("utf-8"))
            if not name:
                continue
            kind = stat.S_IFMT(info.external_attr >> 16)	# 0: no Unix mode recorded
            if kind and kind not in (stat.S_IFREG, stat.S_IFDIR):
                raise Rejected(f"{what}: {quote(name)} is a link or special file")
            if info.flag_bits & 0x1:
                raise Rejected(f"{what}: {quote(name)} is encrypted")
            files[name] = info
        tarball = _pick_tarball(list(files), what)
        if tarball and tarball.count("/") <= 1:
            info = files[tarball]
            if info.file_size > MAX_TOTAL:
                raise Rejected(f"{what}: {quote(tarball)} is larger than {MAX_TOTAL >> 20} MiB")
            with zf.open(info) as member:
                return read_targz(member, f"{what}/{quote(tarball)}", wanted)
        found = {}
        for name, info in sorted(files.items()):
            key = wanted_key(name) or name
            if key not in wanted:
                continue
            if key in found:
                raise Rejected(f"{what}: data/{key} twice")
            if info.file_size > MAX_FILE:
                raise Rejected(f"{what}: {quote(name)} has {info.file_size} bytes, "
                               f"more than {MAX_FILE >> 20} MiB")
            try:
                with zf.open(info) as member:
                    found[key] = Limited(member, MAX_FILE, what).read(MAX_FILE + 1)
            except (OSError, EOFError, zlib.error, zipfile.BadZipFile) as e:
                raise Rejected(f"{what}: {quote(name)} cannot be read ({one_line(e)})") from None
        return found
