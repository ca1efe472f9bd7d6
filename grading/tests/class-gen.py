#!/usr/bin/env python3
"""class-gen.py - a generated class for testing the class results (make class).

    python3 grading/tests/class-gen.py TEMPLATE OUT -n N [--seed S] [--hostile] [--zip]

TEMPLATE is one real submission, unpacked: data/*.csv and data/machine.txt
from the labs run at SCALE=tiny (and whatever else it holds: labs/, plot/,
answers.md, packed along so that archives have a real size). OUT gets N
copies as make handin packs them (sNNNN.tar.gz, one top directory
iolab-handin/), each on a machine of its own (CPU, cores, file system,
kernel) with its values perturbed and the values derived from them (mib_s,
iops, lines_found) recomputed, so that every copy holds together. Some
copies reorder their columns or carry an extra one, some have Lab 5's
iodepth column with rows at depths 1 to 32, and a machine with 4 cores or
more has Lab 3 rows at 4 threads. Lab 6's time per save (where the template
has lab6-cost.csv) follows the machine's kind of storage (machine.txt's
scratch_dir_storage), which every tenth copy leaves out, as machine.sh did
before it told it.

--hostile adds submissions named hostile-WHAT (tarballs and folders) that
the merge must leave out, and prints "NAME<TAB>REASON" for each: the words
the merge's line about it must contain.
--zip writes OUT/export.zip instead, as Gradescope's "download all
submissions" does: assignment_1_export/submission_metadata.yml and a folder
submission_ID per submission, holding the uploaded tarball (or, for every
fifth, the data files uploaded one by one).
"""

import argparse
import csv
import io
import math
import os
import random
import re
import sys
import tarfile
import time
import zipfile
import zlib

CPUS = ["AMD EPYC 7B13", "Intel(R) Xeon(R) CPU @ 2.20GHz", "Apple M2 (Asahi)",
        "Intel(R) Core(TM) i5-8250U CPU @ 1.60GHz", "AMD Ryzen 7 5800X 8-Core Processor",
        "Intel(R) Core(TM) i7-1165G7 @ 2.80GHz", "AMD Ryzen 5 3600 6-Core Processor",
        "Intel(R) Core(TM) i3-10110U CPU @ 2.10GHz", "Cortex-A72 (Raspberry Pi 4)",
        "Intel(R) Xeon(R) Gold 6248 CPU @ 2.50GHz", "AMD Ryzen 9 7950X", "Intel(R) Celeron(R) N4020",
        "Intel(R) Core(TM) i9-13900K", "AMD Athlon Silver 3050U"]
FILESYSTEMS = ["ext4"] * 6 + ["xfs"] * 2 + ["btrfs"] * 2 + ["tmpfs", "nfs4", "zfs", "f2fs"]
# How fast 4 KiB O_DIRECT random reads go on each (a multiplier of the template's)
FS_SPEED = {"ext4": 1.0, "xfs": 1.1, "btrfs": 0.8, "tmpfs": 1.0, "nfs4": 0.15, "zfs": 0.7, "f2fs": 1.2}
# The storage under a scratch directory that is not tmpfs or NFS, and what
# one fsync waits for there (us; the median, spread by the machine).
DISKS = ["nvme"] * 3 + ["ssd"] * 2 + ["vm-disk"] * 3 + ["hdd"]
FSYNC_US = {"memory": 3, "nvme": 800, "ssd": 1500, "vm-disk": 2500, "hdd": 15000, "network": 8000}
# A save without fsync: open, write, close (and rename), in us; over NFS,
# round trips to the server at open and close.
SAVE_US = {"memory": 12, "network": 500}
FSYNCS = {"fsync-rename": 1, "safe": 2, "log": 1}	# fsyncs per save of each strategy
KERNELS = ["Linux 6.1.0-18-amd64 x86_64", "Linux 6.5.0-21-generic x86_64",
           "Linux 5.15.0-97-generic x86_64", "Linux 6.8.0-31-generic aarch64",
           "Linux 5.10.0-28-amd64 x86_64"]


def read_csv(path):
    with open(path, newline="") as f:
        rows = list(csv.reader(f))
    return rows[0], [dict(zip(rows[0], r)) for r in rows[1:]]


def write_csv(header, rows):
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    for r in rows:
        w.writerow([r.get(c, "") for c in header])
    return out.getvalue().encode()


