"""The merge: every submission of a class into one tidy CSV per data file.

Submissions are read one at a time (in worker processes, -j of them),
each checked on its own, and its rows written out at once: memory holds one
submission's data per worker, never the class's. What a figure draws is a
few numbers per submission, appended to OUT/plot/*.csv as the merge goes.

OUT, after a merge:
  lab1.csv, lab2.csv, ... (a file per data file of spec.FILES)  every row
        of every submission whose file holds together: sub, machine, cpu,
        cores, kernel, scratch_fs, storage (spec.storage()), then the lab's
        columns
  submissions.csv   a row per submission merged: its machine and its
        measures (spec.METRICS), what the percentile lines compare with
  left-out.csv      sub, file, reason: what was left out, and why (a
        prediction with no number: file predictions.md; a lab's files run
        at SCALE=tiny or on a machine the lab called BUSY, run_note())
  copies.csv        sub, other_sub, file, what: submissions whose data file
        is the same bytes, or that share a run of RUN timings (wall_s, or
        the file's spec timing, each with SIGNIFICANT digits or more) in a
        row: listed, not judged
  plot/             the figures' inputs; lab*.png the figures
  .secret           the key of the anonymous ids: keep it, share nothing of it
"""

import csv
import hashlib
import hmac
import multiprocessing
import os
import secrets
import zipfile

from . import reader, spec
from .values import Bad, read_csv, read_machine

MACHINE_COLUMNS = ["sub", "machine", "cpu", "cores", "kernel", "scratch_fs", "storage"]
ID_HEX = 12
# Timings that two honest machines do not share: RUN of them in a row, each
# printed with SIGNIFICANT digits or more (0.000001 is common; 0.0432817 is not).
RUN = 5
SIGNIFICANT = 4


class Usage(Exception):
    """A bad command line: exit 2."""


def load_secret(out):
    """The class's key, made once per OUT: the same submission keeps its id
    when the merge runs again."""
    path = os.path.join(out, ".secret")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        with open(path, encoding="ascii") as f:
            key = f.read().strip()
        if len(key) != 64:
            raise OSError(f"{path}: not a key made by the merge") from None
        return bytes.fromhex(key)
    with os.fdopen(fd, "w", encoding="ascii") as f:
        key = secrets.token_hex(32)
        f.write(key + "\n")
    return bytes.fromhex(key)


def anonymous_id(key, text):
    return hmac.new(key, text.encode("utf-8", "surrogateescape"),
                    hashlib.sha256).hexdigest()[:ID_HEX]


def printable(text):
    return "".join(c if c.isprintable() else "?" for c in text)


# ------------------------------------------------------------ finding them

def find_submissions(path):
    """[(name, source)]: source is ('path', path) or ('zip', zip, [names])."""
    if os.path.isfile(path) and path.endswith(".zip"):
        try:
            with zipfile.ZipFile(path) as zf:
                groups = reader.zip_submissions(zf)
        except (zipfile.BadZipFile, reader.Rejected) as e:
            raise OSError(f"{path}: not a readable zip ({reader.one_line(e)})") from None
        return [(folder, ("zip", path, folder)) for folder in sorted(groups)]
    if not os.path.isdir(path):
        raise Usage(f"SUBMISSIONS: {path} is neither a directory nor a .zip")
    names = sorted(os.listdir(path))
    # Gradescope's export unzipped: one folder holding submission_metadata.yml
    if "submission_metadata.yml" not in names:
        dirs = [n for n in names if not n.startswith(".") and os.path.isdir(os.path.join(path, n))]
        if len(dirs) == 1 and os.path.isfile(os.path.join(path, dirs[0], "submission_metadata.yml")):
            return find_submissions(os.path.join(path, dirs[0]))
    out = []
    for name in names:
        full = os.path.join(path, name)
        if name.startswith("."):
            continue
        if os.path.islink(full) or os.path.isdir(full) or reader.TARBALL_RE.fullmatch(name):
            out.append((name, ("path", full)))
    return out


_zips = {}


