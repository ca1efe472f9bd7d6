#!/usr/bin/env python3
"""validate.py - bin/iopattern against fio, the reference I/O benchmark
(`make validate`, through validate.sh, which sets BIN, SCRATCH and SCALE).

Each job runs in both tools the same way: the same block size, direction,
O_DIRECT, file size and engine (fio's psync, one pread/pwrite at a time,
against iopattern's default; fio's io_uring at --iodepth N against
iopattern --iodepth N); random offsets drawn with replacement (norandommap);
a cold cache (fio invalidates the file's pages by default, iopattern
--cold); and a new file written just before each run on one path (fio lays
one out, with overwrite=1 and fallocate=none so that writes overwrite data;
iopattern creates, fills and removes its own); and writes of one random
buffer as it is (fio's scramble_buffers off: see the seq write job).

Each job is sized from a calibration: one time-based fio run of SECONDS,
whose rate gives the bytes that take SECONDS; both tools then move those
bytes, so every run lasts a second or more (SCALE=full: 4) and both make
the same number of I/Os. The tools alternate: RUNS rounds (default 5) of
one run of each, who goes first alternating too. Printed: both tools'
median throughput, and the ratio iopattern / fio as the median of the
rounds' ratios, with its 95% interval (a seeded bootstrap: the rounds
resampled, the median of their ratios, 2.5th and 97.5th percentiles) and
whether it is within 10%. A round's two runs follow each other, so a
change in the disk's speed that outlasts a run falls on both sides of its
ratio; each round's pair is printed too, to show the spells a median
hides (this virtual disk's sequential reads have ranged 1,449-3,649 MiB/s
within one job). Then what each tool asked of the system: the device's
reads and writes during the timed runs (the block layer's counters in
/sys/dev/block/MAJ:MIN/stat: how many, how big; the file's fill or layout
is included for both, and so is any other process's I/O to that device),
CPU seconds, and the system calls of one more run of each under
`strace -f -c`, so that a difference in
what is measured cannot hide behind a ratio: a "differs:" line names every
one of these that is more than 10% apart.
"""
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile

SCALE = os.environ.get("SCALE", "quick")
BIN = os.environ.get("BIN", "bin")
SCRATCH = os.environ.get("SCRATCH", "scratch")
RUNS = int(os.environ.get("RUNS", "5"))
SECONDS = {"tiny": 0.3, "quick": 1.5, "full": 4.0}[SCALE]
FILE = {"tiny": "16M", "quick": "256M", "full": "1G"}[SCALE]
PATH = os.path.join(SCRATCH, "validate.dat")
# The system calls worth comparing: the I/O, the ring, the syncs.
IO_CALLS = ["read", "write", "pread64", "pwrite64", "preadv", "pwritev",
            "io_uring_enter", "fsync", "fdatasync", "fadvise64"]

