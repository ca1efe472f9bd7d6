#!/usr/bin/env python3
"""crashstates - Lab 6: every state a power cut could leave on the disk,
from a log of the calls a program made (bin/fsrecord), and which of
them a checker finds broken.

  bin/crashstates [--model NAME|FILE[,...]] --check 'CMD ARGS' [--max-states N]
                  [--seed S] [--scratch DIR] [--keep DIR] [--csv] LOG

A crash can happen after any call. What a sync made durable is on the
disk; what was not synced may be there, or not, or part of it (one block
of a write and not the next), in the orders the model allows (a model is
a data file in labs/6-fsync/models/, its rules and source written in it).
Each state is built in a scratch directory; CMD runs there (a program
given by a relative path, ../../bin/saver, is found from the directory
crashstates started in; its arguments name the state's files) with one more
argument, "during" (the crash came while the program ran) or "after" (it
had ended: what it said it saved must be there), and exits 0 when the
state is fine, 1 when it is broken (its first line of output says why).
Printed, per model (default posix; several, comma-separated, share the
checker's verdicts): the states built, those broken, and the shortest way
to a broken one, call by call. Beyond --max-states (default 2000 a model)
the states of a crash point are sampled, and the output says so. --keep
DIR: the files of that broken state, to read (one model). --csv: a row a
model instead.

Exit status: 0 when every state was checked (broken ones or not), 1 when
the log, the model or the checker fails (one line says which), 2 for a bad
command line. Nothing is left in the scratch directory.
"""

import argparse
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
KINDS = ("open", "write", "truncate", "sync", "sync-all", "rename", "link", "unlink", "mkdir", "none")
RULES = {"metadata": ("ordered", "any"), "data": ("prefix", "any"), "fsync": ("file", "journal"),
         "rename-flushes-data": ("yes", "no")}


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

class Op:
    """One change a crash may keep or lose: metadata (a name, a size) or
    data (one block's bytes of a write). call: the number of its call."""

    def __init__(self, call, kind, ino, **what):
        self.call, self.kind, self.ino, self.what, self.needs = call, kind, ino, what, ()

    def describe(self):
        w = self.what
        if self.kind == "data":
            return f"bytes {w['off']}-{w['off'] + len(w['data']) - 1}"
        return {"create": lambda: f"the name {w['path']}", "link": lambda: f"the name {w['path']}",
                "mkdir": lambda: f"the directory {w['path']}",
                "trunc": lambda: f"size {w['size']}", "unlink": lambda: f"{w['path']} removed",
                "rename": lambda: f"{w['to']} is the file that was {w['frm']}"}[w["op"]]()


