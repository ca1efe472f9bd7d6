"""Lab 4: parallel file writers.  Sizes, counts and seeds are drawn anew for
every grading, so that no answer can be written into a program in advance;
the kit's own pwriters and datagen, run on the grader's side, say what the
right bytes are.  Every program writes into its run directory (-d .): the
directory holds nothing else, so what is there is what the program left."""

import csv
import io
import os
import re
import resource
import stat
import subprocess

from grading import tracer
from grading.gradelib import Fail, Mutant, Skip, check, clean, expect, median, number, standard, usage_refused

LAB = 4
STANDARD = standard(build=1, columns=1, figures=2)  # points of each build, CSV, the figures
QUESTIONS = {"Q4.1": 3, "Q4.2": 3, "Q4.3": 3, "Q4.4": 2, "Q4.5": 2, "Q4.6": 3, "Q4.7": 3, "Q4.8": 3,
             "Q4.9": 2}
WRITERS_CSV = "data/lab4-writers.csv"
DATAGEN_CSV = "data/lab4-datagen.csv"
WRITERS_NUMBERS = ["trial", "threads", "files", "bytes_per_file", "batch_bytes", "fsync", "append",
                   "wall_s", "cpu_s", "mib_s", "cpu_mib_s"]
DATAGEN_NUMBERS = ["trial", "records", "exams_per_record", "buffer_records", "seed", "bytes", "wall_s",
                   "cpu_s", "fill_s", "write_s"]
ALPHABET = "abcdefghijklmnopqrstuvwxyz"
DATAGEN_FILES = ("students.txt", "contacts.txt", "exams.txt", "grades.txt")


@check(4, "pwriters: every strategy writes the kit's bytes, --csv as the kit's", needs=["pwriters"])
def pwriters(g):
    files, size, batch, k = g.between(3, 9), g.between(20000, 70000), g.between(1000, 16000), g.between(2, 8)
    # A batch that is no multiple of 26 shifts the alphabet from one write to
    # the next, and the last write of a file is a short one.
    batch += batch % 26 == 0
    size += size % batch == 0
    # fsync only in seq: it changes no byte, and costs time on a busy disk.
    extra = {"seq": [], "per-file": ["--no-fsync"], "io-thread": ["--no-fsync", "--append"],
             f"pool:{k}": ["--no-fsync"]}
    # The threads each strategy starts, counted by the grader's tracer
    # (every clone that makes a thread): seq writes from main, per-file
    # starts one per file, io-thread one, pool:K K.
    threads = {"seq": 0, "per-file": files, "io-thread": 1, f"pool:{k}": k}
    for strategy, options in extra.items():
        g.fresh()
        args = ["-F", files, "-S", size, "-B", batch, "--strategy", strategy, *options, "--keep"]
        again = f"mkdir d; bin/pwriters {' '.join(map(str, args))} -d d"
        want = g.reference("pwriters", *args, "--csv", "-d", ".")
        expect(want.status == 0, "the kit's pwriters failed: ask your instructor")
        r, started, wrote, mains = counting_threads(g, "pwriters", *args, "--csv", "-d", ".", timeout=10)
        g.ok(r, "pwriters", again)
        expect(started == threads[strategy], f"--strategy {strategy} started {started} threads (the grader's tracer "
               f"counted them), not {threads[strategy]}", again)
        names = sorted(os.listdir(g.run))
        mine = pwriters_files(names)
        # Every file of the run directory: one that main wrote, then renamed
        # to a file's name, was main's work (a rename's names are not logged).
        wrong = who_wrote(strategy, wrote, mains, k)
        expect(not wrong, f"--strategy {strategy}: {wrong} (the grader's tracer saw which thread made each write "
               "call)", again)
        expect(len(names) == files, f"--strategy {strategy} wrote {len(names)} files, not {files}", f"{again}; ls d")
        theirs = pwriters_files(os.listdir(g.ref))
        for num in sorted(theirs):
            expect(num in mine, f"--strategy {strategy}: no file named pwriters.PID.{num}", f"{again}; ls d")
            with open(os.path.join(g.ref, theirs[num]), "rb") as f:
                kit = f.read()
            if g.read(mine[num]) != kit:
                at = int(num) % 26  # file NUM: the alphabet over and over, from letter NUM % 26
                raise Fail(f"--strategy {strategy}: file {num} is not {size} bytes of the alphabet over and "
                           f"over from '{ALPHABET[at]}'",
                           f"{again}; cmp d/pwriters.*.{num} <(yes {ALPHABET[at:]}{ALPHABET[:at]} | tr -d '\\n' "
                           f"| head -c {size})")
        # The header, and the row up to the times: strategy, threads, files,
        # sizes, options.
        want_header, want_row = first_row(want.text, "the kit's pwriters --csv", None)
        header, row = first_row(r.text, "pwriters --csv", f"{again} --csv")
        expect(header == want_header and row[:-4] == want_row[:-4],
               f"--csv with --strategy {strategy}: expected the kit's header and a row starting "
               f"{','.join(want_row[:-4])},\ngot: {','.join(row[:-4])}", f"{again} --csv")