# name, goal, iopattern options, fio options (block size first), bytes per I/O
JOBS = [
    # Sequential jobs of 512 KiB I/Os: a buffer of 128 pages, which the disk
    # takes as one request wherever its pages lie. A 1 MiB buffer needs 256
    # segments unless neighbouring pages happen to be neighbours in physical
    # memory too, and this virtio disk takes 254 (queue/max_segments): each
    # 1 MiB read became one request or two by luck. Measured in two runs in
    # a row: iopattern split, fio whole (ratio 0.75), then the reverse (1.25).
    #
    # This virtual disk reads a request's 128 pieces (one per 4 KiB page, as
    # the pages lie in physical memory) much slower than one piece: in
    # alternating runs iopattern read 1.5-1.7 GB/s with 4 KiB pages and
    # 4.1-4.9 GB/s with its buffer in a huge page, and fio, whose pages lie
    # as luck has them, 1.5-3.3 GB/s, with the same device reads and system
    # calls. So where fio can have a huge page too (HUGE_JOBS), both tools
    # read into one: iopattern --pages huge, fio --mem=mmaphuge (hugetlbfs).
    ("seq read 512K, O_DIRECT", True, "--op read --pattern seq -b 512K --direct --cold",
     "--rw=read --bs=512k --direct=1"),
    # fio changes a few bytes in every 512 of its buffer before each write
    # (scramble_buffers, against deduplicating storage); iopattern writes its
    # random buffer as it is. Left on, that took fio 40 us of CPU per 1 MiB
    # write here (its runtime 117-127 ms longer than its 3,000 writes' summed
    # latencies; 2 ms with it off) and iopattern came out 1.11-1.16x faster.
    ("seq write 512K, O_DIRECT", True, "--op write --pattern seq -b 512K --direct --cold",
     "--rw=write --bs=512k --direct=1 --scramble_buffers=0"),
    ("random read 4K, O_DIRECT", True, "--op read --pattern random -b 4K --direct --cold",
     "--rw=randread --bs=4k --direct=1 --norandommap"),
    ("random read 4K, io_uring depth 1", True,
     "--op read --pattern random -b 4K --direct --cold --iodepth 1",
     "--rw=randread --bs=4k --direct=1 --norandommap --ioengine=io_uring --iodepth=1"),
    # iopattern submits every free slot in one call: fio is told to batch the
    # same way. Left to its defaults, it made one io_uring_enter per I/O here
    # (47,324 for 47,294 I/Os, iopattern 1,478) with twice the CPU time, and
    # iopattern was 1.33x faster.
    ("random read 4K, io_uring depth 32", True,
     "--op read --pattern random -b 4K --direct --cold --iodepth 32",
     "--rw=randread --bs=4k --direct=1 --norandommap --ioengine=io_uring --iodepth=32 "
     "--iodepth_batch_submit=32 --iodepth_batch_complete_max=32"),
    ("stride read 4K every 64K, O_DIRECT", False,
     "--op read --pattern stride -b 4K --stride 64K --direct --cold",
     "--rw=read:60k --bs=4k --direct=1"),
    ("random write 4K, O_DIRECT", False, "--op write --pattern random -b 4K --direct --cold",
     "--rw=randwrite --bs=4k --direct=1 --norandommap --scramble_buffers=0"),
    ("seq read 1M, buffered, cold", False, "--op read --pattern seq -b 1M --cold",
     "--rw=read --bs=1M"),
]


HUGE_JOBS = {"seq read 512K, O_DIRECT"}


def huge_page_dir():
    """A hugetlbfs mount this user may create a file in, with a huge page
    free, for fio's buffer (--mem=mmaphuge:DIR/FILE); None where there is
    none (hugetlbfs needs an administrator: `mount -t hugetlbfs none DIR`
    and pages reserved in /proc/sys/vm/nr_hugepages)."""
    try:
        with open("/proc/meminfo") as f:
            free = [int(line.split()[1]) for line in f if line.startswith("HugePages_Free:")]
        with open("/proc/mounts") as f:
            mounts = [line.split()[1] for line in f if line.split()[2] == "hugetlbfs"]
    except OSError:
        return None
    usable = [m for m in mounts if os.access(m, os.W_OK | os.X_OK)]
    return usable[0] if usable and free and free[0] > 0 else None


def size(text):
    """'4k', '1M', '256M' -> bytes."""
    units = {"k": 1 << 10, "m": 1 << 20, "g": 1 << 30}
    return int(text[:-1]) * units[text[-1].lower()] if text[-1].isalpha() else int(text)


def block_stat():
    """The scratch file system's device counters: reads, sectors read,
    writes, sectors written (sectors of 512 bytes, whatever the device's)."""
    dev = os.stat(SCRATCH).st_dev
    try:
        with open(f"/sys/dev/block/{os.major(dev)}:{os.minor(dev)}/stat") as f:
            v = [int(x) for x in f.read().split()]
        return [v[0], v[2], v[4], v[6]]
    except OSError:
        return None	# a tmpfs, an overlay: no block device to ask


def run(cmd, trace=None):
    """Runs cmd (under strace -f -c into trace, if given); its stdout."""
    if trace:
        cmd = ["strace", "-f", "-c", "-o", trace] + cmd
    done = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if os.path.exists(PATH):
        os.unlink(PATH)	# fio leaves its file; iopattern wants a new one
    if done.returncode != 0:
        sys.exit(f"validate: {' '.join(cmd)}: exit {done.returncode}: {done.stderr.strip()}")
    return done.stdout


def fio_cmd(options, extra):
    return ["fio", "--name=validate", f"--filename={PATH}", "--ioengine=psync",
            f"--size={FILE}", "--overwrite=1", "--fallocate=none",
            "--output-format=json"] + options.split() + extra


def fio(options, total, trace=None):
    """One fio run of total bytes: MiB/s, CPU seconds."""
    out = json.loads(run(fio_cmd(options, [f"--io_size={total}"]), trace))["jobs"][0]
    side = out["read"] if out["read"]["io_bytes"] > 0 else out["write"]
    cpu = (out["usr_cpu"] + out["sys_cpu"]) / 100 * out["job_runtime"] / 1000
    return side["bw_bytes"] / (1 << 20), cpu