class Machine:
    def __init__(self, rng):
        self.cpu = rng.choice(CPUS)
        self.cores = rng.choice([2, 2, 4, 4, 8, 16])
        self.fs = rng.choice(FILESYSTEMS)
        self.kernel = rng.choice(KERNELS)
        self.memory = rng.choice([8, 16, 16, 32, 64])
        self.storage = {"tmpfs": "memory", "nfs4": "network"}.get(self.fs) or rng.choice(DISKS)
        # the same CPU model faults at about the same cost
        self.fault = 0.5 + 2.5 * (CPUS.index(self.cpu) % 5) / 4

    def text(self, old=False):
        """machine.txt; old: as machine.sh wrote it before scratch_dir_storage."""
        storage = "" if old else f"scratch_dir_storage: {self.storage} vda\n"
        return (f"date: 2026-11-2{random.randint(0, 9)}T10:00:00Z\nkernel: {self.kernel}\n"
                f"cpu: {self.cpu}\ncores: {self.cores}\nmemory: {self.memory}.0 GiB\n"
                f"scratch_dir_fs: {self.fs}\n{storage}scratch_dir_st_blksize: 4096\n"
                "compiler: cc (Debian 12.2.0-14) 12.2.0\nlibc: glibc 2.36\n").encode()


# A class's guesses before the labs, log-uniform between low and high:
# (key, low, high, unit of the line).
GUESSES = {"P2.4": (0.005, 2, "s"), "P4.1": (0.02, 5, "s"), "P4.2": (0.02, 5, "s"),
           "P4.3": (0.05, 10, "s"), "P6.2": (50, 20000, "us"), "P6.3": (5, 2000, "us")}
KIT_PREDICTIONS = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "predictions.md")


def predictions(i, seed):
    """Copy i's predictions.md (bytes), or None for every sixth. Its own
    random numbers: the copies' data stay what they were without it."""
    if i % 6 == 5:
        return None
    rng = random.Random(seed * 100003 + i)
    lines = []
    with open(KIT_PREDICTIONS, encoding="utf-8") as f:
        for line in f.read().splitlines():
            m = re.match(r"- (P[0-9]+\.[0-9]+) [^:]*:$", line)
            if m and m.group(1) in GUESSES:
                low, high, unit = GUESSES[m.group(1)]
                x = math.exp(rng.uniform(math.log(low), math.log(high)))
                if m.group(1) == "P4.2" and i % 9 == 4:
                    line += " no idea"
                elif unit == "s" and i % 4 == 1:
                    line += f" {x * 1000:.0f} ms"
                else:
                    line += f" {x:.3g} {unit}"
            lines.append(line)
    return ("\n".join(lines) + "\n").encode()


def noise(rng, sd=0.08):
    return math.exp(rng.gauss(0, sd))


def secs(x, digits=6):
    return f"{max(x, 10 ** -digits):.{digits}f}"