@check(2, "pwriters: files removed without --keep, exit codes", needs=["pwriters"])
def pwriters_cleanup_errors(g):
    files = g.between(5, 30)
    for strategy in ("seq", "per-file", "io-thread", "pool"):
        args = ["-F", files, "-S", "8K", "--no-fsync", "--strategy", strategy]
        again = f"mkdir d; bin/pwriters {' '.join(map(str, args))} -d d"
        g.ok(g.student("pwriters", *args, "-d", ".", timeout=5), "pwriters", again)
        left = os.listdir(g.run)
        expect(not left, f"--strategy {strategy} without --keep left {len(left)} files behind", f"{again}; ls d")
    usage_refused(g, "pwriters", "-F", 0)
    usage_refused(g, "pwriters", "-F", g.between(10001, 99999))
    usage_refused(g, "pwriters", "-B", 0)
    usage_refused(g, "pwriters", "--strategy", "pool:0")
    usage_refused(g, "pwriters", "--strategy", f"threads{g.between(0, 32767)}")
    usage_refused(g, "pwriters", "-F", 3, "extra")
    missing_dir(g, "pwriters", "-F", 2, "-S", "1K")


@check(1, "pwriters: wall_s is elapsed time, cpu_s CPU time", needs=["pwriters"])
def pwriters_stopwatch(g):
    # The grader stops pwriters (SIGSTOP) for a second in the middle of its
    # writing: a second that passes with no CPU used, as a wait for the disk
    # would. Elapsed time holds it; CPU time (clock(), the source's
    # stopwatch) does not. It stops once pwriters has used 0.05 s of CPU:
    # everything before the timing starts takes far less, and the writing
    # (100 MiB in 512-byte writes, 200,000 calls) far more.
    files = g.between(90, 110)
    args = ["-F", files, "-S", "1M", "-B", 512, "--no-fsync", "--csv"]
    again = f"bin/pwriters {' '.join(map(str, args))}, stopped with kill -STOP for {PAUSE_S:g} s while it writes"
    run = g.start("pwriters", *args, "-d", ".", timeout=30)
    paused = run.pause_after_cpu(0.05, PAUSE_S)
    r = run.wait()
    g.ok(r, "pwriters", again)
    expect(paused, f"pwriters {' '.join(map(str, args))} ended before it had used 0.05 s of CPU: "
           "too soon to stop it while it writes", again)
    expect(not os.listdir(g.run), "files left behind without --keep", again)
    header, row = first_row(r.text, "pwriters --csv", again)
    values = dict(zip(header, row))
    expect("wall_s" in values and "cpu_s" in values, "no wall_s and cpu_s in the --csv row", again)
    wall, cpu = number(values["wall_s"], "wall_s: "), number(values["cpu_s"], "cpu_s: ")
    expect(wall - cpu >= PAUSE_S / 2,
           f"stopped for {PAUSE_S:g} s while it wrote, pwriters reported wall_s {wall:g} s and cpu_s {cpu:g} s: "
           "wall_s must hold the time it was stopped (a stopwatch, CLOCK_MONOTONIC), cpu_s not", again)


@check(3, "datagen: threaded and -z write the kit's bytes, per seed", needs=["datagen"])
def datagen(g):
    # The four files, threaded with a small buffer (many rounds) and with
    # -z, are byte for byte the kit's for the same seed, and the kit's for
    # another seed: so the same seed gives the same files and another seed
    # other ones. The record counts are no multiple of the buffers: the
    # last round is a short one.
    records, exams, seed = g.between(800, 3000), g.between(0, 15), g.between(1, 999999)
    small, big = g.between(2, 40), g.between(100, records - 1)
    while records % small == 0 or records % big == 0:
        records += 1
    kits = {}
    for s in (seed, seed + 1):
        where = os.path.join(g.ref, str(s))
        os.mkdir(where)
        expect(g.reference("datagen", "-s", records, "-e", exams, "--seed", s, "-d", ".", cwd=where).status == 0,
               "the kit's datagen failed: ask your instructor")
        kits[s] = datagen_files(where)
    r = None
    for options, s in ((["-b", small], seed), (["-b", big, "-z"], seed), (["-b", big], seed + 1)):
        g.fresh()
        args = ["-s", records, "-e", exams, *options, "--seed", s]
        line = " ".join(map(str, args))
        again = f"mkdir d; bin/datagen {line} -d d"
        r, started, wrote, mains = counting_threads(g, "datagen", *args, "-d", ".", "--csv", timeout=5)
        g.ok(r, "datagen", again)
        # threaded, the four writer threads (counted by the grader's tracer),
        # each file written by one of them, a different one for each
        expect("-z" in options or started >= len(DATAGEN_FILES),
               f"datagen {line} started {started} threads (the grader's tracer counted them), not "
               f"a writer thread per file ({len(DATAGEN_FILES)})", again)
        # (a file the kit's datagen leaves empty, -e 0's exams, needs no writer)
        writers = [wrote.get(name, set()) | wrote.get(name + ".tmp", set()) for name in DATAGEN_FILES
                   if kits[s][name]]
        # (main wrote no file of the run directory: not one renamed to a name after)
        expect("-z" in options or (all(len(w) == 1 for w in writers) and not set().union(*wrote.values()) & mains
                                   and len(set().union(*writers)) == len(writers)),
               f"datagen {line}: its files were not each written by a writer thread of their own (the grader's "
               "tracer saw which thread made each write call)", again)
        for name in DATAGEN_FILES:
            expect(g.read(name) == kits[s][name],
                   f"datagen {line}: {name} is not what the kit's datagen writes with the same -s, -e and --seed",
                   f"{again}, and compare d/{name} with the original kit's bin/datagen's")
    # The last run's row: bytes is what the four files hold.
    want = ["threaded", str(records), str(exams), str(big), str(seed + 1), str(sum(map(len, kits[seed + 1].values())))]
    _, row = first_row(r.text, "datagen --csv", f"bin/datagen -s {records} -e {exams} -b {big} --seed {seed + 1} --csv")
    expect(row[:6] == want, f"--csv: expected a row starting {','.join(want)}, got {','.join(row[:6])}",
           f"bin/datagen -s {records} -e {exams} -b {big} --seed {seed + 1} --csv")