def _zip_entries(zip_path, folder):
    """A folder's entries of a class zip; each worker opens the zip once."""
    if zip_path not in _zips:
        with zipfile.ZipFile(zip_path) as zf:
            _zips.clear()
            _zips[zip_path] = reader.zip_submissions(zf)
    return _zips[zip_path].get(folder, [])


# Every file the merge reads.
WANTED = frozenset(["machine.txt", reader.PREDICTIONS] + [f.name for f in spec.FILES] +
                   [f"lab{lab}-load.txt" for lab in spec.LABS])


def run_note(data):
    """Why a lab's files stay out of the class, from its data/labN-load.txt
    (common/load.py): run at SCALE=tiny, the tests' size, or on a machine
    the lab itself called BUSY. None when neither, or without the file (a
    handin from before the kit wrote it: kept, as it always was)."""
    if data is None:
        return None
    facts = {}
    for line in data.decode("utf-8", "replace").splitlines()[:100]:
        key, sep, value = line.partition(": ")
        if sep:
            facts.setdefault(key, value.strip())
    if facts.get("scale") == "tiny":
        return TINY
    if "busy" in facts.get("verdict", "").split():
        return BUSY
    return None


TINY = "run at SCALE=tiny, the tests' size"
BUSY = "run on a machine the lab called BUSY (other programs competed with it)"


def load(name, source):
    if source[0] == "zip":
        return reader.read_zip_folder(source[1], _zip_entries(source[1], source[2]), name, WANTED)
    return reader.read_path(source[1], name, WANTED)


def machine_id(key, m):
    return anonymous_id(key, "machine\0" + "\0".join(
        m.get(k, "") for k in ("cpu", "cores", "memory", "kernel", "scratch_dir_fs",
                               "compiler", "libc")))


def process(job):
    """Reads and checks one submission (in a worker). job: (name, source,
    sub, key). Returns a dict: reject (why it could not be read at all),
    machine, ident (the machine columns), text {file: its tidy CSV rows, as
    text}, left {file: why}, runs {lab: TINY or BUSY, its files left out}, metrics, points {figure: [tuples]}, predicted
    {key: why a prediction is not drawn}."""
    name, source, sub, key = job
    result = {"name": name, "sub": sub, "reject": None, "machine": None, "text": {},
              "left": {}, "runs": {}, "metrics": {}, "points": {}, "predicted": {}}
    try:
        files = load(name, source)
    except reader.Rejected as e:
        result["reject"] = str(e)
        return result
    except Exception as e:	# whatever else hostile input provokes: this one is out, the class goes on
        result["reject"] = f"could not be read ({type(e).__name__}: {reader.one_line(e)})"
        return result
    try:
        if "machine.txt" not in files:
            raise reader.Rejected("no data/machine.txt: the figures need the machine")
        m = read_machine(files["machine.txt"])
        if not any(f.name in files for f in spec.FILES):
            raise reader.Rejected("no data/labN*.csv of a lab's results (a figure's medians are not merged)")
    except (reader.Rejected, Bad) as e:
        result["reject"] = str(e)
        return result
    result["machine"] = m
    result["ident"] = [sub, machine_id(key, m) if key else "", m["cpu"], m["cores"],
                       m["kernel"], m["scratch_dir_fs"], spec.storage(m)]
    # Every field is a parsed number or name, or made safe by label(): no
    # comma or quote to escape.
    prefix = ",".join(result["ident"]) + ","
    kept = {}	# the values of each file kept, for the predictions
    notes = {lab: run_note(files.get(f"lab{lab}-load.txt")) for lab in spec.LABS}
    for f in spec.FILES:
        if f.name not in files:
            continue
        if notes[f.lab]:
            result["left"][f.name] = notes[f.lab]
            result["runs"][f.lab] = notes[f.lab]
            continue
        try:
            rows = read_csv(files[f.name], f.columns, f.name)
            spec.check_file(f, rows)
        except Bad as e:
            result["left"][f.name] = str(e)
            continue
        result["text"][f.name] = "".join(prefix + ",".join(raw) + "\n" for _, raw in rows)
        kept[f.name] = [v for v, _ in rows]
        result.setdefault("marks", {})[f.name] = fingerprints(f.name, files[f.name], [raw for _, raw in rows])
        summary = spec.SUMMARIES.get(f.name)
        if summary:
            metrics, points = summary([v for v, _ in rows])
            result["metrics"].update({k: x for k, x in metrics.items() if x is not None})
            result["points"].update(points)
    if reader.PREDICTIONS in files:
        result["points"]["predictions"], result["predicted"] = spec.predictions(
            files[reader.PREDICTIONS], kept)
    else:
        result["predicted"] = {k: "missing" for k, *_ in spec.PREDICTIONS}
    return result