def perturb(template, rng, m, variant):
    """{name: bytes} of one generated submission's data/."""
    data = {"machine.txt": m.text(old=variant % 10 == 9)}
    speed = math.exp(rng.gauss(0, 0.4))		# the machine, overall

    header, rows = read_csv(os.path.join(template, "lab1.csv"))
    for r in rows:
        f = speed * noise(rng)
        for c in ("wall_s", "user_s", "sys_s"):
            r[c] = secs(float(r[c]) * f)
    by_trial = {}
    for r in rows:
        if r["mode"] == "overwrite":
            by_trial.setdefault(r["trial"], []).append(r)
    for pair in by_trial.values():		# one writer's worth lost, split at random
        n = int(pair[0]["lines_written"])
        share = rng.choice([0.0, 1.0, rng.random()])
        for r, lost in zip(pair, (round(n * share), n - round(n * share))):
            r["lost_lines"], r["lines_found"] = str(lost), str(n - lost)
    if variant % 7 == 3:		# an extra column, and the columns reordered
        header = header[::-1] + ["note"]
        for r in rows:
            r["note"] = "x"
    data["lab1.csv"] = write_csv(header, rows)

    header, rows = read_csv(os.path.join(template, "lab2.csv"))
    flush_cost = math.exp(rng.gauss(0.3, 0.3))
    for r in rows:
        f = speed * noise(rng) * (flush_cost / int(r["lines_per_lock"]) ** 0.2
                                  if r["flush"] == "1" else 1)
        for c in ("wall_s", "user_s", "sys_s"):
            r[c] = secs(float(r[c]) * f)
    data["lab2.csv"] = write_csv(header, rows)

    header, rows = read_csv(os.path.join(template, "lab3.csv"))
    if m.cores >= 4:
        rows += [dict(r, threads="4", wall_s=str(float(r["wall_s"]) * 0.75))
                 for r in rows if r["threads"] == "3"]
    for r in rows:
        t = int(r["threads"])
        f = speed * noise(rng) * (max(1, t / m.cores) if t > 1 else 1)
        if r["prefault"] == "0" and r["phase"] == "fill":
            f *= m.fault
        r["wall_s"] = secs(float(r["wall_s"]) * f)
        r["cpu_s"] = secs(float(r["cpu_s"]) * f)
        passes = int(r.get("passes") or 1)
        r["mib_s"] = f"{passes * int(r['bytes']) / 1048576 / float(r['wall_s']):.1f}"
    data["lab3.csv"] = write_csv(header, rows)

    header, rows = read_csv(os.path.join(template, "lab3-membw.csv"))	# the ceiling
    for r in rows:
        f = speed * noise(rng)
        r["wall_s"] = secs(float(r["wall_s"]) * f)
        r["mib_s"] = f"{float(r['mib_s']) / f:.1f}"
    data["lab3-membw.csv"] = write_csv(header, rows)

    header, rows = read_csv(os.path.join(template, "lab4-writers.csv"))
    disk = 0.2 if m.fs == "tmpfs" else math.exp(rng.gauss(0.5, 0.8))
    for r in rows:
        f = speed * noise(rng)
        total = int(r["files"]) * int(r["bytes_per_file"]) / 1048576
        r["cpu_s"] = secs(float(r["cpu_s"]) * f)
        r["wall_s"] = secs(float(r["wall_s"]) * f * (disk if r["fsync"] == "1" else 1))
        r["mib_s"] = f"{total / float(r['wall_s']):.3f}"
        r["cpu_mib_s"] = f"{total / float(r['cpu_s']):.3f}"
    data["lab4-writers.csv"] = write_csv(header, rows)

    header, rows = read_csv(os.path.join(template, "lab4-datagen.csv"))
    for r in rows:
        f = speed * noise(rng)
        for c in ("wall_s", "cpu_s", "fill_s", "write_s"):
            r[c] = secs(float(r[c]) * f)
    data["lab4-datagen.csv"] = write_csv(header, rows)

    header, rows = read_csv(os.path.join(template, "lab5.csv"))
    device = FS_SPEED[m.fs] * math.exp(rng.gauss(0, 0.5))

    def timed(r):
        f = speed * noise(rng) / (device if r["direct"] == "1" or r["cold"] == "1" else 1)
        wall = float(r["wall_s"]) * f
        r["wall_s"] = f"{wall:.9f}"
        r["iops"] = f"{int(r['ios']) / wall:g}"
        r["mib_s"] = f"{int(r['bytes']) / 1048576 / wall:g}"
        r["bytes_per_ns"] = f"{int(r['bytes']) / wall / 1e9:.9g}"

    if variant % 2 == 1:		# the queue-depth file that issue 16 adds
        base = [r for r in rows if r["experiment"] == "random-read" and r["series"] == "direct"
                and r["io_bytes"] == "4096"]
        depth = []
        for d in (1, 2, 4, 8, 16, 32):
            depth += [dict(r, experiment="depth", series="io_uring", iodepth=str(d), jobs="1",
                           wall_s=str(float(r["wall_s"]) / min(d, 8) ** 0.8)) for r in base]
        depth += [dict(r, experiment="threads", series="pread", iodepth="1", jobs="2",
                       wall_s=str(float(r["wall_s"]) / 1.6)) for r in base]
        for r in depth:
            timed(r)
        data["lab5-depth.csv"] = write_csv(header + ["iodepth", "jobs", "max_in_flight"], depth)
    for r in rows:
        timed(r)
    data["lab5.csv"] = write_csv(header, rows)

    if os.path.exists(os.path.join(template, "lab6-cost.csv")):
        header, rows = read_csv(os.path.join(template, "lab6-cost.csv"))
        fsync = FSYNC_US[m.storage] * math.exp(rng.gauss(0, 0.5))
        for r in rows:		# each trial saves for about the template's wall_s
            us = (SAVE_US.get(m.storage, 20) * speed +
                  FSYNCS.get(r["strategy"], 0) * fsync) * noise(rng)
            saves = max(3, round(float(r["wall_s"]) * 1e6 / us))
            r["saves"], r["wall_s"] = str(saves), f"{saves * us / 1e6:.6f}"
            r["us_per_save"] = f"{float(r['wall_s']) * 1e6 / saves:.3f}"
        data["lab6-cost.csv"] = write_csv(header, rows)
        with open(os.path.join(template, "lab6-states.csv"), "rb") as f:
            data["lab6-states.csv"] = f.read()	# packed along: the merge does not read it
    return data