@check(1, "datagen: exit codes", needs=["datagen"])
def datagen_errors(g):
    usage_refused(g, "datagen", "-s", 0)
    usage_refused(g, "datagen", "-e", g.between(1001, 9999))
    usage_refused(g, "datagen", "-b", 0)
    usage_refused(g, "datagen", "-s", 10, "extra")
    missing_dir(g, "datagen", "-s", g.between(1, 50))


@check(2, "pwriters and datagen: no data race (ThreadSanitizer)", needs=["pwriters", "datagen"])
def no_races(g):
    # A race shows when the threads happen to collide, in some runs and not
    # others; ThreadSanitizer sees two accesses that no lock orders, in
    # every run. Small inputs: TSan makes a program 5-15x slower.
    # Where ThreadSanitizer cannot run on the host at all, the check is
    # skipped with the reason and its points leave the maximum: the host's
    # fault, not the student's. Only the grader's probe, run before any
    # student's code (probe, below), says so: a student's program that
    # makes its own run fail (forking up to the uid's process limit, say)
    # cannot make the probe fail too.
    if g.probes["tsan"]:
        raise Skip(f"ThreadSanitizer cannot run on this host (the grader's own probe, run before any student's "
                   f"code, fails): {g.probes['tsan']}")
    # Built from the text the graded build compiled, refused where it
    # tests for a sanitizer or hides accesses from it (tsan_build).
    tsan_build(g, "pwriters", "datagen")
    # Many items for the pool and the I/O thread: the threads meet often.
    # Fewer for per-file, whose threads all live at once: under TSan 400 of
    # them took 12 s and 350 MB; TSan needs no collision in time to see a
    # race, only two threads' unordered accesses.
    files, k = g.between(200, 400), g.between(2, 6)
    runs = [("pwriters", ["-F", n, "-S", "1K", "-B", 1024, "--no-fsync", "--strategy", strategy])
            for strategy, n in ((f"pool:{k}", files), ("io-thread", files), ("per-file", g.between(16, 48)))]
    runs.append(("datagen", ["-s", g.between(200, 600), "-e", g.between(0, 5), "-b", g.between(2, 20),
                             "--seed", g.between(1, 999999)]))
    for prog, args in runs:
        race_free(g, prog, args)


@check(2, "data/lab4-writers.csv: every configuration, plausible values, 3+ real trials")
def writers_data(g):
    # Every strategy with and without fsync at each file count, values that
    # agree with each other and with what memory can do, and 3+ trials of
    # each configuration that are not copies of one another.
    rows = g.rows(WRITERS_CSV, WRITERS_NUMBERS, lab=4)
    trials, seen, counts = {}, set(), set()
    for n, r in enumerate(rows, start=2):
        def bad(why):
            raise Fail(f"{WRITERS_CSV} line {n}: {why}", "make lab4")
        s = r["strategy"]
        if s not in ("seq", "per-file", "io-thread", "pool"):
            bad(f"unknown strategy {s}")
        if not (whole(r, ["trial", "threads", "files", "bytes_per_file", "batch_bytes", "fsync", "append"],
                      positive=["threads", "files", "bytes_per_file", "batch_bytes"])
                and r["fsync"] in (0, 1) and r["append"] in (0, 1)):
            bad("not whole numbers where expected")
        if s in ("seq", "io-thread") and r["threads"] != 1:
            bad(f"{s} runs one writer thread, not {r['threads']:g}")
        if s == "per-file" and r["threads"] != r["files"]:
            bad(f"per-file runs one thread per file: {r['files']:g} files, {r['threads']:g} threads")
        # Times are positive; no more than 100 GiB/s, beyond what memory can copy.
        if not (r["wall_s"] > 0 and r["cpu_s"] > 0 and 0 < r["mib_s"] < 102400 and 0 < r["cpu_mib_s"] < 102400):
            bad("implausible times or rates")
        # The rates are the bytes over the times (to 1%, or the times' rounding).
        mib = r["files"] * r["bytes_per_file"] / 1048576
        if abs(mib / r["mib_s"] - r["wall_s"]) > 0.01 * r["wall_s"] + 1e-6:
            bad("mib_s is not files x bytes_per_file / 2^20 / wall_s")
        if abs(mib / r["cpu_mib_s"] - r["cpu_s"]) > 0.01 * r["cpu_s"] + 1e-6:
            bad("cpu_mib_s is not files x bytes_per_file / 2^20 / cpu_s")
        # One thread cannot run longer than the time that passed.
        if s == "seq" and r["cpu_s"] > 1.1 * r["wall_s"] + 0.001:
            bad("seq has one thread, yet cpu_s is more than wall_s")
        key = (s, r["files"], r["bytes_per_file"], r["fsync"], r["append"])
        trials.setdefault(key, []).append((r["wall_s"], r["cpu_s"]))
        seen.add((r["files"], r["bytes_per_file"], r["fsync"], s))
        counts.add((r["files"], r["bytes_per_file"]))
    for (s, files, size, fsync, append), times in trials.items():
        what = f"{s} with {files:g} files of {size:g} bytes, fsync {fsync:g}, append {append:g}"
        expect(len(times) >= 3, f"{WRITERS_CSV}: only {len(times)} trials of {what} (at least 3)", "make lab4")
        expect(len(set(times)) > 1, f"{WRITERS_CSV}: every trial of {what} took exactly {times[0][0]:g} s: "
               "not measured", "make lab4")
    for files, size in sorted(counts):
        for fsync in (0, 1):
            for s in ("seq", "per-file", "io-thread", "pool"):
                expect((files, size, fsync, s) in seen,
                       f"{WRITERS_CSV}: no {s} run with {files:g} files of {size:g} bytes and fsync {fsync}",
                       "make lab4")
    expect(len(counts) >= 2, f"{WRITERS_CSV}: only one file count: the lab sweeps several", "make lab4")


