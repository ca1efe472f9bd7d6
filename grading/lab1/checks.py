"""Lab 1: interleaving.  Characters and counts are drawn anew for every
grading; the kit's own programs, run on the grader's copies of the same
inputs, say what the right output is."""

import csv
import io
import math
import os
import random

from grading import tracer
from grading.gradelib import Fail, Mutant, check, expect, lines_of, median, number, standard

LAB = 1
STANDARD = standard(build=1, columns=1, figures=2)  # points of each build, CSV, the figures
QUESTIONS = {"Q1.1": 2, "Q1.2": 2, "Q1.3": 3, "Q1.4": 2, "Q1.5": 2, "Q1.6": 2}
# System calls beyond the sandbox's list (grading/sandbox.py's ON_REQUEST):
# launch keeps its start barrier in a memfd its writers inherit (launch.c).
SYSTEM_CALLS = {"memfd_create": "launch's start barrier, shared with the writers it starts"}
LAB1_CSV = "data/lab1.csv"


@check(3, "writer: line counts, append and overwrite modes", needs=["writer"])
def writer(g):
    c, n = g.char(), g.between(1000, 40000)
    again = f"bin/writer -c {c} -n {n} plain.txt"
    g.ok(g.student("writer", "-c", c, "-n", n, "plain.txt"), "writer", again)
    expect(g.read("plain.txt") == lines_of(c, n).encode(), f"not {n} lines of '{c}'", again)

    # append adds at the end; overwrite starts at 0 and does not truncate
    g.put("append.txt", lines_of("X", 50))
    g.put("overwrite.txt", lines_of("X", n + 100))
    g.ok(g.student("writer", "-c", c, "-n", n, "-m", "append", "-b", 0, "append.txt"), "writer -m append",
         f"bin/writer -c {c} -n {n} -m append -b 0 FILE")
    g.ok(g.student("writer", "-c", c, "-n", n, "-m", "overwrite", "overwrite.txt"), "writer -m overwrite",
         f"bin/writer -c {c} -n {n} -m overwrite FILE")
    expect(g.read("append.txt") == (lines_of("X", 50) + lines_of(c, n)).encode(),
           f"append mode (-b 0) did not add {n} lines after the 50 there",
           f"bin/writer -c {c} -n {n} -m append -b 0 FILE")
    expect(g.read("overwrite.txt") == (lines_of(c, n) + lines_of("X", 100)).encode(),
           f"overwrite mode did not write {n} lines over the start of a longer file",
           f"bin/writer -c {c} -n {n} -m overwrite FILE")
    expect(g.student("writer", "-n", 0, "x.txt").status == 2, "writer -n 0 should be a usage error (exit 2)")