def add(tar, name, data, kind=tarfile.REGTYPE, link=""):
    info = tarfile.TarInfo(name)
    info.type, info.linkname, info.mtime, info.mode = kind, link, int(time.time()), 0o644
    info.size = len(data) if kind == tarfile.REGTYPE else 0
    tar.addfile(info, io.BytesIO(data) if kind == tarfile.REGTYPE else None)


def others(template_root):
    """The template's files outside data/: packed as they are."""
    out = []
    for top, dirs, files in os.walk(template_root):
        dirs.sort()
        rel = os.path.relpath(top, template_root)
        if rel == "data" or rel.startswith("data" + os.sep):
            continue
        for f in sorted(files):
            path = os.path.join(top, f)
            with open(path, "rb") as fh:
                out.append((os.path.normpath(os.path.join(rel, f)), fh.read()))
    return out


def tarball(data, extra, tweak=None):
    buf = io.BytesIO()
    members = extra + [("data/" + name, content) for name, content in data.items()]
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.GNU_FORMAT, compresslevel=1) as tar:
        for name, content in sorted(members):	# in make handin's order
            add(tar, "iolab-handin/" + name, content)
        if tweak:
            tweak(tar)
    return buf.getvalue()


def bomb(unpacked=210 << 20):
    """A .tar.gz of a few hundred KiB holding one file of `unpacked` zeros."""
    z = zlib.compressobj(9, zlib.DEFLATED, 31)
    header = tarfile.TarInfo("iolab-handin/plot/lab1-runs.png")
    header.size = unpacked
    out = [z.compress(header.tobuf(format=tarfile.GNU_FORMAT))]
    chunk = bytes(1 << 20)
    for _ in range(unpacked >> 20):
        out.append(z.compress(chunk))
    out.append(z.compress(bytes(1024)) + z.flush())
    return b"".join(out)