@check(2, "data/lab4-datagen.csv: both modes, plausible values, 3+ real runs")
def datagen_data(g):
    # Both modes, 3+ runs each that are not copies, the same output for the
    # same arguments, a size the file format allows, and elapsed time that
    # holds the filling and writing it is split into.
    rows = g.rows(DATAGEN_CSV, DATAGEN_NUMBERS, lab=4)
    bytes_of, runs = {}, {}
    for n, r in enumerate(rows, start=2):
        def bad(why):
            raise Fail(f"{DATAGEN_CSV} line {n}: {why}", "make lab4")
        if r["mode"] not in ("threaded", "sequential"):
            bad("mode is not threaded or sequential")
        if not whole(r, ["trial", "records", "exams_per_record", "buffer_records", "seed", "bytes"],
                     positive=["records", "buffer_records", "bytes"]):
            bad("not whole numbers where expected")
        # Per student: a students, a contacts and a grades line (95 to 109
        # bytes with 6-digit ids, more with longer ones) and 27 to 29 bytes per exam.
        s, e = r["records"], r["exams_per_record"]
        if not s * (95 + 27 * e) <= r["bytes"] <= s * (125 + 32 * e):
            bad(f"{r['bytes']:g} bytes is not what {s:g} students with {e:g} exams take")
        if not (r["wall_s"] > 0 and r["cpu_s"] > 0 and r["fill_s"] >= 0 and r["write_s"] >= 0):
            bad("times must be positive")
        if r["fill_s"] + r["write_s"] > r["wall_s"] + 2e-6:
            bad("fill_s + write_s is more than wall_s, which holds both")
        if r["mode"] == "sequential" and r["cpu_s"] > 1.1 * r["wall_s"] + 0.001:
            bad("sequential has one thread, yet cpu_s is more than wall_s")
        args = f"-s {s:g} -e {e:g} --seed {r['seed']:g}"
        if args in bytes_of and bytes_of[args][0] != r["bytes"]:
            bad(f"other bytes than line {bytes_of[args][1]} for the same {args}")
        bytes_of.setdefault(args, (r["bytes"], n))
        runs.setdefault(f"{r['mode']} runs with {args} -b {r['buffer_records']:g}", []).append(
            (r["wall_s"], r["cpu_s"]))
    modes = {key.split()[0] for key in runs}
    expect(modes == {"threaded", "sequential"}, f"{DATAGEN_CSV}: both modes are needed: threaded and "
           "sequential (-z)", "make lab4")
    for key, times in runs.items():
        expect(len(times) >= 3, f"{DATAGEN_CSV}: only {len(times)} {key} (at least 3)", "make lab4")
        expect(len(set(times)) > 1, f"{DATAGEN_CSV}: all {key} took exactly {times[0][0]:g} s: not measured",
               "make lab4")


@check(2, "data/lab4-writers.csv: without fsync, a thread per file costs CPU")
def writers_trend(g):
    # A trend any machine shows, on any file system, loaded or idle: without
    # fsync, a thread per file costs more CPU per MiB than one thread
    # (creating, scheduling and ending a thread per file), where creating a
    # thread is a visible part of writing a file: files of at most 256 KiB
    # (SCALE=full writes 4 MiB files, where the difference drowns in the
    # spread between trials). CPU time, not elapsed time: a busy machine
    # delays threads but does not bill them. datagen has no such trend: at
    # SCALE=tiny on a busy machine, the fastest threaded run took 0.4 to 3.8
    # times as long as the fastest sequential one.
    rows = [r for r in g.rows(WRITERS_CSV, WRITERS_NUMBERS, lab=4)
            if r["fsync"] == 0 and r["bytes_per_file"] <= 262144 and r["strategy"] in ("seq", "per-file")]
    if not rows:
        return
    most = max(r["files"] for r in rows)
    rate = {s: [r["cpu_mib_s"] for r in rows if r["files"] == most and r["strategy"] == s]
            for s in ("seq", "per-file")}
    expect(rate["seq"] and rate["per-file"], f"{WRITERS_CSV}: no seq or no per-file run without fsync at "
           f"{most:g} files", "make lab4")
    seq, per = median(rate["seq"]), median(rate["per-file"])
    expect(per < seq, f"without fsync at {most:g} files, the median cpu_mib_s of per-file ({per:g}) is not below "
           f"seq's ({seq:g}): but creating a thread per file costs CPU", "make lab4")


