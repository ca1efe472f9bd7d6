#!/usr/bin/env python3
"""crashstates - Lab 6: every state a power cut could leave on the disk,
from a log of the calls a program made (bin/fsrecord), and which of
them a checker finds broken.

  bin/crashstates [--model NAME|FILE[,...]] --check 'CMD ARGS' [--max-states N]
                  [--seed S] [--jobs N] [--scratch DIR] [--keep DIR] [--csv] LOG

A crash can happen after any call. What a sync made durable is on the
disk; what was not synced may be there, or not, or part of it (one block
of a write and not the next), in the orders the model allows. A model is
a data file in labs/6-fsync/models/, its rules and the sentences of its
sources written in it: posix (what POSIX promises), alice-apm (ALICE's
abstract persistence model: a rename in three steps, an append's size
before its data), ext4-ordered (ext4's default mount, ALICE's "ext4
ordered"), ext4-noauto_da_alloc and btrfs (an fsync logs the file's
names). Names live in directories, as on a disk: a file whose
directory's mkdir was lost is unreachable, a renamed directory takes
what is in it along.

The checker's contract. CMD runs once per distinct state, in a scratch
directory holding that state's files (the root the log was recorded in),
as its working directory; a program given by a relative path
(../../bin/saver) is found from the directory crashstates started in,
its arguments name the state's files. One more argument is added:
"during" (the crash came while the program ran) or "after" (it had
ended: what it said it saved must be there). It exits 0 when the state
is fine, 1 when it is broken, its first line of output saying why; any
other exit, a signal, or more than 10 s stops crashstates (exit 1)
naming the checker. Its stdin is /dev/null; what it leaves in the
directory is removed. --jobs checkers run at once (default: one per
CPU), each on a state of its own.

Printed, per model (default posix; several, comma-separated, share the
checker's verdicts): the states built, those broken, and the shortest
way to a broken one, call by call. Every set of operations a crash point
allows is built while there are at most --max-states (default 2000, for
all the crash points of a model; a point with few gets all of its own);
beyond, a point's sets are drawn at random (--seed, default 1), and the
line says at how many points and what share of their sets it saw.
--keep DIR: the files of that broken state, to read (one model). --csv:
a row a model instead (and the sampling, when there was some, on
stderr).

Exit status: 0 when every state was checked (broken ones or not), 1 when
the log, the model or the checker fails (one line says which), 2 for a bad
command line. Nothing is left in the scratch directory.
"""

import argparse
import collections
import concurrent.futures
import hashlib
import itertools
import os
import random
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile

PROG = "crashstates"
MODELS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "models")
MAX_LOG = 64 << 20          # bytes of log read
MAX_FILE = 16 << 20         # bytes of one file in a state
CHECK_TIMEOUT = 10          # seconds a checker may take on one state
KINDS = ("open", "write", "truncate", "sync", "sync-all", "rename", "link", "unlink", "mkdir", "close", "none")
RULES = {"metadata": ("ordered", "any"), "data": ("prefix", "any"), "fsync": ("file", "journal", "file-and-names"),
         "rename": ("atomic", "steps"), "append": ("with-data", "size-first"),
         "new-blocks": ("any", "after-metadata"), "rename-flushes-data": ("yes", "no"),
         "close-after-truncate": ("flushes", "no")}


class Bad(Exception):
    """The log, the model or the checker: one line, exit 1."""


# ------------------------------------------------------------------ the model

class Model:
    def __init__(self, path):
        self.path, self.name, self.block, self.calls, self.rules = path, None, 4096, {}, {}
        try:
            with open(path) as f:
                lines = f.read(1 << 20).splitlines()
        except OSError as e:
            raise Bad(f"{path}: {e.strerror}") from None
        for n, line in enumerate(lines, 1):
            words = line.split("#", 1)[0].split()
            if not words:
                continue
            key, args = words[0], words[1:]
            if key == "name" and len(args) == 1:
                self.name = args[0]
            elif key == "block" and len(args) == 1 and args[0].isdigit() and 512 <= int(args[0]) <= 1 << 20:
                self.block = int(args[0])
            elif key == "call" and len(args) == 2 and args[1] in KINDS:
                self.calls[args[0]] = args[1]
            elif key in RULES and len(args) == 1 and args[0] in RULES[key]:
                self.rules[key] = args[0]
            else:
                raise Bad(f"{path} line {n}: not a rule of a model: '{line.strip()}' (name, block, "
                          f"call CALL {'|'.join(KINDS)}, or " +
                          ", ".join(f"{k} {'|'.join(v)}" for k, v in RULES.items()) + ")")
        missing = [k for k in RULES if k not in self.rules]
        if missing or not self.name:
            raise Bad(f"{path}: no {' and no '.join(missing or ['name'])} rule")