def operations(init, calls, model, log):
    """Replays the calls: the ops in order, and for each crash point k (after
    k calls) how many ops were issued and which of them were durable."""
    names = {p: i for i, p in enumerate(init)}       # path -> inode
    dirs = {i for p, i in names.items() if init[p] is None} | {-1}
    names["."] = -1
    fds, ops, durable, points = {}, [], set(), [(0, frozenset())]
    next_ino = len(init)
    for k, (n, call, paths, f) in enumerate(calls, 1):
        where = f"{log} line {n}"
        kind = model.calls.get(call)
        if kind is None:
            raise Bad(f"{where}: the model {model.name} ({model.path}) does not say what '{call}' does "
                      f"(it needs a line 'call {call} KIND')")
        need = {"rename": 2, "link": 2, "sync-all": 0}.get(kind, 1)
        if len(paths) != need and kind != "none":
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
                names[p], next_ino = next_ino, next_ino + 1
                ops.append(Op(k, "meta", names[p], op="create", path=p))
            elif "trunc" in flags and names[p] not in dirs:
                ops.append(Op(k, "meta", names[p], op="trunc", size=0))
            fds[fd] = names[p]
        elif kind in ("write", "truncate", "sync") and fd not in fds:
            raise Bad(f"{where}: {call} on fd {fd}, which no recorded open returned")
        elif kind == "write":
            off, data = integer(f, "off", where), hexbytes(f.get("data", ""), where)
            if integer(f, "len", where) != len(data) or off + len(data) > MAX_FILE:
                raise Bad(f"{where}: len= is not the length of data=, or the file grows past "
                          f"{MAX_FILE >> 20} MiB")
            while data:     # one op per block the write touches
                cut = model.block - off % model.block
                ops.append(Op(k, "data", fds[fd], op="write", off=off, data=data[:cut]))
                off, data = off + cut, data[cut:]
        elif kind == "truncate":
            ops.append(Op(k, "meta", fds[fd], op="trunc", size=integer(f, "size", where)))
        elif kind == "sync":
            ino = fds[fd]
            for i, op in enumerate(ops):
                if i in durable:
                    continue
                if ino in dirs:     # a directory: the names in it
                    mine = op.kind == "meta" and op.what["op"] != "trunc" and \
                        parent(op.what.get("to", op.what.get("path"))) == dir_path(names, ino)
                else:               # a file: its bytes and size; ext4 commits the journal
                    mine = op.ino == ino and (op.kind == "data" or op.what["op"] == "trunc")
                    mine = mine or (model.rules["fsync"] == "journal" and op.kind == "meta")
                if mine:
                    durable.add(i)
        elif kind == "sync-all":
            durable.update(range(len(ops)))
        elif kind == "link":
            frm, to = paths
            if frm not in names:
                raise Bad(f"{where}: link to {frm}, which is not there")
            names[to] = names[frm]
            ops.append(Op(k, "meta", names[frm], op="link", path=to))
        elif kind == "rename":
            frm, to = paths
            if frm not in names:
                raise Bad(f"{where}: rename of {frm}, which is not there")
            op = Op(k, "meta", names[frm], op="rename", frm=frm, to=to)
            if model.rules["rename-flushes-data"] == "yes" and to in names:
                # ext4's auto_da_alloc: replacing a file by rename commits the new one's data first
                op.needs = tuple(i for i, o in enumerate(ops) if o.kind == "data" and o.ino == names[frm])
            ops.append(op)
            names[to] = names.pop(frm)
        elif kind == "unlink":
            if paths[0] not in names:
                raise Bad(f"{where}: unlink of {paths[0]}, which is not there")
            ops.append(Op(k, "meta", names.pop(paths[0]), op="unlink", path=paths[0]))
        elif kind == "mkdir":
            names[paths[0]], next_ino = next_ino, next_ino + 1
            dirs.add(names[paths[0]])
            ops.append(Op(k, "meta", names[paths[0]], op="mkdir", path=paths[0]))
        points.append((len(ops), frozenset(durable)))
    if not ops:
        raise Bad(f"{log}: the program changed no file under its root: no save to crash in "
                  "(did it run in the directory recorded?)")
    return ops, points


def parent(path):
    return path.rpartition("/")[0] or "."


def dir_path(names, ino):
    return next((p for p, i in names.items() if i == ino), None)


# ------------------------------------------------------------------ states

def choices(ops, issued, durable, model, rng, limit):
    """The sets of ops on the disk after a crash with `issued` ops issued:
    the durable ones plus pending ones the model allows. At most limit
    sets, sampled when there are more; (sets, sampled?)."""
    pending = [i for i in range(issued) if i not in durable]
    groups = []     # each a list of options, each option a tuple of op indexes
    meta = [i for i in pending if ops[i].kind == "meta"]
    groups.append(options(meta, model.rules["metadata"]))
    for ino in sorted({ops[i].ino for i in pending if ops[i].kind == "data"}):
        data = [i for i in pending if ops[i].kind == "data" and ops[i].ino == ino]
        groups.append(options(data, model.rules["data"]))
    total = 1
    for g in groups:
        total *= len(g)
    if total <= limit:
        combos, sampled = itertools.product(*groups), False
    else:
        combos, sampled = (tuple(rng.choice(g) for g in groups) for _ in range(limit)), True
    out = []
    for combo in combos:
        kept = set(durable).union(*combo)
        if all(set(ops[i].needs) <= kept for i in kept):
            out.append(kept)
    return out, sampled


def options(items, rule):
    if rule in ("ordered", "prefix"):
        return [tuple(items[:n]) for n in range(len(items) + 1)]
    if len(items) > 12:     # 8192 subsets or more: 256 random ones stand for them
        rng = random.Random(len(items))
        return [tuple(i for i in items if rng.random() < 0.5) for _ in range(256)]
    return [tuple(c) for n in range(len(items) + 1) for c in itertools.combinations(items, n)]