PWRITERS, DATAGEN = "labs/4-writers/pwriters.c", "labs/4-writers/datagen.c"
MUTANTS = [
    # the queue strategies never post the last file
    Mutant("pwriters-pool-skips-last-file", PWRITERS,
           [("\tfor (size_t i = 0; i < n; i++) {\n\t\tpthread_mutex_lock(&q->lock);\n\t\tq->posted++;",
             "\tfor (size_t i = 0; i + 1 < n; i++) {\n\t\tpthread_mutex_lock(&q->lock);\n\t\tq->posted++;")],
           pwriters),
    # the test turned round: the files are removed only with --keep
    Mutant("pwriters-keeps-files", PWRITERS,
           [("if (!keep)\n\t\t\tcleanup_add(job.paths[i]);", "if (keep)\n\t\t\tcleanup_add(job.paths[i]);")],
           pwriters_cleanup_errors),
    # the source article's stopwatch: clock(), the CPU time of the process
    Mutant("pwriters-clock-stopwatch", PWRITERS,
           [("int64_t wall0 = now_ns(), cpu0", "int64_t wall0 = (int64_t)clock() * (1000000000 / CLOCKS_PER_SEC), cpu0"),
            ("ns_to_s(now_ns() - wall0)", "ns_to_s((int64_t)clock() * (1000000000 / CLOCKS_PER_SEC) - wall0)")],
           pwriters_stopwatch),
    # -z writes three of the four buffers
    Mutant("datagen-z-skips-a-file", DATAGEN,
           [("\t\t\tfor (int f = 0; f < NFILES; f++)\n\t\t\t\twrite_buffer(&writers[f]);",
             "\t\t\tfor (int f = 0; f < NFILES - 1; f++)\n\t\t\t\twrite_buffer(&writers[f]);")],
           datagen),
    # the records cut into rounds of BUFFER lose the remainder: the last,
    # short round is never filled
    Mutant("datagen-drops-last-round", DATAGEN,
           [("done < records; done += buffer", "done + buffer <= records; done += buffer")],
           datagen),
    # every strategy runs the sequential loop: right bytes, no threads
    Mutant("pwriters-all-sequential", PWRITERS,
           [("\tswitch (strategy) {\n\tcase SEQ:", "\tswitch (SEQ) {\n\tcase SEQ:")],
           pwriters),
    # threaded mode never starts its writers: main writes every buffer
    Mutant("datagen-no-writer-threads", DATAGEN,
           [("threaded && f < NFILES; f++) {", "0 && f < NFILES; f++) {"),
            ("if (threaded) {\n\t\t\twrite_round();", "if (0) {\n\t\t\twrite_round();"),
            ("\tif (threaded)\n\t\tstop_writers(NFILES);", "\tif (0)\n\t\tstop_writers(NFILES);")],
           datagen),
    # a data race: the work item is taken after the queue's lock is released
    Mutant("pwriters-takes-outside-lock", PWRITERS,
           [("size_t num = queue.taken++;\n\t\tpthread_mutex_unlock(&queue.lock);",
             "pthread_mutex_unlock(&queue.lock);\n\t\tsize_t num = queue.taken++;")],
           no_races),
    # the same race, hidden from ThreadSanitizer by an attribute a macro spells
    Mutant("pwriters-race-hidden-from-tsan", PWRITERS,
           [("size_t num = queue.taken++;\n\t\tpthread_mutex_unlock(&queue.lock);",
             "pthread_mutex_unlock(&queue.lock);\n\t\tsize_t num = queue.taken++;"),
            ("static void *queue_thread(void *arg)",
             "#define HIDE(a, b) __attribute__((a ## b(\"thread\")))\nHIDE(no_, sanitize) static void *queue_thread(void *arg)")],
           no_races),
    # every batch restarts the alphabet at the file's letter
    Mutant("pwriters-alphabet-restarts", PWRITERS, [("job.pattern + (num + done) % 26", "job.pattern + num % 26")],
           pwriters),
    # -F 0 accepted: no files to write, and no usage error
    Mutant("pwriters-accepts-no-files", PWRITERS,
           [('parse_count("-F", optarg, 1, 10000)', 'parse_count("-F", optarg, 0, 10000)')], pwriters_cleanup_errors),
    # --seed is parsed, but the generator is always seeded with 1
    Mutant("datagen-ignores-seed", DATAGEN, [("rng_seed(&rng, o.seed);", "rng_seed(&rng, 1);")], datagen),
]


# ------------------------------------------------------------------ helpers of the checks above