# ------------------------------------------------------------------ the log

def unescape(text, where):
    if not re.fullmatch(r"(?:[A-Za-z0-9._/-]|%[0-9A-F]{2})+", text):
        raise Bad(f"{where}: '{text[:60]}' is not a path of the log")
    path = re.sub(r"%([0-9A-F]{2})", lambda m: chr(int(m.group(1), 16)), text)
    parts = path.split("/")
    if path != "." and (path.startswith("/") or any(p in ("", ".", "..") for p in parts)):
        raise Bad(f"{where}: the path '{path[:60]}' leaves the root")
    return path


def fields(words, where):
    out = {}
    for w in words:
        k, eq, v = w.partition("=")
        if not eq:
            raise Bad(f"{where}: '{w[:40]}' is not NAME=VALUE")
        out[k] = v
    return out


def integer(f, key, where):
    v = f.get(key, "")
    if not v.isdigit() or len(v) > 15:
        raise Bad(f"{where}: {key}= is not a whole number")
    return int(v)


def read_log(path):
    """(initial files {path: bytes or None for a directory}, calls): each
    call a (line number, call name, paths, fields) tuple, in order."""
    try:
        with open(path, "rb") as f:
            data = f.read(MAX_LOG + 1)
    except OSError as e:
        raise Bad(f"{path}: {e.strerror}") from None
    if len(data) > MAX_LOG:
        raise Bad(f"{path}: larger than {MAX_LOG >> 20} MiB")
    lines = data.decode("ascii", "replace").split("\n")
    if lines[0] != "fsrecord 1":
        raise Bad(f"{path}: not a log of bin/fsrecord (its first line is not 'fsrecord 1')")
    init, calls, ended = {}, [], False
    for n, line in enumerate(lines[1:], 2):
        where = f"{path} line {n}"
        if not line:
            if n != len(lines):
                raise Bad(f"{where}: an empty line")
            continue
        if ended:
            raise Bad(f"{where}: a call after 'exit'")
        words = line.split(" ")
        if words[0] == "init":
            if calls or len(words) < 3 or words[1] not in ("dir", "file"):
                raise Bad(f"{where}: not an 'init dir PATH' or 'init file PATH HEX' before the calls")
            p = unescape(words[2], where)
            if words[1] == "dir":
                init[p] = None
            else:
                init[p] = hexbytes(words[3] if len(words) > 3 else "", where)
        elif words[0] == "exit" and len(words) == 1:
            ended = True
        else:
            paths = [unescape(w, where) for w in words[1:] if "=" not in w]
            calls.append((n, words[0], paths, fields([w for w in words[1:] if "=" in w], where)))
    if not ended:
        raise Bad(f"{path}: the log ends without 'exit' (line {len(lines)}): the program was killed by a "
                  "signal, or the log was cut short")
    return init, calls


def hexbytes(text, where):
    try:
        b = bytes.fromhex(text)
    except ValueError:
        raise Bad(f"{where}: the data is not hex") from None
    if len(b) > MAX_FILE:
        raise Bad(f"{where}: more than {MAX_FILE >> 20} MiB in one call")
    return b


# ------------------------------------------------------------------ operations

ROOT = -1               # the root directory's inode
GARBAGE = b"?"          # what a size reached before its data shows (ALICE writes garbage there)