# ------------------------------------------------------------ the class

class Outputs:
    """The files written as the merge goes, under temporary names until
    commit() renames them all."""

    def __init__(self, out):
        self.out, self.files, self.writers, self.handles = out, [], {}, {}
        os.makedirs(os.path.join(out, "plot"), exist_ok=True)
        for f in spec.FILES:
            self.open(f.name, MACHINE_COLUMNS + f.column_names)
        for fig, cols in spec.POINTS.items():
            self.open(f"plot/{fig}.csv", MACHINE_COLUMNS + cols)
        self.open("submissions.csv", MACHINE_COLUMNS + ["memory"] + [m[0] for m in spec.METRICS])
        self.open("left-out.csv", ["sub", "file", "reason"])
        self.open("copies.csv", ["sub", "other_sub", "file", "what"])

    def open(self, rel, header):
        path = os.path.join(self.out, rel)
        f = open(path + ".tmp", "w", newline="", encoding="ascii", errors="replace")
        self.files.append((f, path))
        self.handles[rel] = f
        self.writers[rel] = csv.writer(f, lineterminator="\n")
        self.writers[rel].writerow(header)

    def row(self, rel, values):
        self.writers[rel].writerow(values)

    def text(self, rel, text):
        self.handles[rel].write(text)

    def commit(self):
        for f, path in self.files:
            f.close()
            os.replace(path + ".tmp", path)

    def discard(self):
        for f, path in self.files:
            f.close()
            try:
                os.unlink(path + ".tmp")
            except FileNotFoundError:
                pass


def fmt(x):
    return f"{x:.6g}" if isinstance(x, float) else str(x)


def merge(submissions, out, jobs=2, log=print):
    """Merges every submission in `submissions` (a directory or a class zip)
    into `out`. Returns the counts the captions use."""
    found = find_submissions(submissions)
    if not found:
        raise OSError(f"{submissions}: no submissions (*.tar.gz, folders, or a Gradescope zip)")
    os.makedirs(out, exist_ok=True)
    key = load_secret(out)
    # In the order of their ids, so that the order of the rows says nothing
    # of the names.
    ids = {name: anonymous_id(key, name) for name, _ in found}
    if len(set(ids.values())) != len(ids):
        raise OSError("two submissions with the same id: run again with a new CLASS directory")

    counts = {"submissions": len(found), "merged": 0, "rejected": 0, "machines": set(),
              "copies": 0, "seen": {}, "runs": {TINY: 0, BUSY: 0},
              "left": {f.name: 0 for f in spec.FILES}, "missing": {f.name: 0 for f in spec.FILES},
              "drawn": {fig: set() for fig in spec.POINTS},
              # predictions not drawn: {key: {"missing": n, "unparseable": n, "not measured": n}}
              "predicted": {k: {} for k, *_ in spec.PREDICTIONS},
              "machines_drawn": {fig: set() for fig in spec.POINTS}}
    jobs_list = sorted(((name, source, ids[name], key) for name, source in found),
                       key=lambda job: job[2])
    outputs = Outputs(out)
    try:
        if jobs > 1 and len(found) > 1:
            pool = multiprocessing.get_context("fork").Pool(jobs)
            results = pool.imap(process, jobs_list, chunksize=4)
        else:
            pool, results = None, map(process, jobs_list)
        try:
            for result in results:
                record(result, outputs, counts, log)
        finally:
            if pool:
                pool.terminate()
                pool.join()
    except BaseException:
        outputs.discard()
        raise
    outputs.commit()
    return counts