def missing_dir(g, prog, *args):
    """With -d naming a directory that does not exist, prog exits 1 with a
    message naming the path."""
    path = f"/nonexistent-{g.between(0, 32767)}"
    r = g.student(prog, *args, "-d", path, timeout=5)
    line = " ".join(map(str, args))
    expect(r.status == 1 and path.encode() in r.err and not r.killed,
           f"{prog} {line} -d {path} should exit 1 with a message naming {path} "
           f"(got {r.killed or f'exit {r.status}'})", f"bin/{prog} {line} -d {path}; echo $?")


def first_row(text, what, again):
    rows = list(csv.reader(io.StringIO(text)))
    if len(rows) < 2:
        raise Fail(f"{what}: no header and row", again)
    return rows[0], rows[1]


def counting_threads(g, prog, *args, **kw):
    """Runs the student's prog under the grader's tracer: (its Result, the
    threads it started, {name of a file in the run directory: the ids of
    the threads that wrote to it}, the ids of its main threads), seen from
    outside whatever the program prints."""
    r = g.student(prog, *args, trace=tracer.THREADS + tracer.WRITERS + tracer.INDIRECT, fds=True, **kw)
    files, mains = tracer.writers(r.trace)
    run = g.run + os.sep
    for _, call, path in tracer.indirect_writes(r.trace):
        how = "a shared mapping" if call == "mmap" else call
        raise Fail(f"{prog} wrote to its files through {how} ({clean(os.path.basename(path))[:60]}), not only by "
                   "write calls: the grader's tracer sees which thread makes each write call, not who stores "
                   "into a mapping or wrote what is copied", f"strace -f -y -e trace=mmap,sendfile,copy_file_range,"
                   f"splice,ioctl bin/{prog} {' '.join(map(str, args))}")
    mine = {p[len(run):]: tids for p, tids in files.items() if p.startswith(run) and os.sep not in p[len(run):]}
    return r, tracer.threads_started(r.trace), mine, mains


def who_wrote(strategy, files, mains, k):
    """What is wrong with which threads wrote pwriters' files under
    strategy (files: {name: ids of the threads that wrote to it}; mains:
    the ids of the main threads), or None: seq writes from main, per-file
    each file from a thread of its own, io-thread every file from one
    thread, pool:K every file from its threads, K at most."""
    writers = set().union(*files.values()) if files else set()
    if strategy == "seq":
        return None
    if writers & mains:
        return "the main thread wrote to the files itself"
    if strategy == "per-file" and (any(len(t) != 1 for t in files.values())
                                   or len(writers) != len(files)):
        return "the files were not each written by a thread of their own"
    if strategy == "io-thread" and len(writers) != 1:
        return f"{len(writers)} threads wrote to the files, not the one I/O thread"
    if strategy.startswith("pool:") and not 1 <= len(writers) <= k:
        return f"{len(writers)} threads wrote to the files, not 1 to the pool's {k}"
    return None


# ------------------------------------------------------------------ pwriters

def pwriters_files(names):
    """{NUM: name} of the names pwriters.PID.NUM."""
    return {m.group(1): n for n in names if (m := re.fullmatch(r"pwriters\.\d+\.(\d{4,})", n))}


PAUSE_S = 1.0


# ------------------------------------------------------------------ datagen

def datagen_files(directory):
    out = {}
    for name in DATAGEN_FILES:
        with open(os.path.join(directory, name), "rb") as f:
            out[name] = f.read()
    return out


# ------------------------------------------------------------------ data races

TSAN_OPTIONS = "report_bugs=1 halt_on_error=0 exitcode=66"

# What the ThreadSanitizer build of a student's program must not hold, in
# its text after preprocessing (so that no macro, token pasting, _Pragma or
# #include hides it). Anywhere, system headers' lines included (a macro of
# the student's expands there too; no header the kit's programs include
# spells any of it): what turns ThreadSanitizer off or tells it what to
# report (no_sanitize("thread"), no_sanitize_thread,
# disable_sanitizer_instrumentation, optimize("no-sanitize=thread")), the
# sanitizers' run-time hooks (__tsan_default_options, which sets what
# TSAN_OPTIONS leaves unset, __tsan_default_suppressions,
# __tsan_ignore_thread_begin, __sanitizer_*) and TSan's dynamic annotations
# (AnnotateIgnoreWritesBegin, AnnotateBenignRaceSized).
UNSEEN = re.compile(r"\w*sanitiz\w*|\w*__(?:tsan|asan|msan|lsan|ubsan|hwasan|interceptor)\w*"
                    r"|\b(?:WTF)?Annotate\w*|\w*Valgrind\w*", re.I)
# In the lines of the submission's own files (glibc's headers use them):
# inline assembly, whose accesses TSan does not see, and what binds a symbol
# by a name spelt in a string, which "__ts" "an_init" splits (asm labels,
# weak references, aliases, symbol versions, dlsym), or only where it
# exists (weak): a function of the sanitizer runtime, present in one build
# only.
UNSEEN_OWN = re.compile(r"\b(?:__)?(?:asm|weak|weakref|alias|symver|ifunc)(?:__)?\b|\bdl(?:v?sym|open)\b")
SYSTEM_HEADERS = ("/usr/include/", "/usr/lib/gcc/", "/usr/local/include/")
_MARKER = re.compile(r'# \d+ "((?:[^"\\]|\\.)*)"((?: [1-4])*)$')