class Op:
    """One change a crash may keep or lose: metadata (a name, a size) or
    data (one block's bytes of a write). call: the number of its call;
    needs: the ops that must be on the disk for this one to be."""

    def __init__(self, call, kind, ino, **what):
        self.call, self.kind, self.ino, self.what, self.needs = call, kind, ino, what, ()

    def describe(self):
        w = self.what
        if self.kind == "data":
            return f"bytes {w['off']}-{w['off'] + len(w['data']) - 1}"
        step = f" (rename step {w['step']} of 3)" if "step" in w else ""
        return {"create": lambda: f"the name {w['path']}", "link": lambda: f"the name {w['path']}{step}",
                "mkdir": lambda: f"the directory {w['path']}",
                "trunc": lambda: f"size {w['size']}",
                "grow": lambda: f"size {w['size']} (bytes {w['frm']}-{w['size'] - 1} garbage until written)",
                "unlink": lambda: f"{w['path']} removed{step}",
                "rename": lambda: f"{w['to']} is the file that was {w['frm']}"}[w["op"]]()

    def dirs(self):
        """The directories whose entries this op changes."""
        w = self.what
        return (w["tdir"], w["fdir"]) if w["op"] == "rename" else (w["dir"],) if "dir" in w else ()


class Base:
    """What the root held before the first call: entries {(dir, name): ino},
    data {ino: bytes}, dirs (inodes)."""

    def __init__(self, init, log):
        self.names, self.dirs, self.entries, self.data = {".": ROOT}, {ROOT}, {}, {}
        for ino, (p, b) in enumerate(init.items()):
            d = self.names.get(parent(p))
            if d is None or d not in self.dirs:
                raise Bad(f"{log}: init {p} is in no directory the log has")
            self.names[p] = ino
            self.entries[(d, basename(p))] = ino
            if b is None:
                self.dirs.add(ino)
            else:
                self.data[ino] = b