def hostile(template, extra, rng, out):
    """Submissions that must be left out: (name, what it is, the reason's words)."""
    good = perturb(template, rng, Machine(rng), 0)

    def edited(name, column, value, rows=1):
        text = good[name].decode().splitlines()
        header = text[0].split(",")
        i = header.index(column)
        for n in range(1, rows + 1):
            fields = text[n].split(",")
            fields[i] = value
            text[n] = ",".join(fields)
        return dict(good, **{name: ("\n".join(text) + "\n").encode()})

    def forged():
        header, rows = read_csv(os.path.join(template, "lab2.csv"))
        for r in rows:
            if r["experiment"] == "sweep" and r["lines_per_lock"] == "1" and r["flush"] == "1":
                r["wall_s"] = "0.050000"
        return dict(good, **{"lab2.csv": write_csv(header, rows)})

    def lost_too_many():
        header, rows = read_csv(os.path.join(template, "lab1.csv"))
        rows[0]["lost_lines"] = str(int(rows[0]["lines_written"]) + 5)
        return dict(good, **{"lab1.csv": write_csv(header, rows)})

    cases = [
        ("hostile-nan.tar.gz", tarball(edited("lab5.csv", "wall_s", "nan"), extra),
         "lab5.csv line 2: wall_s 'nan' is not a number"),
        ("hostile-huge.tar.gz", tarball(edited("lab1.csv", "wall_s", "1e9919"), extra),
         "lab1.csv line 2: wall_s '1e9919' is not a number"),
        ("hostile-inf.tar.gz", tarball(edited("lab4-writers.csv", "mib_s", "1e999"), extra),
         "lab4-writers.csv line 2: mib_s '1e999' is out of range"),
        ("hostile-hex.tar.gz", tarball(edited("lab2.csv", "lines_per_lock", "0x10"), extra),
         "lab2.csv line 2: lines_per_lock '0x10' is not a whole number"),
        ("hostile-negative.tar.gz", tarball(edited("lab3.csv", "wall_s", "-0.002"), extra),
         "lab3.csv line 2: wall_s '-0.002' has a sign"),
        ("hostile-word.tar.gz", tarball(edited("lab5.csv", "iops", "fast"), extra),
         "lab5.csv line 2: iops 'fast' is not a number"),
        ("hostile-forged.tar.gz", tarball(forged(), extra),
         "lab2.csv: all 4 trials of experiment=sweep, lines_per_lock=1, flush=1, lock=flock, "
         "sync=none took exactly 0.05 s: not measured"),
        ("hostile-lost.tar.gz", tarball(lost_too_many(), extra),
         "lab1.csv line 2: lines_found + lost_lines is not lines_written"),
        ("hostile-symlink.tar.gz", tarball({k: v for k, v in good.items() if k != "lab1.csv"}, extra,
                                           lambda t: add(t, "iolab-handin/data/lab1.csv", b"",
                                                         tarfile.SYMTYPE, "/etc/passwd")),
         "iolab-handin/data/lab1.csv is a symbolic link, not a regular file"),
        ("hostile-hardlink.tar.gz", tarball(good, extra, lambda t: add(
            t, "iolab-handin/data/lab9.csv", b"", tarfile.LNKTYPE, "/etc/shadow")),
         "is a hard link, not a regular file"),
        ("hostile-dotdot.tar.gz", tarball(good, extra, lambda t: add(
            t, "iolab-handin/../../evil/data/lab1.csv", b"x\n")), "a member name with '..'"),
        ("hostile-absolute.tar.gz", tarball(good, extra, lambda t: add(t, "/tmp/evil.csv", b"x\n")),
         "an absolute member name: /tmp/evil.csv"),
        ("hostile-bomb.tar.gz", bomb(), "more than 200 MiB unpacked"),
        ("hostile-big.tar.gz", tarball(dict(good, **{"lab5.csv": bytes(9 << 20)}), extra),
         "iolab-handin/data/lab5.csv has 9437184 bytes, more than 8 MiB"),
        ("hostile-notgz.tar.gz", os.urandom(4096), "not a readable .tar.gz"),
        ("hostile-nomachine.tar.gz",
         tarball({k: v for k, v in good.items() if k != "machine.txt"}, extra), "no data/machine.txt"),
    ]
    if "lab6-cost.csv" in good:
        impossible = edited("lab6-cost.csv", "us_per_save", "0.500")
        cases.append(("hostile-lab6.tar.gz", tarball(impossible, extra),
                      "lab6-cost.csv line 2: us_per_save 0.5 is not wall_s / saves"))
    for name, content, why in cases:
        with open(os.path.join(out, name), "wb") as f:
            f.write(content)
        print(f"{name}\t{why}")
    # A folder whose data/lab1.csv is a symbolic link to a file outside it.
    folder = os.path.join(out, "hostile-folderlink", "data")
    os.makedirs(folder)
    for name, content in good.items():
        if name != "lab1.csv":
            with open(os.path.join(folder, name), "wb") as f:
                f.write(content)
    os.symlink("/etc/passwd", os.path.join(folder, "lab1.csv"))
    print("hostile-folderlink\tdata/lab1.csv is not a regular file")


def main():
    p = argparse.ArgumentParser(description="a generated class for make class")
    p.add_argument("template")
    p.add_argument("out")
    p.add_argument("-n", type=int, required=True)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--hostile", action="store_true")
    p.add_argument("--zip", action="store_true")
    a = p.parse_args()
    rng = random.Random(a.seed)
    random.seed(a.seed)
    data_dir = os.path.join(a.template, "data")
    extra = [(name, content) for name, content in others(a.template) if name != "predictions.md"]
    os.makedirs(a.out, exist_ok=True)
    export = None
    if a.zip:
        export = zipfile.ZipFile(os.path.join(a.out, "export.zip"), "w", zipfile.ZIP_STORED)
        export.writestr("assignment_1_export/submission_metadata.yml",
                        "submission_1000:\n  :submitters:\n  - :name: A Student\n")
    for i in range(a.n):
        data = perturb(data_dir, rng, Machine(rng), i)
        md = predictions(i, a.seed)
        mine = extra + ([("predictions.md", md)] if md else [])
        if export is None:
            with open(os.path.join(a.out, f"s{i:04d}.tar.gz"), "wb") as f:
                f.write(tarball(data, mine))
        elif i % 5 == 4:		# files uploaded one by one
            for name, content in data.items():
                export.writestr(f"assignment_1_export/submission_{1000 + i}/{name}", content)
            if md:
                export.writestr(f"assignment_1_export/submission_{1000 + i}/predictions.md", md)
        else:
            export.writestr(f"assignment_1_export/submission_{1000 + i}/iolab-handin.tar.gz",
                            tarball(data, mine))
    if export is not None:
        link = zipfile.ZipInfo("assignment_1_export/submission_9999/data/lab1.csv")
        link.external_attr = (0o120777 << 16)
        export.writestr(link, "/etc/passwd")
        export.close()
    if a.hostile:
        hostile(data_dir, extra, rng, a.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