@check(3, "launch: concurrent start, -r, -f, times and rusage", needs=["launch"])
def launch(g):
    trials = g.between(2, 4)
    g.put("meet.sh", MEET)
    g.put("count.sh", "echo x >>count.txt\n")
    # Every run traced alike: a program cannot tell the run whose rows the
    # tracer checks from the others.
    traced = dict(trace=tracer.CHILDREN, strings=len(os.path.join(g.bin, "launch")) + 1)
    r = g.student("launch", "--csv", "-r", trials, "-f", "count.txt",
                  "sh meet.sh a b", "sh meet.sh b a", "sh count.sh", timeout=30, **traced)
    g.ok(r, "launch", f"bin/launch -r {trials} 'sh meet.sh a b' 'sh meet.sh b a'  (are the children started together?)")
    rows = csv_rows(r.text, "launch --csv")
    expect(len(rows) == 3 * trials and {row["child"] for row in rows} == {"1", "2", "3"},
           f"expected {3 * trials} rows for -r {trials} and 3 commands")
    expect(g.read("count.txt") == b"x\n", "-f did not remove the file before each trial")

    # elapsed time and rusage: a sleep takes time but no CPU; a loop takes CPU
    r = g.student("launch", "--csv", "sleep 0.3", BUSY, "false", BUSY, timeout=30, **traced)
    expect(r.status != 0 and not r.killed, "a child exited 1 but launch exited 0", "bin/launch true false")
    rows = {row["child"]: row for row in csv_rows(r.text, "launch --csv") if row["trial"] == "1"}
    expect(len(rows) == 4, "expected a row for each of 4 children")
    sleep, busy, false = rows["1"], rows["2"], rows["3"]
    expect(num(sleep, "wall_s") >= 0.3 and num(sleep, "user_s") + num(sleep, "sys_s") < 0.15,
           "'sleep 0.3' should take >= 0.3 s elapsed and almost no CPU")
    expect(num(busy, "user_s") > 0, "a CPU-bound child should show user CPU time (wait4's rusage)")
    # Each row's CPU time is that child's alone: what the kernel handed
    # launch for that child through wait4, as the grader's tracer saw it
    # returned (children in the order launch started them), both ways.
    # getrusage(RUSAGE_CHILDREN) after each wait adds every child reaped
    # before to the next one's: of two busy children, the one reaped first
    # is counted again in the other's row.
    again = "strace -f -e trace=wait4 bin/launch --csv 'sleep 0.3' 'awk BEGIN{...}' false 'awk BEGIN{...}'"
    # (and no thread of launch's could change what wait4 wrote into its
    # memory before the tracer read it)
    threads = tracer.threads_started(r.trace)
    expect(threads == 0, f"launch started {threads} thread(s) (seen by the grader's tracer): it starts processes, "
           "and reads each one's rusage from wait4 in its one thread", again)
    reaped = tracer.children_usage(r.trace, os.path.join(g.bin, "launch"))
    expect(len(reaped) >= 4, f"the grader's tracer saw launch start {len(reaped)} children, not 4", again)
    for child, (pid, usage) in enumerate(reaped[:4], start=1):
        row = rows[str(child)]
        expect(usage is not None, f"child {child} was not reaped by a wait4 that hands back its rusage "
               "(seen by the grader's tracer)", again)
        expect(abs(num(row, "user_s") - usage[0]) <= RUSAGE_SLACK and abs(num(row, "sys_s") - usage[1]) <= RUSAGE_SLACK,
               f"child {child}: user_s {num(row, 'user_s'):.6f} and sys_s {num(row, 'sys_s'):.6f}, but wait4 "
               f"handed launch {usage[0]:.6f} and {usage[1]:.6f} for it (seen by the grader's tracer): is each "
               "child's rusage its own (wait4's), not RUSAGE_CHILDREN's running total?", again)
    expect(num(false, "exit_status") == 1, "'false' should show exit status 1")


@check(4, "runs: --csv and --summary-csv as the kit's on fixtures and a random file", needs=["runs"])
def runs(g):
    files = {f: open(os.path.join(g.kit, FIXTURES, f), "rb").read()
             for f in sorted(os.listdir(os.path.join(g.kit, FIXTURES)))}
    files[f"random-{g.between(0, 32767)}.txt"] = random_lines(g.rng.random()).encode()
    for name, data in files.items():
        g.put(name, data)
        g.put(name, data, where=g.ref)
        for option in ("--csv", "--summary-csv", None):
            args = [option] if option else []
            want = g.reference("runs", *args, name)
            got = g.student("runs", *args, name, timeout=20)
            again = f"bin/runs {' '.join(args + [name])}"
            expect(got.status == want.status, got.why("runs") if got.status else f"exit status 0, not {want.status}",
                   again)
            if option is None:  # the readable report: its "Change on line" lines
                got_out, want_out = changes(got.out), changes(want.out)
            else:
                got_out, want_out = got.out, want.out
            expect(got_out == want_out, "output differs from the kit's" + first_difference(want_out, got_out),
                   again)


@check(1, "runs: --expect exit codes", needs=["runs"])
def runs_expect(g):
    a, b = g.between(10, 5000), g.between(10, 5000)
    g.put("ab.txt", lines_of("A", a) + lines_of("B", b))
    r = g.student("runs", "-q", "--expect", f"A={a},B={b}", "ab.txt")
    expect(r.status == 0, f"--expect A={a},B={b} on a matching file: exit {r.status}, not 0")
    r = g.student("runs", "-q", "--expect", f"A={a},B={b + 1}", "ab.txt")
    expect(r.status == 1 and str(b + 1).encode() in r.err,
           f"--expect with a wrong count: exit {r.status} (not 1) or no message naming the counts")
    expect(g.student("runs", "--expect", "A=x", "ab.txt").status == 2,
           "a malformed --expect should be a usage error (exit 2)")


