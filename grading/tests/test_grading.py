"""Unit tests of the grading library (run by grading/tests/gradelib.bats)."""

import base64
import contextlib
import csv
import ctypes
import io
import json
import os
import shutil
import signal
import struct
import subprocess
import sys
import tarfile
import tempfile
import time
import unittest
import unittest.mock

if __name__ == "__main__":  # run as a file: the kit's root in place of this folder (see grading/grade.py)
    HERE = os.path.dirname(os.path.realpath(__file__))
    sys.path[0:1 if sys.path and os.path.realpath(sys.path[0]) == HERE else 0] = [os.path.dirname(os.path.dirname(HERE))]
from grading import batch, discover, gradelib, landlock, png, report, run, sandbox, standard  # noqa: E402
from grading import syscalls, tracer, unpack  # noqa: E402
from grading.tests import pl_results  # noqa: E402  the schema and size PrairieLearn documents

ROOT = os.geteuid() == 0
# A Python the sandbox's uid may run (not one in a home directory).
PYTHON = next((p for p in ("/usr/bin/python3", "/usr/local/bin/python3") if os.access(p, os.X_OK)), None)


def poll_until(done, timeout=10):
    """Whether done() came true within timeout seconds (asked every 10 ms)."""
    end = time.monotonic() + timeout
    while not done():
        if time.monotonic() > end:
            return False
        time.sleep(0.01)
    return True


class OneImportRoot(unittest.TestCase):
    # grade.sh's entry run as grade.sh runs it (python3 -I), then the other
    # commands' modules imported in the same process: what it loaded, by name
    LOADED = """
import os, runpy, sys
entry, kit = sys.argv[1], os.path.dirname(os.path.dirname(sys.argv[1]))
sys.argv = [entry, "--list"]
try:
    runpy.run_path(entry, run_name="__main__")
except SystemExit:
    pass
for name in ("mutants", "rubric", "lessons", "under_filter", "classresults.__main__", "tests.reference_run"):
    __import__("grading." + name)
for name, module in sorted(sys.modules.items()):
    path = os.path.realpath(getattr(module, "__file__", None) or "/")
    if path.startswith(kit + os.sep):
        print("LOADED", name, os.path.relpath(path, kit))
"""

    def test_every_module_of_the_kit_loads_under_one_name(self):
        entry = os.path.join(os.path.realpath(gradelib.KIT), "grading", "grade.py")
        p = subprocess.run([sys.executable, "-I", "-B", "-c", self.LOADED, entry, "x"],
                           capture_output=True, text=True, cwd=os.path.join(gradelib.KIT, "grading"))
        self.assertEqual(p.returncode, 0, p.stderr)
        loaded = [line.split()[1:] for line in p.stdout.splitlines() if line.startswith("LOADED ")]
        names = {}
        for name, path in loaded:
            names.setdefault(path, []).append(name)
        self.assertIn("grading/lab6/checks.py", names)      # every lab's rubric, by --list
        for path, also in names.items():
            if path == "grading/grade.py":      # the entry, run as __main__, and grading.grade
                continue
            self.assertEqual(len(also), 1, f"{path} loaded as {also}")
            # grading/x/y.py as grading.x.y, common/z.py as common.z (a package: its __init__.py)
            self.assertEqual(also[0], path.removesuffix(".py").removesuffix("/__init__").replace("/", "."))


class Text(unittest.TestCase):
    def test_clean_shows_control_characters_and_bad_utf8(self):
        self.assertEqual(gradelib.clean(b"a\xff\x1b[2J\rb\n\tc"), "a\\xff\\x1b[2J\\x0db\n\tc")

    def test_clean_escapes_what_moves_or_fakes_a_line(self):
        # U+2028/2029 (line, paragraph), U+0085 (next line), bidi embeddings,
        # overrides, isolates and marks, U+FEFF; letters and symbols stay.
        for ch in "\u2028\u2029\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c\ufeff":
            self.assertEqual(gradelib.clean(f"a{ch}b"), f"a\\u{ord(ch):04x}b")
        self.assertEqual(gradelib.clean("a\u0085b"), "a\\x85b")
        self.assertEqual(gradelib.clean("é ü → 😀"), "é ü → 😀")
        # a file name that is not UTF-8 (os.listdir's surrogates)
        self.assertEqual(gradelib.clean(os.fsdecode(b"n\xff\x1b")), "n\\xff\\x1b")

    def test_clean_caps_each_line_and_the_lines(self):
        text = gradelib.clean("x" * 3_000_000)
        self.assertEqual(text, "x" * gradelib.LINE_CAP + f"... ({3_000_000 - gradelib.LINE_CAP} more characters)")
        lines = gradelib.clean("\n".join(map(str, range(1000)))).split("\n")
        self.assertEqual(len(lines), gradelib.MESSAGE_CAP + 1)
        self.assertEqual((lines[0], lines[-1]), (f"({1000 - gradelib.MESSAGE_CAP} earlier lines not shown)", "999"))

    def test_number_is_the_kits_one_rule(self):
        # common/columns.py's, which make class reads with too
        self.assertEqual(gradelib.number("0.25"), 0.25)
        self.assertEqual(gradelib.number("1.5e-3"), 0.0015)
        self.assertEqual(gradelib.number("7.209e-03"), 0.007209)
        for bad, why in [("nan", "not a number"), ("inf", "not a number"), ("-inf", "not a number"),
                         ("0x10", "not a number"), ("1e9919", "not a number"), ("1e400", "out of range"),
                         ("", "not a number"), ("1,5", "not a number"), ("١٢", "not a number"),
                         (" 1.5", "not a number"), ("-3", "has a sign"), ("-0.0", "has a sign")]:
            with self.assertRaisesRegex(gradelib.Fail, "^wall_s: '.*' (is )?" + why, msg=bad):
                gradelib.number(bad, "wall_s: ")

    def test_data_parsed_by_the_declared_kinds(self):
        # g.data: lab1.csv's columns by labs/1-interleave/columns.csv, refused as make class refuses
        parse = gradelib.Grading._parse_declared
        header = ",".join(gradelib.declared_columns("lab1.csv"))
        row = "default,append,,1,A,20000,7.209e-03,0.001,0.002,1,2,0.000010,20000,0,1,20000,20000,,0"
        r = parse(None, "data/lab1.csv", f"{header}\n{row}\n".encode(), "make lab1")[0]
        self.assertEqual((r["wall_s"], r["buffer_bytes"], r["trial"], r["mode"]), (0.007209, None, 1, "append"))
        for data, why in [(f"{header}\n", "data/lab1.csv: no rows"),
                          (f"{header}\n{row.replace('7.209e-03', '-1')}\n", "line 2: wall_s '-1' has a sign"),
                          (f"{header}\n{row.replace(',A,', ',A B,')}\n", "line 2: writer 'A B' is not a plain name"),
                          (f"{header}\n1,2\n", "line 2: 19 fields expected"),
                          (f"{header}\n" + f"{row}\n" * 6000, "more than 100000 values"),
                          ('wall_s\n"1\n', "not CSV"), ("wall_s\n1\n", "no column experiment"),
                          (f"{header}\n{row}\u00e9\n", "not ASCII")]:
            with self.assertRaisesRegex(gradelib.Fail, why, msg=data[-40:]):
                parse(None, "data/lab1.csv", data.encode(), "make lab1")

    def test_median(self):
        self.assertEqual(gradelib.median([3, 1, 2]), 2)
        self.assertEqual(gradelib.median([4, 1, 3, 2]), 2.5)
        self.assertEqual(gradelib.median([4, None, 1]), 2.5)
        self.assertIsNone(gradelib.median([]))

    def test_build_messages_about_other_files_are_not_quoted(self):
        out = ("In file included from labs/1-interleave/writer.c:1:\n"
               "/etc/passwd:1:5: error: unknown type name 'root'\n"
               "    1 | root:x:0:0:root:/root:/bin/bash\n"
               "      |     ^\n"
               "labs/1-interleave/writer.c:9:2: error: expected ';'\n"
               "    9 |  x = 1\n")
        shown = standard.only_submission(out)
        self.assertNotIn("root", shown)
        self.assertIn("labs/1-interleave/writer.c:9:2: error: expected ';'", shown)
        self.assertIn("    9 |  x = 1", shown)
        self.assertIn("outside your submission", shown)
        self.assertNotIn("secret", standard.only_submission("labs/../../x.h:1:1: error: 'secret'\n"))

    def test_a_build_output_read_by_its_ends_quotes_their_lines(self):
        head = b"labs/1-interleave/writer.c:1:1: error: first\n" + b"x" * 100
        # the end cut among the lines shown under a message about /etc/passwd
        tail = b"t:x:0:0:root\n    2 | daemon:x:1:1\nlabs/1-interleave/writer.c:9:2: error: last\n"
        shown = standard.build_quote(head, tail, 1000)
        self.assertEqual(shown[0], "labs/1-interleave/writer.c:1:1: error: first")
        self.assertEqual(shown[2], f"(the middle not shown: the whole output is {len(head) + 1000 + len(tail)} bytes)")
        self.assertEqual(shown[3:], ["labs/1-interleave/writer.c:9:2: error: last"])
        many = b"".join(b"labs/1-interleave/writer.c:%d:1: error: e\n" % n for n in range(1, 31))
        shown = standard.build_quote(many, b"", 0)
        self.assertEqual((len(shown), shown[9], shown[10], shown[11]),
                         (21, "labs/1-interleave/writer.c:10:1: error: e", "(10 lines not shown)",
                          "labs/1-interleave/writer.c:21:1: error: e"))