def tsan_build(g, *progs):
    """progs built with ThreadSanitizer (-fsanitize=thread -g -O1, the kit's
    Makefile's TSAN_FLAGS) as the students' uid in the grading's build
    directory, from the text their graded builds compiled (the Makefile's
    build/pp/), then copied where g.student runs them as PROG-tsan. Fail
    where that text differs with -fsanitize=thread (it tests a sanitizer's
    macro) or holds what hides accesses from ThreadSanitizer (UNSEEN)."""
    for p in progs:
        if f"{p}-tsan" in g.built:     # built once a grading
            continue
        src = next(s for s in (PWRITERS, DATAGEN) if s.endswith(f"/{p}.c"))
        pp = f"build/pp/{p}"
        again = f"make {pp}.i {pp}.tsan.i {pp}-tsan"
        with g._capture() as out, g.building():
            proc = g.box.popen(["make", "-s", f"{pp}.i", f"{pp}.tsan.i", f"{pp}-tsan"], cwd=g.build,
                               binds=[g.build], cpu=120, stdout=out, stderr=subprocess.STDOUT)
            try:
                proc.wait(timeout=g._within_check(120))
            except subprocess.TimeoutExpired:
                g.box.stop(proc)
                raise Fail("building with ThreadSanitizer took too long", again) from None
            finally:
                g.box.waited(proc)
            out.seek(0)
            said = out.read(PP_LIMIT + 1)
        # Not quoted: the graded build compiled this text, so what fails
        # here is what the source does under -fsanitize=thread only (an
        # #include of a file outside the submission, say).
        expect(proc.returncode == 0 and len(said) <= PP_LIMIT,
               f"{src} does not build with ThreadSanitizer from the text its graded build compiled: does it "
               "test for a sanitizer?", again)
        text, tsan = built_text(g, f"{pp}.i"), built_text(g, f"{pp}.tsan.i")
        # -g adds a line naming the directory compiled in, nothing else does
        expect(tsan.replace(f'# 1 "{g.build}//"\n', "", 1) == text,
               f"{src} preprocesses differently with -fsanitize=thread: it tests for a sanitizer "
               "(__SANITIZE_THREAD__, __has_feature(thread_sanitizer)); the race check runs what you hand in",
               f"diff <(cc -E -Icommon {src}) <(cc -E -fsanitize=thread -Icommon {src})")
        # Which file each line comes from, read from the line markers:
        # none of them forged (no #line, no '# 1 "/usr/include/stdio.h"'
        # in any of the submission's files) or naming a file outside it.
        for name in sorted(marked_files(text)):
            rel = os.path.normpath(name)
            expect(not rel.startswith(("/", "..")), f"{src} includes {clean(name)[:80]}, a file outside your "
                   "submission", f"cc -E -Icommon {src} | grep '^# '")
            expect(not line_directive(built_text(g, rel)),
                   f"{clean(rel)[:80]} has a #line or a line marker ('# 1 \"file\"'): the race check reads which "
                   "file each line comes from", f"grep -n '^ *# *[0-9l]' {clean(rel)[:80]}")
        own = own_lines(text, src)
        words = sorted(set(UNSEEN.findall(text)) | set(UNSEEN_OWN.findall(own)))
        expect(not words, f"{src} uses {', '.join(clean(w)[:40] for w in words[:3])}, which hides memory accesses "
               "from ThreadSanitizer or tests for it: share data through locks and C11 atomics only",
               f"cc -E -Icommon {src} | grep -n 'sanitiz\\|tsan\\|asm\\|weak\\|alias\\|dlsym'")
        built = os.path.join(g.build, f"{pp}-tsan")
        expect(os.path.isfile(built) and not os.path.islink(built), f"make {pp}-tsan made no program", again)
        with open(built, "rb") as src_f, open(os.path.join(g.bin, f"{p}-tsan"), "xb") as dst:
            dst.write(src_f.read())
        g.box.share(os.path.join(g.bin, f"{p}-tsan"), 0o750)
        g.built.add(f"{p}-tsan")


PP_LIMIT = 4 << 20     # the kit's sources with glibc's headers preprocess to about 140 KB