def iopattern(options, total, trace=None):
    """One iopattern trial of total bytes: MiB/s, CPU seconds."""
    out = run([f"{BIN}/iopattern", "-r", "1", "--csv", "--file-size", FILE,
               "--total", str(total)] + options.split() + [PATH], trace)
    row = dict(zip(*[line.split(",") for line in out.splitlines()[:2]]))
    return float(row["mib_s"]), float(row["cpu_s"])


def calibrate(fio_options, io_bytes):
    """Bytes that fio moves in SECONDS, a whole number of I/Os."""
    out = json.loads(run(fio_cmd(fio_options, ["--time_based", f"--runtime={SECONDS}s"])))
    side = out["jobs"][0]["read"] if out["jobs"][0]["read"]["io_bytes"] else out["jobs"][0]["write"]
    return max(1, int(side["bw_bytes"] * SECONDS) // io_bytes) * io_bytes


def syscalls(trace):
    """strace -c's summary: {syscall: calls}."""
    calls = {}
    with open(trace) as f:
        for line in f:
            words = line.split()
            if len(words) >= 5 and words[0][0].isdigit() and words[-1] != "total":
                calls[words[-1]] = int(words[3])
    return calls


def paired(ours, theirs, draws=2000):
    """The median of the rounds' ratios ours[i] / theirs[i], and its 95%
    bootstrap interval: (median, low, high)."""
    ratios = [a / b for a, b in zip(ours, theirs)]
    rng = random.Random(1)	# the same resamples every time: a reproducible interval
    medians = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(draws))
    return statistics.median(ratios), medians[int(0.025 * draws)], medians[int(0.975 * draws) - 1]


def apart(a, b):
    """a and b more than 10% apart (either way)."""
    return max(a, b) > 1.1 * min(a, b) if min(a, b) > 0 else a != b


def device_line(deltas):
    """Median device reads and writes per run, with their average size."""
    if not deltas or None in deltas:
        return "no block device counters here"
    parts = []
    for what, n, sectors in (("reads", 0, 1), ("writes", 2, 3)):
        count = statistics.median(d[n] for d in deltas)
        kib = statistics.median(d[sectors] * 512 / 1024 / d[n] if d[n] else 0 for d in deltas)
        parts.append(f"{count:.0f} {what} x {kib:.0f} KiB")
    return ", ".join(parts)


def differences(iop_options, cpu, dev, calls):
    """What differs by more than 10% between the tools on a job: CPU, the
    device's work, the I/O calls (cpu and dev: each tool's runs; calls:
    strace's counts, iopattern's and fio's, or None). With a line to print
    first, or None: one I/O at a time, iopattern does the trial's I/Os once
    untimed first (its --help), so of the job's own reads or writes and
    their calls it makes two trials' worth to fio's one (the file's fill
    aside), which are halved here."""
    reading = "--op read" in iop_options
    trials = 1 if "--iodepth" in iop_options or "--jobs" in iop_options else 2
    note = None
    if trials == 2:
        note = (f"iopattern ran one untimed trial of the same I/Os before the timed one: its "
                f"{'reads' if reading else 'writes'} are two trials' to fio's one (halved where compared below)")
    differs = []
    if apart(statistics.median(cpu["iopattern"]), statistics.median(cpu["fio"])):
        differs.append("CPU seconds")
    if None not in dev["iopattern"] + dev["fio"]:
        for n, what in enumerate(("device reads", "sectors read", "device writes", "sectors written")):
            a, b = (statistics.median(d[n] for d in dev[t]) for t in ("iopattern", "fio"))
            own = (n < 2) == reading     # the job's own reads, or its own writes
            a /= trials if own else 1
            if max(a, b) > 64 and apart(a, b):	# a few reads of metadata are not a difference
                differs.append(f"{what} {a:.0f} / {b:.0f}")
    if calls is not None:
        mine, theirs = calls
        # The calls that do the job's I/O (the fill's and layout's writes aside).
        for c in ("pread64", "pwrite64", "io_uring_enter"):
            a = mine.get(c, 0) / (trials if c == ("pread64" if reading else "pwrite64") else 1)
            if apart(a, theirs.get(c, 0)):
                differs.append(f"{c} {a:.0f} / {theirs.get(c, 0)}")
    return note, differs