def record(result, outputs, counts, log):
    """Writes one submission's rows and says what was left out."""
    name, sub = printable(result["name"]), result["sub"]
    if result["reject"]:
        counts["rejected"] += 1
        for f in spec.FILES:
            counts["left"][f.name] += 1
        why = printable(result["reject"].replace(result["name"], "submission"))
        log(f"left out {name} (sub {sub}): {reader.plain(why)}")
        # OUT may be shared: the reason without the names from inside the
        # archive (reader.quote() marks them), nor the submission's own.
        outputs.row("left-out.csv", [sub, "*", reader.public(why)])
        return
    ident, machine = result["ident"], result["ident"][1]
    counts["merged"] += 1
    counts["machines"].add(machine)
    for f in spec.FILES:
        if f.name in result["text"]:
            outputs.text(f.name, result["text"][f.name])
        elif f.name in result["left"]:
            counts["left"][f.name] += 1
            outputs.row("left-out.csv", [sub, f.name, result["left"][f.name]])
        else:
            counts["missing"][f.name] += 1
    for note in result["runs"].values():
        counts["runs"][note] += 1
    for fig, points in result["points"].items():
        for point in points:
            outputs.row(f"plot/{fig}.csv", ident + [fmt(x) for x in point])
        if points:
            counts["drawn"][fig].add(sub)
            counts["machines_drawn"][fig].add(machine)
    outputs.row("submissions.csv", ident + [result["machine"].get("memory", "")] +
                [fmt(result["metrics"][k]) if k in result["metrics"] else ""
                 for k, *_ in spec.METRICS])
    for k, why in result["predicted"].items():
        counts["predicted"][k][why] = counts["predicted"][k].get(why, 0) + 1
    unparseable = [k for k, why in result["predicted"].items() if why == "unparseable"]
    if unparseable:
        outputs.row("left-out.csv", [sub, reader.PREDICTIONS,
                                     f"{', '.join(unparseable)}: no positive number in the prediction"])
    if result["left"]:
        reasons = "; ".join(printable(r) for r in result["left"].values())
        log(f"left out of the class figures, {name} (sub {sub}): {reasons}")
    copies(result, outputs, counts, log)


def fingerprints(name, data, raw_rows):
    """What copies() compares of one data file: its bytes' digest, and a
    digest per RUN consecutive rows whose timings (wall_s, or the file's
    first timing column; none in an untimed file) all have SIGNIFICANT
    digits or more."""
    marks = {("file", hashlib.sha256(data).hexdigest())}
    f = spec.BY_NAME[name]
    if not f.timing:
        return marks
    wall = f.column_names.index(f.timing[0])
    walls = [raw[wall] for raw in raw_rows]
    for i in range(len(walls) - RUN + 1):
        run = walls[i:i + RUN]
        if all(len(w.split("e")[0].split("E")[0].replace(".", "").lstrip("0")) >= SIGNIFICANT for w in run):
            marks.add(("run", hashlib.sha256(",".join(run).encode()).hexdigest()[:16]))
    return marks


def copies(result, outputs, counts, log):
    """Lists this submission beside each earlier one whose data file is the
    same bytes or shares a run of timings: a row per pair and file."""
    sub, found = result["sub"], {}
    for fname, marks in sorted(result.get("marks", {}).items()):
        for kind, digest in sorted(marks):	# "file" first: the same bytes says it all
            other = counts["seen"].setdefault((fname, kind, digest), sub)
            if other != sub:
                found.setdefault((other, fname), "the same bytes" if kind == "file"
                                 else f"{RUN} timings in a row the same")
    for (other, fname), what in sorted(found.items()):
        outputs.row("copies.csv", [sub, other, fname, what])
        counts["copies"] += 1
        log(f"copies? sub {sub} and sub {other}: {fname}, {what}")