def tarball(path, members):
    with tarfile.open(path, "w:gz") as t:
        for name, data in members:
            m = tarfile.TarInfo(name)
            m.size = len(data)
            t.addfile(m, io.BytesIO(data))


class Unpack(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.mkdtemp()

    def tearDown(self):
        shutil.rmtree(self.dir)

    def test_one_top_directory_is_stepped_into(self):
        tarball(f"{self.dir}/s.tar.gz", [("iolab-handin/answers.md", b"x\n"), ("iolab-handin/labs/a.c", b"")])
        top = unpack.unpack(f"{self.dir}/s.tar.gz", f"{self.dir}/out")
        with open(os.path.join(top, "answers.md"), "rb") as f:
            self.assertEqual(f.read(), b"x\n")

    def test_the_byte_limit_holds_while_reading(self):
        old = unpack.MAX_BYTES
        unpack.MAX_BYTES = 1 << 20
        try:
            tarball(f"{self.dir}/big.tar.gz", [("a", bytes(2 << 20))])
            with self.assertRaisesRegex(unpack.Refused, "more than"):
                unpack.unpack(f"{self.dir}/big.tar.gz", f"{self.dir}/out")
        finally:
            unpack.MAX_BYTES = old

    def test_over_the_limit_the_largest_files_are_named(self):
        old = unpack.MAX_BYTES
        unpack.MAX_BYTES = 3 << 20
        try:
            tarball(f"{self.dir}/big.tar.gz", [("s", b"1"), ("big", bytes(2 << 20)), ("bigger", bytes(3 << 20))])
            with self.assertRaisesRegex(unpack.Refused, r"largest files: 'bigger' \(3 MiB\), 'big' \(2 MiB\), 's'"):
                unpack.unpack(f"{self.dir}/big.tar.gz", f"{self.dir}/out")
        finally:
            unpack.MAX_BYTES = old

    def test_a_member_too_deep_is_refused(self):
        tarball(f"{self.dir}/deep.tar.gz", [("d/" * 1200 + "f", b"x")])
        with self.assertRaisesRegex(unpack.Refused, "1201 directories deep"):
            unpack.unpack(f"{self.dir}/deep.tar.gz", f"{self.dir}/out")

    def test_a_member_twice_is_refused(self):
        tarball(f"{self.dir}/twice.tar.gz", [("a", b"1"), ("a", b"2")])
        with self.assertRaisesRegex(unpack.Refused, "twice"):
            unpack.unpack(f"{self.dir}/twice.tar.gz", f"{self.dir}/out")

    def test_not_gzip_is_refused(self):
        with open(f"{self.dir}/x.tar.gz", "wb") as f:
            f.write(b"not gzip at all")
        with self.assertRaisesRegex(unpack.Refused, "not a readable"):
            unpack.unpack(f"{self.dir}/x.tar.gz", f"{self.dir}/out")

    def test_a_directory_with_a_link_is_refused(self):
        os.makedirs(f"{self.dir}/sub/labs")
        os.symlink("/etc/passwd", f"{self.dir}/sub/answers.md")
        with self.assertRaisesRegex(unpack.Refused, "links"):
            unpack.unpack(f"{self.dir}/sub", f"{self.dir}/out")


class Labs(unittest.TestCase):
    def test_labs_txt_is_a_set_of_the_kits_labs(self):
        self.assertEqual(discover.labs_txt(b"1,2\n", [1, 2, 3]), ([1, 2], []))
        self.assertEqual(discover.labs_txt(b"3 1", [1, 2, 3]), ([1, 3], []))
        labs, notes = discover.labs_txt(b"1," * 49 + b"7,x", [1, 2, 3])
        self.assertEqual(labs, [1])
        self.assertEqual(notes, ["labs.txt: lab 1 named again: graded once",
                                 "labs.txt: this course has no lab 7: ignored",
                                 "labs.txt: 'x' is not a lab number: ignored"])

    def test_one_line_is_one_line_whatever_it_quotes(self):
        for text in ("x\nScore: 999/999", b"x\nScore: 999/999\r\n", "a\u2028b\x1b[2J\n" * 50):
            line = gradelib.one_line(text)
            self.assertEqual(len(line.splitlines()), 1, line)
            self.assertNotIn("\n", line)
        self.assertEqual(gradelib.one_line("x\nScore: 1/1"), "x\\nScore: 1/1")

    def test_labs_txt_naming_no_lab_grades_every_lab(self):
        for data in (b"", b"7", b"\x1b[2J", b"0"):
            labs, notes = discover.labs_txt(data, [1, 2])
            self.assertIsNone(labs)
            self.assertEqual(notes[-1], "labs.txt names no lab of this course: every lab graded (1,2)")
            self.assertNotIn("\x1b", "".join(notes))

    def batch_dir(self, *names):
        """A batch directory holding names: NAME/ a directory, any other an
        empty regular file."""
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        for n in names:
            if n.endswith("/"):
                os.mkdir(os.path.join(d, n))
            else:
                open(os.path.join(d, n), "w").close()
        return d, sorted(n.rstrip("/") for n in names)

    def test_a_student_handed_in_twice_is_graded_once_from_the_tarball(self):
        d, found = self.batch_dir("alice/", "alice.tar.gz", "bob.tar.gz", "carol/")
        chosen, lines = batch.handins(d, found)
        self.assertEqual(chosen, {"alice": "alice.tar.gz", "bob": "bob.tar.gz", "carol": "carol"})
        self.assertEqual(lines, ["alice.tar.gz and alice/ are the same student's handin: "
                                 "alice.tar.gz graded, alice/ left out"])
        d, found = self.batch_dir("a.tar.gz", "b/", "j\u00f6rg@x.org.tar.gz", "s_1.2+3-4/")
        self.assertEqual(batch.handins(d, found),
                         ({"a": "a.tar.gz", "b": "b", "j\u00f6rg@x.org": "j\u00f6rg@x.org.tar.gz",
                           "s_1.2+3-4": "s_1.2+3-4"}, []))

    def test_batch_leaves_out_names_that_are_no_uid_links_and_names_differing_in_case(self):
        hostile = ["=HYPERLINK(1).tar.gz", "+1/", "-x.tar.gz", "@SUM(1)/", ".tar.gz", ".hidden/", "a,b.tar.gz",
                   "a\"b/", "a b.tar.gz", "a\nb/", "a\rb.tar.gz", "a\u2028b/", "a\u202eb.tar.gz", "x" * 129 + "/"]
        d, found = self.batch_dir("ok.tar.gz", "Dave/", "dave.tar.gz", "DAVE/", *hostile)
        os.symlink("ok.tar.gz", os.path.join(d, "carol.tar.gz"))
        os.symlink("/", os.path.join(d, "eve"))
        os.mkfifo(os.path.join(d, "fifo.tar.gz"))
        chosen, lines = batch.handins(d, sorted(found + ["carol.tar.gz", "eve", "fifo.tar.gz"]))
        self.assertEqual(chosen, {"ok": "ok.tar.gz"})
        self.assertEqual(len(lines), len(hostile) + 4, lines)
        self.assertIn("DAVE and Dave and dave differ only in case: none graded", "\n".join(lines))
        said = "\n".join(lines)
        self.assertIn("'carol.tar.gz': a symbolic link: left out", said)
        self.assertIn("'eve': a symbolic link: left out", said)
        self.assertIn("'fifo.tar.gz': not a regular file or a directory: left out", said)
        self.assertIn("'=HYPERLINK(1).tar.gz': not a uid", said)
        for line in lines:     # each one line, printable
            self.assertEqual(line, gradelib.clean(line, 10 ** 4, 1))
            self.assertNotIn("\n", line)

    def test_batch_says_when_handins_graded_different_labs(self):
        def graded(*labs):
            return dict(tests=[dict(tags=[f"lab{n}"]) for n in labs] + [dict(tags=["all"])])
        same = {"alice": graded(1, 1, 2), "bob": graded(2, 1), "broken": {}}
        self.assertIsNone(batch.labs_differ(same))
        line = batch.labs_differ(dict(same, carol=graded(1)))
        self.assertEqual(line, "the handins' labs.txt chose different labs (labs 1: 1 (e.g. carol); labs 1,2: 2 "
                               "(e.g. alice)), so their max_score differ: --labs LIST grades every row for the same labs")

    def test_a_grading_reads_a_file_once_and_never_a_huge_one(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        os.mkdir(f"{d}/data")
        with open(f"{d}/data/a.csv", "w") as f:
            f.write("x,y\n1,2\n")
        with open(f"{d}/data/big.csv", "wb") as f:
            f.truncate(gradelib.FILE_LIMIT + 1)
        g = gradelib.Grading(d, d, None, None)
        rows = g.rows("data/a.csv", numeric=["y"])
        self.assertEqual(rows, [{"x": "1", "y": 2.0}])
        rows[0]["y"] = 5                    # a check's changes stay its own
        os.unlink(f"{d}/data/a.csv")        # read once per grading
        self.assertEqual(g.rows("data/a.csv", numeric=["y"]), [{"x": "1", "y": 2.0}])
        with self.assertRaisesRegex(gradelib.Fail, "larger than 4 MiB"):
            g.file("data/big.csv")

    def test_a_declared_csv_naming_a_column_twice_is_refused_as_make_class_refuses_it(self):
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        os.mkdir(f"{d}/data")
        header = ",".join(c.name for c in gradelib.kit_declared()["lab1.csv"][1])
        with open(f"{d}/data/lab1.csv", "w") as f:
            f.write(f"{header},trial\n" + ",".join("1" for _ in header.split(",")) + ",2\n")
        g = gradelib.Grading(d, d, None, None)
        with self.assertRaisesRegex(gradelib.Fail, "^data/lab1.csv: a column named twice: trial$"):
            g.data("lab1.csv", 1)

    def test_the_columns_check_reads_the_header_as_csv(self):
        """A quoted header is one column, a column named twice fails, and a
        file the csv module refuses is a Fail saying so, not a grader error;
        a good file run at tiny scale, or whose lab's load file names no
        scale, fails too."""
        d = tempfile.mkdtemp()
        self.addCleanup(shutil.rmtree, d)
        os.mkdir(f"{d}/data")
        check = standard.columns_check(7, "data/t.csv", ["n", "square"])
        quick = "scale: quick\nverdict: quiet\n"
        for text, load, why in [('"n,square"\n"1,1"\n', quick, "no column n, square"),
                                ("n,square,n\n1,1,1\n", quick, "a column named twice: n"),
                                ("n,square," + ",".join(f"c{i}" for i in range(49990)) + ",n\n"
                                 + "1," * 49992 + "1\n", quick, "a column named twice: n$"),
                                ("n,square\n" + "x" * 200000 + ",1\n", quick, "not CSV \\(field larger"),
                                ("n,square\r1,1\r", quick, "not CSV"),
                                ("n,square\n1,1\n", "scale: tiny\n", "was run at SCALE=tiny"),
                                ("n,square\n1,1\n", "", "does not say the scale"),
                                ("n,square\n1,1\n", quick, None)]:
            with self.subTest(text=text[:20], load=load):
                with open(f"{d}/data/t.csv", "w", newline="") as f:
                    f.write(text)
                with open(f"{d}/data/lab7-load.txt", "w") as f:
                    f.write(load)
                g = gradelib.Grading(d, d, None, None)
                if why is None:
                    check(g)
                else:
                    with self.assertRaisesRegex(gradelib.Fail, why):
                        check(g)


class Results(unittest.TestCase):
    """One result, three writers: the report, Gradescope's results.json,
    PrairieLearn's; and --batch's score upload for PrairieLearn."""

    def result(self, sub=None):
        checks = [gradelib.Check(1, 1, "build launch", None, (), 1), gradelib.Check(1, 3, "launch works", None, (), 1),
                  gradelib.Check(1, 2, "needs a feature", None, (), 1), gradelib.Check(2, 2, "lab two", None, (), 1),
                  gradelib.Check(None, 1, "machine", None, (), 1)]
        records = [run.record(c, s, m) for c, s, m in zip(
            checks, ("PASS", "FAIL", "SKIP", "PASS", "FAIL"), (None, "wrong\nreproduce: x", "no io_uring", "ok", "no"))]
        return report.result(records, {}, "test", [], dict(seed=7, notes=[], started=time.monotonic(), submission=sub))

    def test_gradescope_numbers_tags_and_skips(self):
        r = report.gradescope_json(self.result())
        self.assertEqual((r["score"], r["extra_data"]), (3, dict(seed=7, max_score=7)))
        self.assertEqual([t.get("number") for t in r["tests"]], ["1.1", "1.2", "1.3", "2.1", None])
        self.assertEqual([t["tags"] for t in r["tests"]], [["lab1"]] * 3 + [["lab2"], ["all"]])
        self.assertEqual((r["tests"][2]["max_score"], "status" in r["tests"][2]), (0, False))
        self.assertIn("Note: 1 check(s) skipped", r["output"])

    def test_gradescope_visibility_by_rule_and_a_short_text_for_students(self):
        rules = report.visibility_rules("build=hidden;launch=after_due_date;1: =after_published")
        r = report.gradescope_json(self.result(), rules)
        # the first rule that matches; none: visible
        self.assertEqual([t["visibility"] for t in r["tests"]],
                         ["hidden", "after_due_date", "after_published", "visible", "visible"])
        self.assertNotIn("stdout_visibility", r)    # the report on stdout stays the instructor's
        self.assertTrue(r["output"].startswith("Score: 3/7. Seed: 7.\n"), r["output"])
        self.assertNotIn("test", r["output"])       # the containment ("test" here) is not in it
        for bad in ("speed", "speed=soon", "=hidden", "a=visible;b"):
            with self.assertRaises(ValueError):
                report.visibility_rules(bad)

    def test_output_lines_like_the_reports_own_are_indented_in_both_results(self):
        c = gradelib.Check(1, 2, "writer works", None, (), 1)
        said = "wrong\nScore: 147/147\nlab1: writer: FAIL 0/2\nall: machine: PASS 1/1\nNote: x\nlab1 ok: PASS"
        res = report.result([run.record(c, "FAIL", said)], {}, "test", [],
                            dict(seed=7, notes=[], started=time.monotonic(), submission=None))
        indented = ("wrong\n    Score: 147/147\n    lab1: writer: FAIL 0/2\n    all: machine: PASS 1/1\n"
                    "    Note: x\nlab1 ok: PASS")
        self.assertEqual(report.gradescope_json(res)["tests"][0]["output"], indented)
        pl = report.prairielearn_json(res)["tests"][0]
        self.assertEqual((pl["message"], pl["output"]), (indented, indented))

    def test_prairielearn_score_tests_and_figures(self):
        with tempfile.TemporaryDirectory() as sub:
            os.mkdir(os.path.join(sub, "plot"))
            gps = [sorted(f for f in os.listdir(os.path.join(gradelib.KIT, "plot")) if f.startswith(f"lab{n}-"))[i]
                   for n, i in ((1, 0), (1, 1), (2, 0))]
            image = png.PNG_SIGNATURE + b"x" * 100
            for gp, data in zip(gps, (image, b"GIF89a", image + b"x" * report.IMAGE_LIMIT)):
                with open(os.path.join(sub, "plot", gp[:-3] + ".png"), "wb") as f:
                    f.write(data)
            r = report.prairielearn_json(self.result(sub))
        self.assertEqual((r["gradable"], r["score"], r["message"]), (True, round(3 / 7, 4), "Score: 3/7"))
        self.assertEqual([(t["points"], t["max_points"]) for t in r["tests"]], [(1, 1), (0, 3), (0, 0), (2, 2), (0, 1)])
        self.assertEqual(r["tests"][1]["message"], "wrong\nreproduce: x")
        self.assertEqual(r["tests"][0]["message"], "")
        # the PNG shown, the GIF left out, the one over the limit named in the output
        self.assertEqual([i["label"] for i in r["images"]], [f"plot/{gps[0][:-3]}.png"])
        self.assertEqual(r["images"][0]["url"], "data:image/png;base64," + base64.b64encode(image).decode())
        self.assertIn(f"plot/{gps[2][:-3]}.png not shown", r["output"])

    def test_prairielearn_results_stay_within_1_mb_whatever_the_handin(self):
        # every figure a PNG of 399 KB that does not compress, and 120
        # checks quoting 40 lines of 300 characters each (clean's caps)
        labs = discover.kit_labs()
        checks = [gradelib.Check(labs[i % len(labs)], 2, f"check {i}", None, (), 1) for i in range(120)]
        said = "\n".join("x" * 300 for _ in range(40))
        records = [run.record(c, "FAIL", said) for c in checks]
        with tempfile.TemporaryDirectory() as sub:
            os.mkdir(os.path.join(sub, "plot"))
            gps = [gp for gp in os.listdir(os.path.join(gradelib.KIT, "plot")) if gp.startswith("lab") and gp.endswith(".gp")]
            for gp in gps:
                with open(os.path.join(sub, "plot", gp[:-3] + ".png"), "wb") as f:
                    f.write(png.PNG_SIGNATURE + os.urandom(report.IMAGE_LIMIT - 1000))
            res = report.result(records, {}, "test", [], dict(seed=7, notes=[], started=time.monotonic(), submission=sub))
            r = report.prairielearn_json(res)
        size = report.json_size(r)
        self.assertEqual(pl_results.problems(r, size, True), [])
        self.assertLess(size, 1_000_000)
        # one figure (532 KB in base64) fits; each one left out is named, with where it is
        self.assertEqual([i["label"] for i in r["images"]], [f"plot/{min(gps)[:-3]}.png"])
        self.assertEqual(r["output"].count("not shown: PrairieLearn takes at most 1 MB of results"), len(gps) - 1)
        self.assertIn("(it is in plot/ of your handin)", r["output"])
        self.assertTrue(all(t["output"].endswith("(cut here: PrairieLearn takes at most 1 MB of results)")
                            for t in r["tests"]))

    def test_pl_scores_csv_a_row_per_submission(self):
        with tempfile.TemporaryDirectory() as out:
            with open(os.path.join(out, "alice.json"), "w") as f:
                json.dump(dict(score=30, tests=[], extra_data=dict(seed=1, max_score=40)), f)
            with open(os.path.join(out, "bob.json"), "w") as f:
                json.dump(dict(score=0, output="The grader could not grade this submission: bad\ntar",
                               tests=[], extra_data=dict(seed=1, max_score=None)), f)
            with contextlib.redirect_stdout(io.StringIO()):
                batch.write_pl_scores(out, ["alice", "bob", "carol"], "lab1q")
            with open(os.path.join(out, "pl-scores.csv")) as f:
                rows = list(csv.reader(f))
            self.assertFalse(os.path.exists(os.path.join(out, "pl-scores.csv.tmp")))
        self.assertEqual(rows, [["uid", "instance", "qid", "score_perc", "feedback"],
                                ["alice", "1", "lab1q", "75.0", "Score: 30/40"],
                                ["bob", "1", "lab1q", "0", "The grader could not grade this submission: bad"],
                                ["carol", "1", "lab1q", "0", "not graded: no results.json"]])


class Cleanup(unittest.TestCase):
    def test_an_ended_orphan_is_reaped_a_running_one_left(self):
        sandbox.become_subreaper()     # as every Sandbox makes the grader
        subprocess.run(["sh", "-c", "sleep 2 >/dev/null &"], check=True)     # the shell ends, its sleep runs on
        orphans = [pid for pid, _ in sandbox._orphans(spare=())]
        self.assertEqual(len(orphans), 1, orphans)
        sandbox.reap_orphans()
        self.assertEqual([pid for pid, _ in sandbox._orphans(spare=())], orphans)    # running: left
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline and (orphans[0], b"Z") not in list(sandbox._orphans(spare=())):
            time.sleep(0.05)
        sandbox.reap_orphans()
        self.assertEqual(list(sandbox._orphans(spare=())), [])                         # ended: reaped
        sandbox.reap_orphans()  # and no child at all: nothing to do, no error

    def test_with_nothing_to_spare_every_ended_child_is_reaped_and_forgotten(self):
        proc = subprocess.Popen(["true"])
        sandbox._unwaited.add(proc.pid)     # as Sandbox.popen notes a child a check waits for
        try:
            poll_until(lambda: (proc.pid, b"Z") in list(sandbox._orphans(spare=())))
            sandbox.reap_orphans(spare=())   # as kill_uid does: nobody will ask for their status
            self.assertNotIn(proc.pid, sandbox._unwaited)
            self.assertEqual(list(sandbox._orphans(spare=())), [])
        finally:
            sandbox._unwaited.discard(proc.pid)

    def test_a_tree_deeper_than_pythons_recursion_limit_is_removed(self):
        d = tempfile.mkdtemp()
        fd = os.open(d, os.O_RDONLY)
        for _ in range(sys.getrecursionlimit() + 200):
            os.mkdir("d", dir_fd=fd)
            fd, old = os.open("d", os.O_RDONLY, dir_fd=fd), fd
            os.close(old)
        os.close(fd)
        os.chmod(f"{d}/d", 0)   # and one its owner made unreadable
        self.assertTrue(sandbox.remove_tree(d))
        self.assertFalse(os.path.lexists(d))

    def test_a_directory_submission_too_deep_is_refused(self):
        d = tempfile.mkdtemp()
        self.addCleanup(sandbox.remove_tree, d)
        subprocess.run(["mkdir", "-p", f"{d}/sub/" + "/".join(["d"] * 40)], check=True)
        with self.assertRaisesRegex(unpack.Refused, "more than 16 directories deep"):
            unpack.unpack(f"{d}/sub", f"{d}/out")


class Limits(unittest.TestCase):
    def test_landlock_handles_what_each_abi_brought(self):
        self.assertEqual(landlock.handled(1), ((1 << 13) - 1, 0, 0))
        self.assertEqual(landlock.handled(3), ((1 << 15) - 1, 0, 0))
        self.assertEqual(landlock.handled(4), ((1 << 15) - 1, 3, 0))
        self.assertEqual(landlock.handled(7), ((1 << 16) - 1, 3, 3))

    def test_footprint_counts_an_unlinked_open_file_once(self):
        _, before, _ = sandbox.footprint([os.getpid()])
        with tempfile.TemporaryFile() as f:     # unlinked, open
            os.posix_fallocate(f.fileno(), 0, 1 << 20)
            again = os.open(f"/proc/self/fd/{f.fileno()}", os.O_RDONLY)
            try:
                memory, disk, _ = sandbox.footprint([os.getpid()])
            finally:
                os.close(again)
        self.assertGreaterEqual(disk - before, 1 << 20)
        self.assertLess(disk - before, 2 << 20)     # twice open, counted once
        self.assertGreater(memory, 0)

    def test_footprint_counts_a_memfd_only_mapped_as_root_and_not(self):
        # filled by write(2), mapped, never touched, closed: no descriptor,
        # no resident page; as root map_files shows it, not root the maps
        import mmap
        _, before, _ = sandbox.footprint([os.getpid()])
        fd = os.memfd_create("iolab-test")
        os.write(fd, b"x" * (1 << 20))
        key = (os.fstat(fd).st_dev, os.fstat(fd).st_ino)
        m = mmap.mmap(fd, 1 << 20, mmap.MAP_SHARED, mmap.PROT_READ)
        os.close(fd)
        try:
            self.assertEqual(sandbox._nameless_mapped(os.getpid()).get(key), 1 << 20)
            _, disk, seen = sandbox.footprint([os.getpid()])
        finally:
            m.close()
        self.assertIn(key, seen)
        self.assertGreaterEqual(disk - before, 1 << 20)
        self.assertLess(disk - before, 2 << 20)


@unittest.skipUnless(ROOT, "needs root: the sandbox's own uid")
class Sandbox(unittest.TestCase):
    def setUp(self):
        self.box = sandbox.Sandbox(use_bwrap=False)
        self.dir = tempfile.mkdtemp()
        os.chmod(self.dir, 0o755)
        self.box.own(self.dir)

    def tearDown(self):
        self.box.release()      # removes self.dir too: the uid's, in /tmp
        shutil.rmtree(self.dir, ignore_errors=True)

    def run_sh(self, script, **kw):
        p = self.box.popen(["/bin/sh", "-c", script], cwd=self.dir, binds=[self.dir],
                           stdout=subprocess.PIPE, stderr=subprocess.STDOUT, **kw)
        return p.communicate(timeout=30)[0].decode()

    def run_python(self, code, **kw):
        """What code, a Python program, prints when run in the sandbox."""
        with open(f"{self.dir}/t.py", "w") as f:
            f.write(code)
        return self.run_sh(f"{PYTHON} -I t.py", **kw)

    def test_runs_as_its_own_uid_with_limits(self):
        self.assertEqual(self.run_sh("id -u; umask").split(), [str(self.box.uid), "0077"])
        # read from outside: Landlock keeps the program out of /proc
        p = self.box.popen(["/bin/sleep", "5"], cwd=self.dir, binds=[self.dir])
        # once sleep runs: grading/confine.c sets them first, in the same process
        self.assertTrue(poll_until(lambda: os.readlink(f"/proc/{p.pid}/exe") == os.path.realpath("/bin/sleep")))
        with open(f"/proc/{p.pid}/limits") as f:
            limits = {line[:26].strip(): line[26:].split()[0] for line in f.read().splitlines()[1:]}
        self.box.stop(p)
        self.assertEqual(limits["Max file size"], str(sandbox.LIMIT_FSIZE))
        self.assertEqual(limits["Max processes"], str(sandbox.LIMIT_NPROC))
        self.assertEqual(limits["Max core file size"], "0")

    def test_env_and_a_descriptor_reach_the_program(self):
        with tempfile.TemporaryFile() as log:
            self.run_sh(f'echo "$IOLAB_X" >&{log.fileno()}', env={"IOLAB_X": "yes"}, pass_fds=[log.fileno()])
            log.seek(0)
            self.assertEqual(log.read(), b"yes\n")

    def test_env_is_set_inside_bubblewrap_not_for_bwrap(self):
        # an LD_PRELOAD must load into the program, not into bwrap itself
        args = self.box._bwrap_args(self.dir, [self.dir], [], {"LD_PRELOAD": "/x.so"})
        at = args.index("--setenv")
        self.assertEqual(args[at:at + 3], ["--setenv", "LD_PRELOAD", "/x.so"])
        self.assertLess(at, args.index("--"))

    @unittest.skipUnless(PYTHON, "no python3 in /usr/bin for the sandbox's uid")
    def test_no_socket_not_even_netlink_nor_a_message_queue(self):
        # netlink only where bubblewrap needs it for its own network namespace
        code = ("import ctypes, socket\n"
                "for f in (socket.AF_INET, socket.AF_INET6, socket.AF_UNIX, socket.AF_NETLINK):\n"
                "    try: socket.socket(f, socket.SOCK_RAW if f == socket.AF_NETLINK else socket.SOCK_STREAM)"
                "; print('open')\n"
                "    except PermissionError: print('denied')\n"
                "rt = ctypes.CDLL('librt.so.1', use_errno=True)\n"
                "print(rt.mq_open(b'/iolab-unit', 0o100 | 2, 0o600, None), ctypes.get_errno())\n")
        out = self.run_python(code)
        self.assertEqual(out.split(), ["denied"] * 4 + ["-1", "13"])     # mq_open: EACCES

    @unittest.skipUnless(PYTHON, "no python3 in /usr/bin for the sandbox's uid")
    def test_fallocate_is_refused_and_posix_fallocate_writes(self):
        # fallocate would take gigabytes between two looks of the watchdog
        code = ("import errno, os\n"
                "fd = os.open('f', os.O_CREAT | os.O_WRONLY)\n"
                "try: os.posix_fallocate(fd, 0, 1 << 20)\n"    # glibc writes instead
                "except OSError as e: print('posix_fallocate', errno.errorcode[e.errno])\n"
                "print(os.fstat(fd).st_size)\n"
                "import ctypes\n"
                "libc = ctypes.CDLL(None, use_errno=True)\n"
                "print(libc.fallocate(fd, 0, ctypes.c_long(0), ctypes.c_long(1 << 30)), "
                "ctypes.get_errno() == errno.EOPNOTSUPP)\n")
        out = self.run_python(code)
        self.assertEqual(out.split(), [str(1 << 20), "-1", "True"])

    @unittest.skipUnless(landlock.abi(), "the kernel has no Landlock")
    def test_landlock_leaves_the_run_directory_only(self):
        out = self.run_sh("cat /etc/passwd /proc/1/cmdline; echo x >/tmp/iolab-unit-$$; "
                          "echo mine >f && cat f && cat /usr/share/common-licenses/GPL-3 | head -1")
        self.assertEqual(out.count("Permission denied"), 3, out)
        self.assertIn("mine\n", out)
        self.assertIn("GNU GENERAL PUBLIC LICENSE", out)

    @unittest.skipUnless(PYTHON, "no python3 in /usr/bin for the sandbox's uid")
    def test_ipc_keyrings_and_other_processes_are_refused_memfd_only_when_asked(self):
        # each call as it comes, with arguments that would otherwise succeed
        # (or fail with another errno): -1 1 is the filter's EPERM
        code = ("import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                "def said(r): print(r, ctypes.get_errno() if r == -1 else 0)\n"
                "said(libc.shmget(0, 65536, 0o1600))\n"
                "said(libc.semget(0, 1, 0o1600))\n"
                "said(libc.msgget(0, 0o1600))\n"
                "sv = (ctypes.c_int * 2)()\n"
                "said(libc.socketpair(1, 1, 0, sv))\n"
                "said(libc.sendmsg(0, None, 0))\n"                               # EBADF unfiltered
                "said(libc.syscall(248, b'user', b'iolab', b'x', 1, -3))\n"     # add_key, session keyring
                "said(libc.syscall(250, 0, -3, 0))\n"                           # keyctl: its keyring's id
                "said(libc.ptrace(0, 0, None, None))\n"                         # PTRACE_TRACEME
                "said(libc.syscall(310, os.getppid(), None, 0, None, 0, 0))\n"  # process_vm_readv
                "said(libc.syscall(317, 1, 0, None))\n"                         # seccomp: EFAULT unfiltered
                "said(libc.prctl(22, 2, None, 0, 0))\n"                         # PR_SET_SECCOMP
                "print(libc.memfd_create(b'barrier', 0) >= 0, libc.prctl(15, b'iolab', 0, 0, 0))\n")  # PR_SET_NAME
        if os.uname().machine != "x86_64":
            self.skipTest("the numbers above are x86_64's")
        out = self.run_python(code)
        self.assertEqual(out.split(), ["-1", "1"] * 11 + ["False", "0"], out)
        # asked for (Lab 1's SYSTEM_CALLS)
        out = self.run_python(code, calls=("memfd_create",))
        self.assertEqual(out.split(), ["-1", "1"] * 11 + ["True", "0"], out)

    @unittest.skipUnless(PYTHON, "no python3 in /usr/bin for the sandbox's uid")
    def test_a_call_off_the_list_is_enosys_and_glibc_falls_back(self):
        # clone3 refused (ENOSYS, 38): glibc clones a thread instead;
        # unshare and inotify are on no list; reading one's personality is allowed
        code = ("import ctypes, threading\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                "def said(r): print(r, ctypes.get_errno() if r == -1 else 0)\n"
                "said(libc.syscall(435, None, 0))\n"                      # clone3: EINVAL unfiltered
                "said(libc.syscall(272, 0x10000000))\n"                   # unshare(CLONE_NEWUSER)
                "said(libc.syscall(294, 0))\n"                            # inotify_init1
                "said(libc.syscall(135, 0x0400000))\n"                    # personality(READ_IMPLIES_EXEC): EPERM
                "print(libc.syscall(135, 0xffffffff) >= 0)\n"
                "t = threading.Thread(target=print, args=('thread',)); t.start(); t.join()\n")
        if os.uname().machine != "x86_64":
            self.skipTest("the numbers above are x86_64's")
        self.assertEqual(self.run_python(code).split(), ["-1", "38"] * 3 + ["-1", "1", "True", "thread"])

    def test_every_name_of_the_filter_has_its_numbers(self):
        groups = [sandbox.ALLOWED, list(sandbox.REFUSED), sandbox.BWRAP_SETUP, sandbox._BY_ARGUMENT,
                  *sandbox.ON_REQUEST.values()]
        for names in groups:
            for name in names:
                self.assertIn(name, syscalls.NUMBERS)
        allowed = set(sandbox.ALLOWED)
        self.assertEqual(allowed & set(sandbox.REFUSED), set())
        self.assertEqual(allowed & {c for calls in sandbox.ON_REQUEST.values() for c in calls}, set())
        self.assertEqual(allowed & set(sandbox.BWRAP_SETUP), set())
        for machine in ("x86_64", "aarch64"):
            nr = syscalls.numbers(machine)
            self.assertEqual(len(set(nr.values())), len(nr), machine)   # no number twice
            self.assertEqual((nr["read"], nr["clone"], nr["io_uring_setup"]),
                             {"x86_64": (0, 56, 425), "aarch64": (63, 220, 425)}[machine])

    def test_system_v_ipc_goes_at_the_checks_end(self):
        # made as the uid outside the filter (which refuses it): a layer of its own
        for args in (["-M", "65536"], ["-S", "1"], ["-Q"]):
            # (by its path: a PATH of the grader's, CI's own folder of links, may be closed to the uid)
            subprocess.run([shutil.which("ipcmk", path="/usr/bin:/bin")] + args, user=self.box.uid,
                           group=self.box.gid, extra_groups=[],
                           stdout=subprocess.DEVNULL, check=True)
        self.assertEqual(sorted(k for k, _, _ in sandbox.sysv_ipc(self.box.uid)), ["msg", "sem", "shm"])
        self.run_sh("true")     # a check that ran a program (after one that ran none, nothing is done)
        self.box.end_processes()
        self.assertEqual(sandbox.sysv_ipc(self.box.uid), [])

    def confine(self, *steps):
        """grading/confine.c's argv with the sandbox's limits, then steps."""
        return [sandbox.built("confine"), "cpu=10", f"fsize={sandbox.LIMIT_FSIZE}", f"nofile={sandbox.LIMIT_NOFILE}",
                f"as={sandbox.LIMIT_AS}", *steps]

    def test_a_run_leaves_the_graders_session_keyring(self):
        libc = ctypes.CDLL(None, use_errno=True)
        key = libc.syscall(248, b"user", b"iolab-unit", b"secret", 6, -3)   # add_key to the session keyring
        self.assertGreater(key, 0, os.strerror(ctypes.get_errno()))
        self.addCleanup(libc.syscall, 250, 21, key)     # KEYCTL_INVALIDATE
        # What a program run as the uid reads of the key: 1 (its 6 bytes)
        # or 0, through the session keyring it inherited; started as the
        # uid by Python (which keeps the keyring), then by confine.
        read = [PYTHON, "-I", "-c", "import ctypes, sys; buf = ctypes.create_string_buffer(16); "
                f"sys.exit(int(ctypes.CDLL(None).syscall(250, 11, {key}, buf, 16) == 6))"]    # KEYCTL_READ
        kept = subprocess.run(read, user=self.box.uid, group=self.box.gid, extra_groups=[], cwd="/")
        left = subprocess.run(self.confine(f"uid={self.box.uid}", f"gid={self.box.gid}", "--", *read), cwd="/")
        self.assertEqual((kept.returncode, left.returncode), (1, 0))

    def test_keyrings_refused_above_the_grader_leave_it_nothing_to_leave(self):
        # as in Docker (Gradescope), whose default profile refuses keyctl:
        # here the sandbox's own filter stands for it
        pid = os.fork()
        if pid == 0:
            sandbox._install_seccomp(sandbox._filter_program(sandbox.seccomp_filter(False, False)))
            argv = self.confine("--", "/bin/true")
            os.execv(argv[0], argv)
        self.assertEqual(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), 0)

    def test_confine_refuses_what_it_cannot_do(self):
        # a step that fails stops the run before the program (126), and
        # root's uid or a bad setting is refused outright (2)
        for steps, code, said in ((["landlock=999"], 126, "cannot confine the program with Landlock"),
                                  (["seccomp=999"], 126, "cannot install the system-call filter"),
                                  (["uid=0", "gid=0"], 2, "is not a grading's"),
                                  (["cpu=-1"], 2, "cpu=-1 is not a number"),
                                  (["uid=5"], 2, "usage: confine")):
            done = subprocess.run(self.confine(*steps, "--", "/bin/echo", "ran"), capture_output=True, text=True)
            self.assertEqual((done.returncode, done.stdout), (code, ""), steps)
            self.assertIn(said, done.stderr, steps)
        # a filter read from its pipe: one instruction (allow all) runs the
        # program; one more than the kernel's 4096 is refused, not cut short
        allow = struct.pack("HBBI", 0x06, 0, 0, 0x7FFF0000)     # BPF_RET | BPF_K, SECCOMP_RET_ALLOW
        for count, code, out in ((1, 0, "ran\n"), (4097, 126, "")):
            fd = sandbox._pipe_holding(allow * count)
            try:
                done = subprocess.run(self.confine(f"seccomp={fd}", "--", "/bin/echo", "ran"), pass_fds=[fd],
                                      capture_output=True, text=True)
            finally:
                os.close(fd)
            self.assertEqual((done.returncode, done.stdout), (code, out), (count, done.stderr))

    def test_describe_names_each_layer_or_its_absence(self):
        said = self.box.describe()
        for layer in (f"own uid {self.box.uid}", "memory 2048 MiB", "by a watchdog: no cgroup",
                      "system-call filter (no sockets, no netlink", "no bubblewrap: second layer missing"):
            self.assertIn(layer, said)
        self.assertIn(f"Landlock ABI {landlock.abi()} on every program" if landlock.abi() else "no Landlock", said)
        self.box.landlock = 0       # a kernel without Landlock
        self.assertIn("no Landlock (the kernel has none)", self.box.describe())

    def test_closed_run_directory(self):
        self.box.close(self.dir)
        self.assertIn("Permission denied", self.run_sh("ls .", ))

    @unittest.skipUnless(PYTHON, "no python3 in /usr/bin for the sandbox's uid")
    def test_io_uring_only_when_asked(self):
        # io_uring_setup(0, NULL): EINVAL where it may run, EPERM from the filter
        code = ("import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
                "libc.syscall(425, 0, None); print(ctypes.get_errno())\n")
        with open(f"{self.dir}/u.py", "w") as f:
            f.write(code)
        py = PYTHON
        self.assertEqual(self.run_sh(f"{py} -I u.py").strip(), "1")   # EPERM
        # asked for, outside bubblewrap (this box) still refused: sandbox.NO_IO_URING
        self.assertEqual(self.run_sh(f"{py} -I u.py", allow_io_uring=True).strip(), "1")

    def processes(self):
        """How many processes of the uid ps lists."""
        out = subprocess.run(["ps", "-o", "pid=", "-u", str(self.box.uid)], stdout=subprocess.PIPE).stdout
        return len(out.split())

    def test_a_fork_bomb_and_a_daemon_are_all_killed(self):
        p = self.box.popen(["/bin/sh", "-c", "(setsid sleep 300 &) ; while :; do sleep 300 & done"],
                           cwd=self.dir, binds=[self.dir])
        for _ in range(100):
            if self.processes() > 50:
                break
            time.sleep(0.05)
        self.assertGreater(self.processes(), 50)
        self.box.stop(p)
        self.assertEqual(self.processes(), 0)

    def test_a_run_near_the_process_limit_is_over_the_limits(self):
        # a fork bomb at its limit is ended at the watchdog's next look; a
        # run of a few dozen processes is not
        for n, over in ((40, False), (sandbox.LIMIT_NPROC, True)):
            p = self.box.popen(["/bin/sh", "-c", f"i=0; while [ $i -lt {n} ]; do sleep 300 & i=$((i + 1)); done; wait"],
                               cwd=self.dir, binds=[self.dir], stderr=subprocess.DEVNULL)
            self.assertTrue(poll_until(lambda: self.processes() >= min(n, sandbox.LIMIT_NPROC - 1)))
            said = self.box.over_limits([self.dir], p.pid)
            self.box.stop(p)
            self.assertEqual(bool(said and said.startswith("ran ") and "a fork bomb?" in said), over, said)

    @unittest.skipUnless(PYTHON, "no python3 in /usr/bin for the sandbox's uid")
    def test_a_process_that_forks_and_exits_over_and_over_is_ended(self):
        # never both listed and alive: it beats in a file until it is gone
        with open(f"{self.dir}/t.py", "w") as f:
            f.write("import os, time\nwhile True:\n    if os.fork():\n        os._exit(0)\n"
                    "    os.write(os.open('beat', os.O_WRONLY | os.O_APPEND | os.O_CREAT), b'.')\n")
        p = self.box.popen([PYTHON, "-I", "t.py"], cwd=self.dir, binds=[self.dir])
        beat = f"{self.dir}/beat"
        for _ in range(100):
            if os.path.exists(beat) and os.path.getsize(beat) > 100:
                break
            time.sleep(0.05)
        self.assertGreater(os.path.getsize(beat), 100)
        self.box.stop(p)
        size = os.path.getsize(beat)
        time.sleep(0.5)
        self.assertEqual(os.path.getsize(beat), size)

    def test_zombies_nobody_reaps_are_seen_and_their_slot_refused(self):
        # a process of the grader's own that reaps nothing (as the batch was)
        # holds 3 zombies of the uid: the kernel still counts them
        ready, go = os.pipe()
        holder = os.fork()
        if holder == 0:
            children = []
            for _ in range(3):
                child = os.fork()
                if child == 0:
                    os.setresgid(self.box.gid, self.box.gid, self.box.gid)
                    os.setresuid(self.box.uid, self.box.uid, self.box.uid)
                    os._exit(0)
                children.append(child)
            # ready once all three are zombies of the uid (ended, not
            # reaped): before, one still root's let kill_uid find none
            for child in children:
                os.waitid(os.P_PID, child, os.WEXITED | os.WNOWAIT)
            os.write(go, b"x")
            time.sleep(60)
            os._exit(0)
        os.read(ready, 1)
        os.close(ready)
        os.close(go)

        def end_holder():
            with contextlib.suppress(ProcessLookupError, ChildProcessError):
                os.kill(holder, signal.SIGKILL)
                os.waitpid(holder, 0)
        self.addCleanup(end_holder)
        started = time.monotonic()
        with unittest.mock.patch.object(sandbox, "KILL_TIMEOUT", 0.5):
            self.assertFalse(sandbox.kill_uid(self.box.uid))
            self.assertLess(time.monotonic() - started, 3)
            self.run_sh("true")
            with self.assertRaisesRegex(sandbox.RefuseError, f"processes of uid {self.box.uid} outlived SIGKILL"):
                self.box.end_processes()
            # a grading claiming uids now skips that one
            other = sandbox.Sandbox(use_bwrap=False)
            self.addCleanup(other.release)
            self.assertNotEqual(other.uid, self.box.uid)
        # once their parent has gone, the grader adopts and reaps them
        end_holder()
        self.assertTrue(sandbox.kill_uid(self.box.uid))

    def test_no_kill_as_root(self):
        # the killer's kill(-1) as root would end every process of the
        # machine: root's uid, and -1, which setresuid leaves as it is, are
        # refused before any fork
        with unittest.mock.patch.object(os, "fork", side_effect=AssertionError("forked")):
            for uid in (0, 2 ** 32 - 1):
                with self.assertRaisesRegex(sandbox.RefuseError, f"uid {uid} is not a grading's"):
                    sandbox.kill_uid(uid)

    def test_files_left_in_shared_tmp_are_removed_and_counted_at_any_depth(self):
        # (Landlock keeps a program out of /tmp: the uid's files are made here)
        fd, left = tempfile.mkstemp(prefix="iolab-unit-", dir="/tmp")
        os.close(fd)
        self.box.own(left)
        # another user's world-writable directories, one in a closed one
        top = tempfile.mkdtemp(prefix="iolab-unit-", dir="/tmp")
        self.addCleanup(shutil.rmtree, top)
        os.makedirs(f"{top}/closed/open")
        os.chmod(top, 0o1777)
        os.chmod(f"{top}/closed/open", 0o777)
        # one below a directory the uid may not pass through: out of its reach
        os.makedirs(f"{top}/private/open")
        os.chmod(f"{top}/private/open", 0o777)
        os.chmod(f"{top}/private", 0o700)
        before = sandbox.usage_of([], self.box.uid, shared=sandbox.writable_dirs(self.box.uid))
        deep = []
        for d in (top, f"{top}/closed/open"):
            with open(f"{d}/left", "wb") as f:
                f.write(bytes(1 << 20))
            self.box.own(f"{d}/left")
            deep.append(f"{d}/left")
        shared = sandbox.writable_dirs(self.box.uid)
        self.assertIn(f"{top}/closed/open", shared)
        self.assertNotIn(f"{top}/closed", shared)
        self.assertNotIn(f"{top}/private/open", shared)
        used, files = sandbox.usage_of([], self.box.uid, shared=shared)
        self.assertGreaterEqual(used - before[0], 2 << 20)
        self.assertEqual(files - before[1], 2)
        sandbox.remove_files_of(self.box.uid)
        self.assertEqual([p for p in [left] + deep if os.path.exists(p)], [])


class OneGrading(unittest.TestCase):
    """A grading's sandbox and directories, for the tests that run a
    program as a check does (g.student)."""

    def setUp(self):
        import random
        self.work = tempfile.mkdtemp()
        self.box = sandbox.Sandbox()
        self.box.share(self.work, 0o710)
        self.g = gradelib.Grading(self.work, self.work, self.box, random.Random(1))
        os.mkdir(self.g.bin)
        self.g.fresh()

    def tearDown(self):
        self.box.release()
        shutil.rmtree(self.work, ignore_errors=True)


@unittest.skipUnless(ROOT, "needs root: the sandbox's own uid")
class Reaper(OneGrading):
    """Students' programs run under grading/reaper.c: what they hand to a
    process nobody waits for still counts, and their I/O is counted, with
    bubblewrap or without."""

    def test_cpu_of_an_unwaited_child_and_io_count(self):
        for bwrap in (self.box.bwrap, None):
            self.box.bwrap = bwrap
            # a child that its parent never waits for, burning a fixed amount
            # of CPU (0.7 s here; a loop timed by the clock burned less when
            # other work shared the cores, and failed this test once)
            r = self.g.student("sh", "-c", "(i=0; while [ $i -lt 500000 ]; do i=$((i+1)); done) & "
                               "head -c 100000 /dev/zero >zeros; exit 3", path="/bin/sh")
            self.assertEqual(r.status, 3)
            self.assertGreater(r.cpu_s, 0.2, f"bwrap={bwrap}")
            self.assertGreaterEqual(r.io["wchar"], 100000)

    def test_a_signal_is_named_and_an_exit_status_of_139_is_not_one(self):
        for bwrap in (self.box.bwrap, None):
            self.box.bwrap = bwrap
            r = self.g.student("sh", "-c", "kill -SEGV $$", path="/bin/sh")
            self.assertEqual((r.status, r.signal), (139, 11), f"bwrap={bwrap}")
            self.assertEqual(r.why("fillcopy"), "fillcopy was killed by SIGSEGV (a bad memory access: a null or "
                             "freed pointer, past an array, or the stack's limit)")
            r = self.g.student("sh", "-c", "echo oops >&2; exit 139", path="/bin/sh")
            self.assertEqual((r.status, r.signal), (139, 0))
            self.assertEqual(r.why("fillcopy"), "fillcopy: exit status 139 (oops)")
            r = self.g.student("sh", "-c", "kill -KILL $$", path="/bin/sh")
            self.assertRegex(r.why("runs"), r"^runs was killed by SIGKILL \(the machine's memory ran out")

    def test_a_program_killing_its_reaper_gains_nothing(self):
        r = self.g.student("sh", "-c", "kill -9 $PPID; exit 0", path="/bin/sh")
        self.assertEqual(r.cpu_s, float("inf"))


class TracerLog(unittest.TestCase):
    """tracer.py reads strace's log: calls split by other threads' lines
    joined, what strace adds after a return value ignored, and nothing a
    traced program printed taken for a line of the log."""

    LOG = (
        '7 clone3({flags=CLONE_VM|CLONE_THREAD, exit_signal=0} <unfinished ...>\n'
        '8 pread64(3,  <unfinished ...>\n'
        '7 <... clone3 resumed> => {parent_tid=[8]}, 88) = 8\n'
        '9 pread64(3, ""..., 4096, 0) = 4096\n'
        '8 <... pread64 resumed>""..., 4096, 4096) = 4096 (DELAYED)\n'
        '7 clone3({flags=CLONE_VM|CLONE_FS, exit_signal=SIGCHLD}, 88) = 10\n'
        '7 clone(child_stack=NULL, flags=CLONE_THREAD|CLONE_VM) = -1 EAGAIN (Resource temporarily unavailable)\n'
        '7 write(1, "\\n7 clone3({flags=CLONE_THREAD}, 88) = 11\\n", 40) = 40\n'
        '7 io_uring_enter(4, 16, 0, 0, NULL, 8) = 16\n'
        '7 io_uring_enter(4, 3, 0, 0, NULL, 8) = 3\n'
        '8 +++ exited with 0 +++\n')

    def setUp(self):
        fd, self.path = tempfile.mkstemp()
        with os.fdopen(fd, "w") as f:
            f.write(self.LOG)

    def tearDown(self):
        os.unlink(self.path)

    def test_threads_are_clones_with_clone_thread_that_succeeded(self):
        self.assertEqual(tracer.threads_started(self.path), 1)

    def test_two_threads_inside_pread_at_once(self):
        self.assertEqual(tracer.most_inside(self.path, ["pread64"]), 2)
        self.assertEqual(tracer.most_inside(self.path, ["pread64"], among={9}), 1)

    def test_submissions_most_calls_and_requests(self):
        self.assertEqual(tracer.submissions(self.path), (16, 2, 19))


class LockLog(unittest.TestCase):
    """tracer.lock_order: the bytes written inside each whole-file lock;
    a lock over part of the file, or an unlock of part of it, is partial,
    and the lock it did not release is taken again."""

    LOG = (
        '5 flock(3, LOCK_EX) = 0\n'
        '5 write(3, ""..., 6) = 6\n'
        '5 flock(3, LOCK_UN) = 0\n'
        '5 fcntl(3, F_SETLKW, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=0, l_len=0}) = 0\n'
        '5 write(3, ""..., 4) = 4\n'
        '5 fcntl(3, F_SETLK, {l_type=F_UNLCK, l_whence=SEEK_SET, l_start=1099511627776, l_len=0}) = 0\n'
        '5 fcntl(3, F_SETLKW, {l_type=F_WRLCK, l_whence=SEEK_SET, l_start=0, l_len=0}) = 0\n'
        '5 write(3, ""..., 2) = 2\n'
        '5 close(3) = 0\n')

    def test_pairs_partial_and_relocked(self):
        fd, path = tempfile.mkstemp()
        with os.fdopen(fd, "w") as f:
            f.write(self.LOG)
        try:
            self.assertEqual(tracer.lock_order(path), dict(pairs=[6, 6], inside=12, relocked=1, partial=1))
        finally:
            os.unlink(path)


@unittest.skipUnless(ROOT and tracer.STRACE, "needs root (the sandbox's own uid) and strace")
@unittest.skipUnless(PYTHON, "no python3 in /usr/bin for the sandbox's uid")
class Tracer(OneGrading):
    """A program run with trace= is seen by strace running as the grader,
    with bubblewrap and without: its threads are counted whatever it
    writes, and it can neither read nor write the log."""

    def test_threads_counted_from_outside_and_the_log_out_of_reach(self):
        self.assertIsNone(self.box.trace_refused)
        # three threads; then lines in the old shim's format to every
        # descriptor, and an attempt at every log of the grading's directory
        code = ("import os, threading\n"
                "ts = [threading.Thread(target=lambda: None) for _ in range(3)]\n"
                "[t.start() for t in ts]; [t.join() for t in ts]\n"
                "for fd in range(3, 64):\n"
                "    try: os.write(fd, b'thread\\n' * 10)\n"
                "    except OSError: pass\n"
                f"for name in ('trace-1.log', 'trace-2.log'):\n"
                f"    try: open(os.path.join({self.work!r}, name), 'a').write('7 clone3(CLONE_THREAD) = 9\\n')\n"
                "    except OSError as e: print(e.strerror)\n")
        for bwrap in (self.box.bwrap, None):
            self.box.bwrap = bwrap
            self.g.fresh()
            r = self.g.student("python3", "-c", code, path=PYTHON, trace=tracer.THREADS, timeout=20)
            self.assertEqual(r.status, 0, r.err)
            self.assertEqual(tracer.threads_started(r.trace), 3, f"bwrap={bwrap}")
            self.assertEqual(r.text.count("ermission denied") + r.text.count("No such file"), 2, r.text)


if __name__ == "__main__":
    unittest.main()