def build(init, ops, kept):
    """The files of a state: {path: bytes, or None for a directory}."""
    names = {p: i for i, p in enumerate(init)}
    data = {i: bytearray(b) for i, b in enumerate(init.values()) if b is not None}
    dirs = {i for i, b in enumerate(init.values()) if b is None}
    for i in sorted(kept):
        op, w = ops[i], ops[i].what
        if w["op"] in ("create", "link"):
            names[w["path"]] = op.ino
        elif w["op"] == "mkdir":
            names[w["path"]] = op.ino
            dirs.add(op.ino)
        elif w["op"] == "unlink":
            names.pop(w["path"], None)
        elif w["op"] == "rename":
            if names.get(w["frm"]) == op.ino:
                del names[w["frm"]]
            names[w["to"]] = op.ino
        elif w["op"] == "trunc":
            b = data.setdefault(op.ino, bytearray())
            del b[w["size"]:]
            b.extend(bytes(w["size"] - len(b)))
        else:
            b = data.setdefault(op.ino, bytearray())
            if len(b) < w["off"]:
                b.extend(bytes(w["off"] - len(b)))
            b[w["off"]:w["off"] + len(w["data"])] = w["data"]
    return {p: (None if i in dirs else bytes(data.get(i, b""))) for p, i in names.items() if p != "."}


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
        if call == "write":
            what += f" ({f.get('len')} bytes at {f.get('off')})"
        if call == "open":
            what += f" ({f.get('flags')})"
        fate = "; ".join(f"{ops[i].describe()}: " + ("synced" if i in durable else "on disk" if i in kept
                                                      else "LOST") for i in mine)
        lines.append(f"  {c:3d}. {what}" + (f"  -> {fate}" if fate else ""))
    return lines


def explore(model, init, calls, cmd, args, scratch, verdicts):
    """Every state of the log under model, checked (verdicts: those of
    states already checked, shared between models): a dict of counts and
    the first broken state."""
    ops, points = operations(init, calls, model, args.log)
    rng = random.Random(args.seed)
    per_point = max(1, args.max_states // len(points))
    seen, sampled, first = set(), 0, None
    for k, (issued, durable) in enumerate(points):
        when = "after" if k == len(points) - 1 else "during"
        sets, was_sampled = choices(ops, issued, durable, model, rng, per_point)
        sampled += was_sampled
        for kept in sets:
            files = build(init, ops, kept)
            key = fingerprint(when, files)
            if key not in verdicts:
                where = os.path.join(scratch, str(len(verdicts)))
                materialise(files, where)
                verdicts[key] = check(cmd, where, when)
                shutil.rmtree(where)
            seen.add(key)
            bad, why = verdicts[key]
            # The first crash point; there, a state that kept what the last
            # call did, if one is broken (it is that call's fault), and of
            # those the one that kept the most (the least loss that breaks
            # the file).
            rank = (k, not any(ops[i].call == k for i in kept), -len(kept))
            if bad and (first is None or rank < first[0]):
                first = (rank, kept, durable, why, files)
    return {"ops": ops, "points": points, "states": len(seen), "sampled": sampled, "per_point": per_point,
            "broken": sum(verdicts[key][0] for key in seen), "first": first}


def main(argv):
    p = argparse.ArgumentParser(prog=PROG, description="the states a crash could leave, checked")
    p.add_argument("--model", default="posix",
                   help="models' names (in labs/6-fsync/models), comma-separated, or a model file")
    p.add_argument("--check", required=True, help="the checker's command line (run in each state)")
    p.add_argument("--max-states", type=int, default=2000, help="per model")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--scratch", default=None, help="where the states are built (default: TMPDIR)")
    p.add_argument("--keep", default=None, help="a new directory: the files of the broken state shown "
                   "(one model only)")
    p.add_argument("--csv", action="store_true")
    p.add_argument("log")
    args = p.parse_args(argv)
    if args.max_states < 1:
        p.error("--max-states must be at least 1")
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
    results, verdicts = [], {}
    scratch = tempfile.mkdtemp(prefix="crashstates.", dir=args.scratch)
    try:
        for model in models:
            results.append(explore(model, init, calls, cmd, args, scratch, verdicts))
        first = results[0]["first"]
        if first and args.keep:
            materialise(first[4], args.keep)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    ncalls = len(calls)
    if args.csv:
        print("model,calls,crash_points,states,broken,sampled_points,first_broken_after_call")
    for model, r in zip(models, results):
        first, points = r["first"], r["points"]
        if args.csv:
            print(f"{model.name},{ncalls},{len(points)},{r['states']},{r['broken']},{r['sampled']},"
                  f"{first[0][0] if first else ''}")
            continue
        print(f"{PROG}: {args.log}, model {model.name}: {ncalls} calls, {len(points)} crash points, "
              f"{r['states']} states built, {r['broken']} broken"
              + (f" (states sampled at {r['sampled']} crash points: {r['per_point']} of each)"
                 if r["sampled"] else ""))
        if first:
            (k, _, _), kept, durable, why, _ = first
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