def built_text(g, rel):
    """A file of the build directory (the submission's, or one make wrote
    there), read without following a link, as text: Fail unless it is a
    regular file of at most PP_LIMIT bytes."""
    try:
        fd = os.open(os.path.join(g.build, rel), os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as e:
        raise Fail(f"{clean(rel)[:80]}: {e.strerror}") from None
    with os.fdopen(fd, "rb") as f:
        expect(stat.S_ISREG(os.fstat(f.fileno()).st_mode), f"{clean(rel)[:80]}: not a file")
        data = f.read(PP_LIMIT + 1)
    expect(len(data) <= PP_LIMIT, f"{rel} is more than {PP_LIMIT >> 20} MiB of preprocessed text")
    return data.decode("utf-8", "surrogateescape")


def marked_files(text):
    """The files that the line markers of text (cc -E's output) name, but
    the system's headers: the submission's and the kit's common/."""
    names = {re.sub(r"\\(.)", r"\1", m.group(1)) for m in map(_MARKER.match, text.splitlines()) if m}
    return {n for n in names if not is_system(n)} - {"<built-in>", "<command-line>"}


_TRIGRAPHS = dict(zip("=/'()!<>-", "#\\^[]|{}~"))
# a string or character literal (one left open runs to the end of its
# line), or a comment (one left open, to the end of the file)
_LITERAL_OR_COMMENT = re.compile(r'"(?:\\.|[^"\\\n])*(?:"|$)|' r"'(?:\\.|[^'\\\n])*(?:'|$)|//[^\n]*|/\*.*?(?:\*/|\Z)",
                                 re.S | re.M)
_LINE_DIRECTIVE = re.compile(r"^[ \t\f\v]*(?:#|%:)[ \t\f\v]*(?:line\b|[0-9])", re.M)


def line_directive(source):
    """Whether C source (-std=c11: trigraphs, digraphs) may hold a #line or
    a line marker, the directives that name the file the lines after them
    come from. Read as cc reads it, but where in doubt (a literal left
    open) it sees more directives, not fewer: only comments are taken out,
    each left as a space and its newlines."""
    text = re.sub(r"\?\?([=/'()!<>-])", lambda m: _TRIGRAPHS[m.group(1)], source)
    text = re.sub(r"\\[ \t]*\r?\n", "", text)     # lines spliced
    text = _LITERAL_OR_COMMENT.sub(lambda m: m.group() if m.group()[0] in "\"'"
                                   else " " + "\n" * m.group().count("\n"), text)
    return _LINE_DIRECTIVE.search(text) is not None


def own_lines(text, src):
    """The lines of text (cc -E's output for src) from the submission's
    files and the kit's common/: all but those of the system's headers,
    as the line markers above them say (none forged: tsan_build has looked
    for #line in every file they name). A marker that is neither an
    #include's nor names the file it is in fails all the same."""
    stack, own, started = [], [], False
    for line in text.splitlines():
        m = _MARKER.match(line)
        if not m:
            if started and not is_system(stack[-1]):
                own.append(line)
            continue
        name, flags = re.sub(r"\\(.)", r"\1", m.group(1)), m.group(2).split()
        if not started:
            # cc's preamble (<built-in>, <command-line> and the implicit
            # stdc-predef.h), up to the source's line 1, which follows it
            if "1" in flags:
                stack.append(name)
            elif "2" in flags:
                stack.pop()
            else:
                started = name == src and stack == ["<command-line>"]
                stack = [name]
            continue
        if "1" in flags:
            stack.append(name)
        elif "2" in flags:
            stack.pop()
            expect(stack[-1:] == [name], f"{src}: a line marker returning to {clean(name)[:80]}, which did not "
                   "include the file it leaves", f"cc -E -Icommon {src} | grep '^# '")
        else:
            expect(name == stack[-1], f"{src}: a line marker naming {clean(name)[:80]} in another file's lines",
                   f"cc -E -Icommon {src} | grep '^# '")
    expect(started, f"{src}: the preprocessed text never starts on its line 1", f"cc -E -Icommon {src} | head")
    return "\n".join(own)


def is_system(name):
    """Whether a file cc opened is one of the system's headers."""
    return name.startswith(SYSTEM_HEADERS) and ".." not in name.split("/")


def race_free(g, prog, args):
    """Runs prog's ThreadSanitizer build: Fail on a data race it reports,
    or on any other failure (the probe has shown that ThreadSanitizer runs
    here). TSAN_OPTIONS in the environment wins over options a program compiles
    in (__tsan_default_options). No address-space limit: the shadow memory
    TSan reserves is terabytes it never touches; the inputs are small."""
    line = " ".join(map(str, args))
    again = f"make bin-tsan/{prog}; mkdir d; bin-tsan/{prog} {line} -d d"
    r = g.student(f"{prog}-tsan", *args, "-d", ".", timeout=10, env={"TSAN_OPTIONS": TSAN_OPTIONS},
                  address_space=resource.RLIM_INFINITY)
    at = r.err.find(b"WARNING: ThreadSanitizer")
    if at >= 0:
        report = r.err[at:].decode("utf-8", "replace").split("\n")
        summary = [x for x in report if x.startswith("SUMMARY: ThreadSanitizer")][:1]
        raise Fail(f"{prog} {line}: ThreadSanitizer found a data race:\n  "
                   + "\n  ".join(clean(x)[:160] for x in report[:3] + summary), again)
    g.ok(r, f"{prog} (built with ThreadSanitizer)", again)


def probe(g):
    """Run by the grader before any student's code (grade.py's probe_host):
    whether a ThreadSanitizer build runs here at all, contained as a
    student's program is: g.probes["tsan"] is None, or why not. The probe
    is the grader's grading/lab4/tsanprobe.c, built like a shim (g._build)
    with -fsanitize=thread instead of -shared."""
    try:
        built = g._build("tsanprobe", "", ["-fsanitize=thread", "-g", "-pthread"], [], "grading/lab4/tsanprobe.c")
    except Fail as e:
        g.probes["tsan"] = clean(e.message.splitlines()[-1])[:160]
        return
    r = g.student("tsanprobe", path=built, timeout=10, env={"TSAN_OPTIONS": TSAN_OPTIONS},
                  address_space=resource.RLIM_INFINITY)
    g.probes["tsan"] = None if r.status == 0 and not r.killed else r.why("tsanprobe")


# ------------------------------------------------------------------ data/lab4-*.csv

def whole(row, columns, positive=()):
    return all(row[c] == int(row[c]) and row[c] >= (1 if c in positive else 0) for c in columns)