def operations(base, calls, model, log):
    """Replays the calls: the ops in order, and for each crash point k (after
    k calls) how many ops were issued and which ops call k made durable
    (kept as such, not as the durable set of each point: memory that grows
    with the calls, not with their square)."""
    names, dirs = dict(base.names), set(base.dirs)     # path -> inode, now
    size = {i: len(b) for i, b in base.data.items()}
    fds, ops, durable, points = {}, [], set(), [(0, ())]
    truncated = set()       # files truncated since opened (auto_da_alloc's replace-via-truncate)
    next_ino = len(base.names) - 1
    rules = model.rules

    def entry(p, where):
        d = names.get(parent(p))
        if d is None or d not in dirs:
            raise Bad(f"{where}: {p} is in no directory the log made or started with")
        return d, basename(p)

    flush = []      # data ops the next metadata op needs (replace-via-truncate)

    def meta(k, ino, **what):
        ops.append(Op(k, "meta", ino, **what))
        ops[-1].needs = tuple(flush)
        flush.clear()
        return ops[-1]

    for k, (n, call, paths, f) in enumerate(calls, 1):
        where = f"{log} line {n}"
        newly = []      # the ops this call made durable
        kind = model.calls.get(call)
        if kind is None:
            raise Bad(f"{where}: the model {model.name} ({model.path}) does not say what '{call}' does "
                      f"(it needs a line 'call {call} KIND')")
        need = {"rename": 2, "link": 2, "sync-all": 0}.get(kind, 1)
        if len(paths) != need and kind not in ("none", "close"):
            raise Bad(f"{where}: {call} with {len(paths)} paths")
        fd = f.get("fd")
        if kind == "truncate" and fd is None:     # truncate(path): the file that path names
            if paths[0] not in names:
                raise Bad(f"{where}: truncate of {paths[0]}, which is not there")
            fds[fd] = names[paths[0]]
        if kind == "open":
            p, flags = paths[0], f.get("flags", "").split("|")
            if p not in names:
                if "creat" not in flags:
                    raise Bad(f"{where}: {p} is opened, but was never there nor created")
                d, name = entry(p, where)
                names[p], next_ino = next_ino, next_ino + 1
                size[names[p]] = 0
                meta(k, names[p], op="create", path=p, dir=d, name=name)
            elif "trunc" in flags and names[p] not in dirs:
                if size.get(names[p]):
                    truncated.add(names[p])
                meta(k, names[p], op="trunc", size=0)
                size[names[p]] = 0
            fds[fd] = names[p]
        elif kind in ("write", "truncate", "sync", "close") and fd not in fds:
            raise Bad(f"{where}: {call} on fd {fd}, which no recorded open returned")
        elif kind == "write":
            ino = fds[fd]
            off, data = integer(f, "off", where), hexbytes(f.get("data", ""), where)
            if integer(f, "len", where) != len(data) or off + len(data) > MAX_FILE:
                raise Bad(f"{where}: len= is not the length of data=, or the file grows past "
                          f"{MAX_FILE >> 20} MiB")
            needs = ()
            if rules["append"] == "size-first" and off + len(data) > size[ino]:
                # ALICE's append: the new size (garbage past the old end), then the data
                needs = (len(ops),)
                meta(k, ino, op="grow", frm=size[ino], size=off + len(data))
            journal = [i for i, o in enumerate(ops) if o.kind == "meta"][-1:]
            while data:     # one op per block the write touches
                cut = model.block - off % model.block
                op = Op(k, "data", ino, op="write", off=off, data=data[:cut])
                op.needs = needs
                if rules["new-blocks"] == "after-metadata" and off >= -(-size[ino] // model.block) * model.block:
                    # a block not yet allocated: delayed allocation gives it its place at writeback, in
                    # a later transaction than every name and size the journal already holds
                    op.needs += tuple(journal)
                ops.append(op)
                off, data = off + cut, data[cut:]
            size[ino] = max(size[ino], off)
        elif kind == "truncate":
            size[fds[fd]] = integer(f, "size", where)
            if size[fds[fd]] == 0:
                truncated.add(fds[fd])
            meta(k, fds[fd], op="trunc", size=size[fds[fd]])
        elif kind == "close":
            ino = fds[fd]
            if rules["close-after-truncate"] == "flushes" and ino in truncated:
                # auto_da_alloc's replace-via-truncate: the data written since goes to the disk with the
                # next journal commit, before any name or size journalled after this close
                truncated.discard(ino)
                flush.extend(i for i, o in enumerate(ops) if o.kind == "data" and o.ino == ino)
        elif kind == "sync":
            ino = fds[fd]
            above = set()   # the directories above the file's names (file-and-names)
            for p in [p for p, i in names.items() if i == ino]:
                while p != ".":
                    p = parent(p)
                    above.add(names.get(p))
            for i, op in enumerate(ops):
                if i in durable:
                    continue
                if op.kind == "meta" and rules["fsync"] == "journal":
                    mine = True     # ext4 commits its journal: every name and size before the fsync
                elif ino in dirs:   # a directory: the names in it
                    mine = op.kind == "meta" and ino in op.dirs()
                elif rules["fsync"] == "file-and-names":
                    # btrfs's log: the file's bytes, sizes and names, and the directories made above it
                    mine = op.ino == ino or (op.kind == "meta" and op.what["op"] == "mkdir" and op.ino in above)
                else:               # a file: its bytes and size
                    mine = op.ino == ino and (op.kind == "data" or op.what["op"] in ("trunc", "grow"))
                if mine:
                    durable.add(i)
                    newly.append(i)
        elif kind == "sync-all":
            newly.extend(i for i in range(len(ops)) if i not in durable)
            durable.update(newly)
        elif kind == "link":
            frm, to = paths
            if frm not in names:
                raise Bad(f"{where}: link to {frm}, which is not there")
            d, name = entry(to, where)
            names[to] = names[frm]
            meta(k, names[frm], op="link", path=to, dir=d, name=name)
        elif kind == "rename":
            frm, to = paths
            if frm not in names:
                raise Bad(f"{where}: rename of {frm}, which is not there")
            ino, (fdir, fname), (tdir, tname) = names[frm], entry(frm, where), entry(to, where)
            needs = ()
            if rules["rename-flushes-data"] == "yes" and to in names:
                # ext4's auto_da_alloc: replacing a file by rename commits the new one's data first
                needs = tuple(i for i, o in enumerate(ops) if o.kind == "data" and o.ino == ino)
            if rules["rename"] == "steps":
                # ALICE's rename: the old file's name removed, the new one's, then the name linked
                if to in names:
                    meta(k, names[to], op="unlink", path=to, dir=tdir, name=tname, step=1)
                meta(k, ino, op="unlink", path=frm, dir=fdir, name=fname, step=2)
                meta(k, ino, op="link", path=to, dir=tdir, name=tname, step=3).needs += needs
            else:
                meta(k, ino, op="rename", frm=frm, to=to, fdir=fdir, fname=fname, tdir=tdir,
                     tname=tname).needs += needs
            # what was under frm (a directory) is under to now
            for p in [p for p in names if p == frm or p.startswith(frm + "/")]:
                names[to + p[len(frm):]] = names.pop(p)
        elif kind == "unlink":
            if paths[0] not in names:
                raise Bad(f"{where}: unlink of {paths[0]}, which is not there")
            d, name = entry(paths[0], where)
            meta(k, names.pop(paths[0]), op="unlink", path=paths[0], dir=d, name=name)
        elif kind == "mkdir":
            d, name = entry(paths[0], where)
            names[paths[0]], next_ino = next_ino, next_ino + 1
            dirs.add(names[paths[0]])
            meta(k, names[paths[0]], op="mkdir", path=paths[0], dir=d, name=name)
        points.append((len(ops), tuple(newly)))
    if not ops:
        raise Bad(f"{log}: the program changed no file under its root: no save to crash in "
                  "(did it run in the directory recorded?)")
    return ops, points


def parent(path):
    return path.rpartition("/")[0] or "."


def basename(path):
    return path.rpartition("/")[2]


# ------------------------------------------------------------------ states

def groups_at(ops, pending, model):
    """The pending ops at a crash point as independent groups, each a
    (rule, ops) pair: the names and sizes, then each file's blocks. Under
    'ordered' and 'prefix' a group keeps a prefix of its ops (a file's
    blocks in the order writeback goes: by offset); under 'any', any
    subset. pending: the ops issued and not durable, in order."""
    groups = [(model.rules["metadata"], [i for i in pending if ops[i].kind == "meta"])]
    files = {}
    for i in pending:
        if ops[i].kind == "data":
            files.setdefault(ops[i].ino, []).append(i)
    for ino in sorted(files):
        items = files[ino]
        if model.rules["data"] == "prefix":
            items.sort(key=lambda i: (ops[i].what["off"], i))
        groups.append((model.rules["data"], items))
    return [(rule, items) for rule, items in groups if items]


def ways(groups):
    """How many sets of ops the groups allow (before the ops' needs)."""
    total = 1
    for rule, items in groups:
        total *= 2 ** len(items) if rule == "any" else len(items) + 1
    return total


def choices(groups, durable, ops, rng, limit):
    """The sets of ops on the disk: the durable ones plus those the groups
    allow, every one when there are at most limit, else limit drawn at
    random; those whose needs are met, each once."""
    if ways(groups) <= limit:
        combos = itertools.product(*[
            [c for n in range(len(items) + 1) for c in itertools.combinations(items, n)] if rule == "any"
            else [items[:n] for n in range(len(items) + 1)] for rule, items in groups])
    else:
        combos = (tuple([i for i in items if rng.random() < 0.5] if rule == "any"
                        else items[:rng.randrange(len(items) + 1)] for rule, items in groups)
                  for _ in range(limit))
    out, seen, durable = [], set(), frozenset(durable)
    for combo in combos:
        kept = durable.union(*combo)
        if kept not in seen and all(set(ops[i].needs) <= kept for i in kept):
            seen.add(kept)
            out.append(kept)
    return out


def build(base, ops, kept):
    """The files of a state: {path: bytes, or None for a directory}. A
    name is there when every directory above it is: a lost mkdir leaves
    what was made in it unreachable; a renamed directory takes what is in
    it along."""
    entries, dirs = dict(base.entries), set(base.dirs)
    data = {i: bytearray(b) for i, b in base.data.items()}
    for i in sorted(kept):
        op, w = ops[i], ops[i].what
        if w["op"] in ("create", "link", "mkdir"):
            entries[(w["dir"], w["name"])] = op.ino
            if w["op"] == "mkdir":
                dirs.add(op.ino)
        elif w["op"] == "unlink":
            if entries.get((w["dir"], w["name"])) == op.ino:
                del entries[(w["dir"], w["name"])]
        elif w["op"] == "rename":
            if entries.get((w["fdir"], w["fname"])) == op.ino:
                del entries[(w["fdir"], w["fname"])]
            entries[(w["tdir"], w["tname"])] = op.ino
        elif w["op"] in ("trunc", "grow"):
            b = data.setdefault(op.ino, bytearray())
            if w["op"] == "trunc":
                del b[w["size"]:]
            fill = max(0, w["size"] - len(b))
            b.extend(bytes(fill) if w["op"] == "trunc" else GARBAGE * fill)
        else:
            b = data.setdefault(op.ino, bytearray())
            if len(b) < w["off"]:
                b.extend(bytes(w["off"] - len(b)))
            b[w["off"]:w["off"] + len(w["data"])] = w["data"]
    inside = {}
    for (d, name), ino in entries.items():
        inside.setdefault(d, []).append((name, ino))
    files, todo, seen = {}, [(ROOT, "")], {ROOT}
    while todo:     # from the root down: what a reader of the disk reaches
        d, path = todo.pop()
        for name, ino in inside.get(d, ()):
            p = path + name
            if ino in dirs:
                if ino not in seen:     # a directory reached twice (lost renames): its first name
                    seen.add(ino)
                    files[p] = None
                    todo.append((ino, p + "/"))
            else:
                files[p] = bytes(data.get(ino, b""))
    return files


def materialise(files, where):
    """The files of a state, written under where (a new directory)."""
    try:
        os.mkdir(where)
        for p in sorted(files, key=lambda p: p.count("/")):
            full = os.path.join(where, p)
            if files[p] is None:
                os.makedirs(full, exist_ok=True)
            else:
                os.makedirs(os.path.dirname(full), exist_ok=True)
                with open(full, "wb") as f:
                    f.write(files[p])
    except OSError as e:    # a log that puts a file where a directory is, say
        raise Bad(f"a state cannot be built: {e.strerror}: {os.path.relpath(e.filename or where, where)}") from None


def fingerprint(when, files):
    """A state's key: its files' hash (the states can be many, the files large)."""
    h = hashlib.sha256(when.encode())
    for p in sorted(files):
        data = files[p]
        h.update(b"%d:%s:%d:" % (len(p), p.encode(), -1 if data is None else len(data)))
        h.update(data or b"")
    return h.digest()


def check(cmd, where, when):
    """(broken?, the checker's first line)."""
    try:
        p = subprocess.run(cmd + [when], cwd=where, capture_output=True, timeout=CHECK_TIMEOUT,
                           stdin=subprocess.DEVNULL)
    except subprocess.TimeoutExpired:
        raise Bad(f"the checker took more than {CHECK_TIMEOUT} s on a state: {shlex.join(cmd)}") from None
    except OSError as e:
        raise Bad(f"the checker {cmd[0]}: {e.strerror}") from None
    if p.returncode not in (0, 1):
        how = f"killed by signal {-p.returncode}" if p.returncode < 0 else f"exit status {p.returncode}"
        err = p.stderr.decode("utf-8", "replace").strip().splitlines()
        raise Bad(f"the checker crashed on a state ({how}{': ' + err[-1] if err else ''}): {shlex.join(cmd)}")
    return p.returncode == 1, (p.stdout.decode("utf-8", "replace").strip().splitlines() or [""])[0]


# ------------------------------------------------------------------ the report

def explain(calls, ops, points, k, kept, durable):
    lines = []
    for c in range(1, k + 1):
        n, call, paths, f = calls[c - 1]
        mine = [i for i in range(points[k][0]) if ops[i].call == c]
        what = f"{call} {' '.join(paths)}".strip()
        if "len" in f:     # a write, a copy, zeros
            what += f" ({f.get('len')} bytes at {f.get('off')})"
        if call == "open":
            what += f" ({f.get('flags')})"
        fate = "; ".join(f"{ops[i].describe()}: " + ("synced" if i in durable else "on disk" if i in kept
                                                      else "LOST") for i in mine)
        lines.append(f"  {c:3d}. {what}" + (f"  -> {fate}" if fate else ""))
    return lines


def budget(totals, limit):
    """How many sets each crash point may build, limit in all: every one
    where a point has few, the rest shared among the points with more."""
    out, left = [0] * len(totals), limit
    order = sorted(range(len(totals)), key=lambda k: totals[k])
    for n, k in enumerate(order):
        out[k] = max(1, min(totals[k], left // (len(order) - n)))
        left -= out[k]
    return out


class Checkers:
    """The checker run on states, jobs at once, each state in a directory
    of its own, built and removed by the thread that checks it."""

    def __init__(self, cmd, scratch, jobs):
        self.cmd, self.scratch, self.jobs = cmd, scratch, jobs
        self.pool = concurrent.futures.ThreadPoolExecutor(max_workers=jobs)
        self.names, self.running = itertools.count(), collections.deque()

    def submit(self, files, when):
        """A future of the state's (broken?, why)."""
        while len(self.running) >= 4 * self.jobs:   # a bounded queue: a failing checker stops it soon
            self.running.popleft().result()
        future = self.pool.submit(self._check, files, when)
        self.running.append(future)
        return future

    def _check(self, files, when):
        where = os.path.join(self.scratch, str(next(self.names)))
        try:
            materialise(files, where)
            return check(self.cmd, where, when)
        finally:
            shutil.rmtree(where, ignore_errors=True)

    def close(self):
        self.pool.shutdown(wait=True, cancel_futures=True)


def crash_points(points):
    """Per crash point k: (k, ops issued, the durable ops, the pending ops),
    the sets shared from one point to the next (copy what is kept)."""
    durable, pending, issued_before = set(), {}, 0
    for k, (issued, newly) in enumerate(points):
        pending.update(dict.fromkeys(range(issued_before, issued)))
        issued_before = issued
        durable.update(newly)
        for i in newly:
            pending.pop(i, None)
        yield k, issued, durable, pending


def explore(model, base, calls, args, checkers, verdicts):
    """Every state of the log under model, checked (verdicts: futures of
    the states already given to the checker, shared between models): a
    dict of counts and the first broken state."""
    ops, points = operations(base, calls, model, args.log)
    rng = random.Random(args.seed)
    groups = [groups_at(ops, list(pending), model) for _, _, _, pending in crash_points(points)]
    totals = [ways(g) for g in groups]
    limits = budget(totals, args.max_states)
    seen, best = set(), [None]      # best: (rank, kept, k, why) of the first broken state
    waiting = collections.deque()   # (future, rank, kept, k): states met before their verdicts
    sampled = {"points": 0, "sets": 0, "of": 0}     # where the sets were drawn at random

    def judge(future, rank, kept, k):
        # The first crash point; there, a state that kept what the last
        # call did, if one is broken (it is that call's fault), and of
        # those the one that kept the most (the least loss that breaks
        # the file); then the ops' order, so that the choice is the same
        # however the checkers finish.
        bad, why = future.result()
        if bad and (best[0] is None or (rank, sorted(kept)) < (best[0][0], sorted(best[0][1]))):
            best[0] = (rank, kept, k, why)

    for k, issued, durable, _ in crash_points(points):
        when = "after" if k == len(points) - 1 else "during"
        sets = choices(groups[k], durable, ops, rng, limits[k])
        if totals[k] > limits[k]:
            sampled["points"] += 1
            sampled["sets"] += len(sets)
            sampled["of"] += totals[k]
        for kept in sets:
            files = build(base, ops, kept)
            key = fingerprint(when, files)
            if key not in verdicts:
                verdicts[key] = checkers.submit(files, when)
            seen.add(key)
            rank = (k, not any(ops[i].call == k for i in kept), -len(kept))
            if best[0] is None or rank <= best[0][0]:
                waiting.append((verdicts[key], rank, kept, k))
            while waiting and waiting[0][0].done():
                judge(*waiting.popleft())
    while waiting:
        judge(*waiting.popleft())
    first = None
    if best[0]:
        rank, kept, k, why = best[0]
        durable = next(frozenset(d) for j, _, d, _ in crash_points(points) if j == k)
        first = (rank, kept, durable, why, build(base, ops, kept))
    return {"ops": ops, "points": points, "states": len(seen), "sampled": sampled,
            "broken": sum(verdicts[key].result()[0] for key in seen), "first": first}


def share(sampled):
    """The sampling, said: at how many crash points, what share of the sets."""
    pct = 100 * sampled["sets"] / sampled["of"]
    return (f"sampled at {sampled['points']} crash points: {sampled['sets']} of the "
            f"{sampled['of']:.3g} sets of operations the model allows there ({pct:.2g}%), seed {{seed}}")


def main(argv):
    parts = __doc__.split("\n\n")      # the synopsis is argparse's usage line
    p = argparse.ArgumentParser(prog=PROG, description="\n\n".join([parts[0]] + parts[2:]),
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--model", default="posix",
                   help="models' names (in labs/6-fsync/models), comma-separated, or model files")
    p.add_argument("--check", required=True, help="the checker's command line (run in each state)")
    p.add_argument("--max-states", type=int, default=2000, help="sets built per model, at most")
    p.add_argument("--seed", type=int, default=1, help="of the random draws, where sets are sampled")
    p.add_argument("--jobs", type=int, default=os.cpu_count() or 1, help="checkers run at once "
                   "(default: one per CPU)")
    p.add_argument("--scratch", default=None, help="where the states are built (default: TMPDIR)")
    p.add_argument("--keep", default=None, help="a new directory: the files of the broken state shown "
                   "(one model only)")
    p.add_argument("--csv", action="store_true")
    p.add_argument("log")
    args = p.parse_args(argv)
    if args.max_states < 1 or args.jobs < 1:
        p.error("--max-states and --jobs must be at least 1")
    names = args.model.split(",")
    if args.keep and (os.path.lexists(args.keep) or len(names) > 1):
        p.error(f"--keep {args.keep}: already there, or more than one model")
    try:
        cmd = shlex.split(args.check)
    except ValueError as e:
        p.error(f"--check: {e}")
    if not cmd:
        p.error("--check: an empty command")
    # The checker runs in each state's directory: its program, where the
    # user typed a relative path (../../bin/saver), is found from here.
    # Its arguments are the state's (doc.kv is the state's file).
    if "/" in cmd[0] and not os.path.isabs(cmd[0]):
        cmd[0] = os.path.abspath(cmd[0])
    models = [Model(m if os.sep in m or m.endswith(".model") else os.path.join(MODELS, m + ".model"))
              for m in names]
    init, calls = read_log(args.log)
    base = Base(init, args.log)
    results, verdicts = [], {}
    try:
        scratch = tempfile.mkdtemp(prefix="crashstates.", dir=args.scratch)
    except OSError as e:
        raise Bad(f"--scratch {args.scratch or tempfile.gettempdir()}: {e.strerror}")
    checkers = Checkers(cmd, scratch, args.jobs)
    try:
        for model in models:
            results.append(explore(model, base, calls, args, checkers, verdicts))
        first = results[0]["first"]
        if first and args.keep:
            materialise(first[4], args.keep)
    finally:
        checkers.close()
        shutil.rmtree(scratch, ignore_errors=True)
    ncalls = len(calls)
    if args.csv:
        print("model,calls,crash_points,states,broken,sampled_points,first_broken_after_call")
    for model, r in zip(models, results):
        first, points = r["first"], r["points"]
        if args.csv:
            # flushed: its note on stderr follows the row it is about
            print(f"{model.name},{ncalls},{len(points)},{r['states']},{r['broken']},{r['sampled']['points']},"
                  f"{first[0][0] if first else ''}", flush=True)
            if r["sampled"]["points"]:
                print(f"{PROG}: {args.log}, model {model.name}: " + share(r["sampled"]).format(seed=args.seed),
                      file=sys.stderr)
            continue
        print(f"{PROG}: {args.log}, model {model.name}: {ncalls} calls, {len(points)} crash points, "
              f"{r['states']} states built, {r['broken']} broken"
              + (" (" + share(r["sampled"]).format(seed=args.seed) + ")" if r["sampled"]["points"] else
                 ", every state the model allows"))
        if first:
            (k, *_), kept, durable, why, _ = first
            print(f"the shortest way to a broken state: a crash after call {k} of {ncalls}"
                  + (" (after the program ended)" if k == len(points) - 1 else ""))
            print("\n".join(explain(calls, r["ops"], points, k, kept, durable)))
            print(f"  then: {why}")
            if args.keep:
                print(f"  its files: {args.keep}")
    return 0


def die(message, status=1):
    print(f"{PROG}: {message}", file=sys.stderr)
    sys.exit(status)


if __name__ == "__main__":
    # SIGTERM ends it as SIGINT does: through the finally that empties the scratch.
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))
    try:
        sys.exit(main(sys.argv[1:]))
    except Bad as e:
        die(str(e))
    except KeyboardInterrupt:
        die("interrupted", 130)