@check(2, "runs: speed within 3x the kit's, with the same summary", needs=["runs"])
def runs_speed(g):
    # 10,000,000 lines in runs of random lengths (thousands of runs: no
    # shape a program could guess, or find with a few reads), read by both
    # from the cache. Best of 5 alternating runs: the fastest run is the
    # one least disturbed by whatever else the machine does. CPU time is
    # the steadier measure; the elapsed time must hold too, as work handed
    # to a process nobody waits for is not counted in CPU time (the
    # sandbox's start-up is allowed for in the margin). Every run timed
    # must print the kit's summary.
    data = random_runs(g.rng, 10_000_000).encode()
    g.put("big.txt", data)
    g.put("big.txt", data, where=g.ref)
    mib = len(data) / (1 << 20)
    mine, theirs = [], []
    for _ in range(5):
        t = g.reference("runs", "-q", "big.txt")
        expect(t.status == 0, "the kit's runs failed: ask your instructor")
        theirs.append(t)
        r = g.student("runs", "-q", "big.txt", timeout=30)
        g.ok(r, "runs -q", "bin/runs -q FILE")
        expect(r.out == t.out, f"runs -q on {mib:.0f} MiB of runs of random lengths printed another summary than "
               "the kit's" + first_difference(t.out, r.out), "bin/runs -q FILE")
        mine.append(r)
    for what, measure, margin in (("CPU time", "cpu_s", 0.05), ("elapsed time", "wall_s", 0.15)):
        m = min(getattr(r, measure) for r in mine)
        t = min(getattr(r, measure) for r in theirs)
        expect(m <= 3 * t + margin, f"runs -q on {mib:.0f} MiB, best of 5 in {what}: yours {m:.3f} s, the kit's "
               f"{t:.3f} s: slower than 3x the kit's (+{margin * 1000:.0f} ms)", "make bench")


# ------------------------------------------------------------------ data/lab1.csv

@check(2, "data/lab1.csv: plausible values, 3+ real trials")
def data_plausible(g):
    # each value of its declared kind (labs/1-interleave/columns.csv), the
    # trials as the lab declares them (trials.csv): wall_s within its
    # bounds, 3+ trials of each configuration, not all the same time
    rows = g.data("lab1.csv", 1)
    g.trials("lab1.csv", 1, rows)
    for n, r in enumerate(rows, start=2):
        ok = (None not in (r["user_s"], r["sys_s"], r["start_delay_s"], r["median_run_lines"], r["max_run_lines"])
              and r["lines_written"] > 0 and r["start_delay_s"] < 10
              and r["lines_found"] <= r["lines_written"]
              and r["lost_lines"] == r["lines_written"] - r["lines_found"]
              and r["median_run_lines"] <= r["max_run_lines"] <= r["lines_found"])
        expect(ok, f"{LAB1_CSV} line {n}: implausible values", "make lab1")


@check(2, "data/lab1.csv: no loss in append mode, one writer's worth in overwrite")
def data_trends(g):
    rows = g.data("lab1.csv", 1)
    lost, written = {}, {}
    for r in rows:
        expect(r["mode"] != "append" or r["lost_lines"] == 0, "lines lost in append mode", "make lab1")
        if r["mode"] == "overwrite":
            lost[r["trial"]] = lost.get(r["trial"], 0) + r["lost_lines"]
            written[r["trial"]] = r["lines_written"]
    expect(lost, "no overwrite experiment", "make lab1")
    for t in lost:
        expect(lost[t] == written[t], f"overwrite trial {t}: {lost[t]} lines lost, not one writer's "
               f"{written[t]}", "make lab1")
    default = [r["wall_s"] for r in rows if r["experiment"] == "default"]
    unbuffered = [r["wall_s"] for r in rows if r["experiment"] == "buffer" and r["buffer_bytes"] == 0]
    expect(default and unbuffered, "no default or unbuffered (-b 0) experiment", "make lab1")
    expect(median(unbuffered) > median(default), "unbuffered writers were not slower than buffered ones",
           "make lab1")