def job(name, goal, iop_options, fio_options, tracing, hugedir):
    io_bytes = size(fio_options.split("--bs=")[1].split()[0])
    huge = name in HUGE_JOBS and hugedir is not None
    if huge:
        name += ", huge pages"
        iop_options += " --pages huge"
        fio_options += f" --mem=mmaphuge:{hugedir}/validate-fio"
    total = calibrate(fio_options, io_bytes)
    ours, theirs, cpu, dev = [], [], {"iopattern": [], "fio": []}, {"iopattern": [], "fio": []}
    for i in range(RUNS):
        # Who goes first alternates, so that neither always finds the disk busier.
        order = [("iopattern", iopattern, iop_options), ("fio", fio, fio_options)]
        for tool, measure, options in (order if i % 2 == 0 else order[::-1]):
            before = block_stat()
            mib_s, cpu_s = measure(options, total)
            after = block_stat()
            (ours if tool == "iopattern" else theirs).append(mib_s)
            cpu[tool].append(cpu_s)
            dev[tool].append([b - a for a, b in zip(before, after)] if before and after else None)
    ratio, low, high = paired(ours, theirs)
    within = 0.9 <= ratio <= 1.1
    verdict = ("within 10%: " + ("yes" if within else "NO")) if goal else "(no goal)"
    print(f"{name:<36} {statistics.median(ours):9.1f} {statistics.median(theirs):9.1f}"
          f"  {ratio:5.3f} [{low:5.3f}, {high:5.3f}]  {verdict}")
    if name in HUGE_JOBS and not huge:
        print("    buffers in 4 KiB pages, which lie in physical memory as luck has them, and"
              " this job's rate can depend on that: no hugetlbfs with a free huge page here"
              " to give both tools one (see validate.py)")
    print(f"    {total >> 20} MiB a run ({total // io_bytes} I/Os); "
          f"MiB/s ranges {min(ours):.0f}-{max(ours):.0f} / {min(theirs):.0f}-{max(theirs):.0f}; "
          f"CPU s a run {statistics.median(cpu['iopattern']):.3f} / {statistics.median(cpu['fio']):.3f}")
    print("    each round's MiB/s (iopattern / fio): " +
          ", ".join(f"{a:.0f} / {b:.0f}" for a, b in zip(ours, theirs)))
    for tool in ("iopattern", "fio"):
        print(f"    device, {tool + ':':<10} {device_line(dev[tool])}")
    calls = None
    if tracing:
        with tempfile.TemporaryDirectory() as tmp:
            calls = (syscalls(iopattern_trace(iop_options, total, tmp)), syscalls(fio_trace(fio_options, total, tmp)))
        names = [c for c in IO_CALLS if calls[0].get(c, 0) + calls[1].get(c, 0) > 0]
        print("    system calls (strace -f -c, one run each; iopattern / fio): " +
              ", ".join(f"{c} {calls[0].get(c, 0)} / {calls[1].get(c, 0)}" for c in names))
    note, differs = differences(iop_options, cpu, dev, calls)
    if note:
        print("    " + note)
    print("    differs: " + ("; ".join(differs) if differs else "nothing measured here"))
    return goal, within


def iopattern_trace(options, total, tmp):
    iopattern(options, total, os.path.join(tmp, "iopattern"))
    return os.path.join(tmp, "iopattern")


def fio_trace(options, total, tmp):
    fio(options, total, os.path.join(tmp, "fio"))
    return os.path.join(tmp, "fio")


def main():
    version = subprocess.run(["fio", "--version"], stdout=subprocess.PIPE, text=True).stdout.strip()
    tracing = subprocess.run(["strace", "-f", "-c", "-o", "/dev/null", "true"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode == 0
    print(f"== iopattern against {version}, file {FILE} in {SCRATCH}, jobs of about {SECONDS} s, "
          f"{RUNS} rounds of one run of each tool")
    if not tracing:
        print("   (strace cannot trace here: no system-call comparison)")
    print(f"{'job':<36} {'iopattern':>9} {'fio':>9}  ratio [95% interval]  "
          "(MiB/s: medians; ratio: the median of the rounds' ratios)")
    results = []
    hugedir = huge_page_dir()
    for name, goal, iop_options, fio_options in JOBS:
        results.append(job(name, goal, iop_options, fio_options, tracing, hugedir))
        sys.stdout.flush()
    goals = [within for goal, within in results if goal]
    print(f"goals met: {sum(goals)} of {len(goals)} (the machine's other work moves these "
          "numbers: run it again when in doubt)")
    return 0 if all(goals) else 1


if __name__ == "__main__":
    sys.exit(main())