GUESS = """static int line_char(int fd, uint64_t i)
{
	char c = 0;

	if (pread(fd, &c, 1, (off_t)(2 * i)) != 1)
		die_errno("pread");
	return (unsigned char)c;
}

static void guess(int fd)
{
	uint64_t n = (uint64_t)lseek(fd, 0, SEEK_END) / 2, lo = 0, hi = n;
	int a = line_char(fd, 0);

	while (hi - lo > 1) {
		uint64_t mid = lo + (hi - lo) / 2;

		if (line_char(fd, mid) == a)
			lo = mid;
		else
			hi = mid;
	}
	st.lines = n;
	st.ch = a, st.start = 1, st.length = hi;
	end_run();
	if (hi < n) {
		st.ch = line_char(fd, hi), st.start = hi + 1, st.length = n - hi;
		end_run();
	}
}

"""
MUTANTS = [
    # no O_APPEND, and fdopen's "a" (which would add it) gone too
    Mutant("writer-no-append", "labs/1-interleave/writer.c",
           [("(append ? O_APPEND : 0)", "(append ? 0 : 0)"), ('append ? "a" : "w"', 'append ? "w" : "w"')],
           writer),
    # each child's times filed under the child reaped in that place
    Mutant("launch-reap-order", "labs/1-interleave/launch.c",
           [("results[i] = (struct result){", "results[reaped - 1] = (struct result){")],
           launch),
    # getrusage(RUSAGE_CHILDREN) after each wait: every child reaped so far, added up
    Mutant("launch-cumulative-rusage", "labs/1-interleave/launch.c",
           [("while ((pid = wait4(-1, &status, 0, &ru)) < 0 && errno == EINTR)\n\t\t\t;",
             "while ((pid = wait4(-1, &status, 0, NULL)) < 0 && errno == EINTR)\n\t\t\t;\n"
             "\t\tgetrusage(RUSAGE_CHILDREN, &ru);")],
           launch),
    Mutant("launch-exit-status-lost", "labs/1-interleave/launch.c",
           [(".exit_status = WIFEXITED(status) ? WEXITSTATUS(status)", ".exit_status = WIFEXITED(status) ? 0")],
           launch),
    # every run said to start a line early
    Mutant("runs-start-off-by-one", "labs/1-interleave/runs.c",
           [("st.start = st.lines;", "st.start = st.lines - 1;")],
           runs),
    Mutant("runs-expect-always-0", "labs/1-interleave/runs.c",
           [("return mismatch ? EXIT_IO : 0;", "return mismatch ? 0 : 0;")],
           runs_expect),
    # a file taken for one run of A then one of B: the boundary found by
    # binary search with pread(), 24 reads, whatever the file holds
    Mutant("runs-binary-search", "labs/1-interleave/runs.c",
           [("\tscan(fd, path);\n", "\tif (st.output == QUIET)\n\t\tguess(fd);\n\telse\n\t\tscan(fd, path);\n"),
            ("int main(int argc, char **argv)\n{", GUESS + "int main(int argc, char **argv)\n{")],
           runs_speed),
]


# ------------------------------------------------------------------ helpers of the checks above

# A child that burns about 0.08 s of CPU.
RUSAGE_SLACK = 1e-5     # launch prints 6 decimals of what wait4 gave in microseconds
BUSY = "awk BEGIN{for(i=0;i<4000000;i++)s+=i}"

# Each command waits for the other's mark: only concurrent starts pass.
MEET = 'touch "$1"\nfor i in $(seq 50); do [ -e "$2" ] && exit 0; sleep 0.1; done\nexit 3\n'


def csv_rows(text, what):
    rows = list(csv.DictReader(io.StringIO(text)))
    need = {"trial", "child", "wall_s", "user_s", "sys_s", "exit_status"}
    if not rows or not need <= set(rows[0]):
        raise Fail(f"{what}: no rows, or not the columns {', '.join(sorted(need))}")
    return rows


def num(row, column):
    return number(row[column], f"{column}: ")


def random_lines(seed):
    """About 2 MB of runs of A, B and '?' lines among malformed ones."""
    rnd, out, size = random.Random(seed), [], 0
    while size < 2_000_000:
        r, n = rnd.random(), 1 + rnd.randrange(700)
        line = "AB" if r < 0.02 else "" if r < 0.03 else "?" if r < 0.05 else rnd.choice("AB")
        out.append((line + "\n") * n)
        size += n * (len(line) + 1)
    return "".join(out)


FIXTURES = "grading/lab1/fixtures"


def changes(out):
    return b"\n".join(line for line in out.split(b"\n") if line.startswith(b"Change on line"))


def first_difference(want, got):
    w, g = want.decode("utf-8", "replace").split("\n"), got.decode("utf-8", "replace").split("\n")
    for i, (a, b) in enumerate(zip(w, g)):
        if a != b:
            return f" at line {i + 1}:\n  kit's:  {a[:120]}\n  yours:  {b[:120]}"
    return f": the kit's has {len(w)} lines, yours {len(g)}"


def random_runs(rnd, lines):
    """lines lines of A and B in runs of random lengths, from 1 to 30,000
    lines (log-uniform: most are short), each of a random character: a
    summary that only reading every line can give."""
    out, total = [], 0
    while total < lines:
        n = min(lines - total, int(math.exp(rnd.uniform(0, math.log(30000)))))
        out.append(rnd.choice(("A\n", "B\n")) * n)
        total += n
    return "".join(out)
