"""Unit tests of grading/classresults: strict values, the tar, folder and zip
readers against crafted hostile input, the checks of a lab's data, the ids,
and the percentile lines (run by grading/tests/class.bats):

    python3 -I -B grading/tests/test_classresults.py -v
"""

import csv
import gzip
import io
import os
import stat
import tarfile
import tempfile
import unittest
import sys
import zipfile

if __name__ == "__main__":  # run as a file: the kit's root in place of this folder (see grading/grade.py)
    HERE = os.path.dirname(os.path.realpath(__file__))
    sys.path[0:1 if sys.path and os.path.realpath(sys.path[0]) == HERE else 0] = [os.path.dirname(os.path.dirname(HERE))]
from grading.classresults import measures, merge, plotdata, reader, spec, standing, values  # noqa: E402
from grading.classresults.values import Bad  # noqa: E402
from common import columns  # noqa: E402

WANTED = merge.WANTED


def tar_gz(members, fmt=tarfile.GNU_FORMAT):
    """members: [(name, data or None, type, link)] -> .tar.gz bytes"""
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=fmt) as tar:
        for name, data, kind, link in members:
            info = tarfile.TarInfo(name)
            info.type, info.linkname = kind, link
            info.size = len(data) if data is not None else 0
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return buf.getvalue()


def regular(name, data):
    return (name, data, tarfile.REGTYPE, "")


def read(blob):
    return reader.read_targz(io.BytesIO(blob), "sub", WANTED)


class Values(unittest.TestCase):
    def test_numbers_as_the_kit_prints_them(self):
        for text, value in [("0.007303", 0.007303), ("2911", 2911.0), ("1e-05", 1e-05),
                            ("2.5977421", 2.5977421), ("0", 0.0), ("1E+03", 1000.0)]:
            self.assertEqual(columns.number(text), value)

    def test_numbers_refused(self):
        for text, why in [("nan", "not a number"), ("NaN", "not a number"), ("inf", "not a number"),
                          ("1e9919", "not a number"), ("1e999", "out of range"),
                          ("0x10", "not a number"), ("-0.5", "has a sign"), ("-0.0", "has a sign"),
                          ("1_000", "not a number"), (" 1", "not a number"), ("", "not a number"),
                          ("+1", "has a sign"), ("1" * 21, "not a number"), ("1e400", "out of range"),
                          ("\u0661\u0662", "not a number"), (".5", "not a number"), ("1.", "not a number")]:
            with self.subTest(text=text):
                with self.assertRaisesRegex(Bad, why):
                    columns.number(text)

    def test_counts_seconds_flags_tokens(self):
        self.assertEqual(columns.count("4096"), 4096)
        for bad in ("1.0", "0x10", "-1", "1e3", "9" * 16):
            with self.assertRaises(Bad):
                columns.count(bad)
        with self.assertRaisesRegex(Bad, "more than a day"):
            columns.seconds("90000")
        # seconds in exponent form too, as printf's %e and %g print them
        self.assertEqual(columns.seconds("7.209e-03"), 0.007209)
        self.assertEqual(columns.seconds("1E3"), 1000.0)
        with self.assertRaises(Bad):
            columns.flag("2")
        with self.assertRaises(Bad):
            columns.token("a,b")
        with self.assertRaises(Bad):
            columns.token("x" * 41)
        # never first what a spreadsheet reads as a formula
        for bad in ("+A1-B2", "-A1", ".x"):
            with self.assertRaisesRegex(Bad, "is not a plain name"):
                columns.token(bad)
        self.assertEqual(columns.token("per-file_1.5+"), "per-file_1.5+")
        self.assertEqual([values.label(t) for t in ("+SUM(A1:A9)", "@SUM(1)", " -+@x", "=1+1", "Intel(R) i5-8250U")],
                         ["SUM(A1:A9)", "SUM(1)", "x", "1+1", "Intel(R) i5-8250U"])

    def test_csv_by_name_extra_columns_and_order(self):
        cols = [("a", "seconds", True), ("b", "count?", False), ("c", "token", True),
                ("d", "number?", False)]
        rows = values.read_csv(b"extra,c,a,b\nz,ok,1.5,\nz,no,2,7\n", cols, "f.csv")
        self.assertEqual([v for v, _ in rows], [{"a": 1.5, "b": None, "c": "ok"},
                                                {"a": 2.0, "b": 7, "c": "no"}])
        self.assertEqual([r for _, r in rows], [["1.5", "", "ok", ""], ["2", "7", "no", ""]])

    def test_csv_refused_with_line_and_column(self):
        cols = [("a", "seconds", True), ("c", "token", True)]
        for data, why in [
                (b"a,c\n1,x\nnan,y\n", "f.csv line 3: a 'nan' is not a number"),
                (b"a,c\n1,x\n-0.0,y\n", "f.csv line 3: a '-0.0' has a sign"),
                (b"a,c\n1,x\n9e4,y\n", "f.csv line 3: a '9e4' s is more than a day"),
                (b"a,c\n1,x\n1,y,z\n", "f.csv line 3: 3 fields, the header has 2"),
                (b"c\nx\n", "f.csv: no column a"),
                (b"a,a,c\n1,1,x\n", "named twice"),
                (b"a,C\n1,x\n", "not a snake_case name"),
                (b'a,c\n"1\n2",x\n', "f.csv line 2: a '1\\\\n2' is not a number"),
                (b"a,c\n", "f.csv: no rows"),
                (b"a,c\n\xff,x\n", "not ASCII"),
                (b'a,c\n1,"x\n', "not CSV")]:
            with self.subTest(data=data):
                with self.assertRaisesRegex(Bad, why):
                    values.read_csv(data, cols, "f.csv")

    def test_machine(self):
        m = values.read_machine(b"cpu: Intel(R) Core(TM) i5, \"evil\"\ncores: 4\nkernel: Linux 6.1\n"
                                b"scratch_dir_fs: ext4\ncpu: second\n")
        self.assertEqual(m["cpu"], "Intel(R) Core(TM) i5 evil")
        for data, why in [(b"cores: 4\nkernel: k\nscratch_dir_fs: x\n", "no cpu"),
                          (b"cpu: c\ncores: lots\nkernel: k\nscratch_dir_fs: x\n", "not a count")]:
            with self.assertRaisesRegex(Bad, why):
                values.read_machine(data)

    def test_declared(self):
        """labs/N-topic/columns.csv: the columns in order, by file; one that
        does not hold together names its file and line."""
        with tempfile.TemporaryDirectory() as kit:
            os.makedirs(os.path.join(kit, "labs", "7-toy"))
            os.makedirs(os.path.join(kit, "labs", "8-more"))
            path = os.path.join(kit, "labs", "7-toy", "columns.csv")

            def declare(text):
                with open(path, "w") as f:
                    f.write("file,column,kind,unit,class\n" + text)
                return columns.declared(kit)
            files = declare("lab7.csv,n,count,,need\nlab7.csv,wall_s,seconds?,s,\nlab7-b.csv,x,token,,keep\n")
            self.assertEqual(list(files), ["lab7.csv", "lab7-b.csv"])
            self.assertEqual(files["lab7.csv"], (7, [columns.Column("n", "count", "", "need"),
                                                     columns.Column("wall_s", "seconds?", "s", "")]))
            for text, why in [("lab7.csv,n,integer,,need\n", "line 2: not file,column,kind"),
                              ("lab7.csv,n,count,,maybe\n", "line 2: not file,column,kind"),
                              ("lab7.csv,N-x,count,,\n", "line 2: not file,column,kind"),
                              ("lab7.csv,n,count\n", "line 2: not file,column,kind"),
                              ("lab7.csv,n,count,,\nlab7.csv,n,flag,,\n", "line 3: lab7.csv n is declared twice")]:
                with self.subTest(text=text):
                    with self.assertRaisesRegex(ValueError, "^labs/7-toy/columns.csv " + why):
                        declare(text)
            declare("lab7.csv,n,count,,\n")
            with open(os.path.join(kit, "labs", "8-more", "columns.csv"), "w") as f:
                f.write("file,column,kind,unit,class\nlab7.csv,m,count,,\n")
            with self.assertRaisesRegex(ValueError, "^labs/8-more/columns.csv line 2: lab7.csv is lab 7's"):
                columns.declared(kit)
            with open(path, "w") as f:
                f.write("file,name,kind\n")
            with self.assertRaisesRegex(ValueError, "^labs/7-toy/columns.csv: the header is not file,column"):
                columns.declared(kit)

    def test_declared_trials(self):
        """labs/N-topic/trials.csv: a file's configuration, measured column,
        bounds and trials, checked against its columns.csv; the rule's
        verdicts on parsed rows."""
        with tempfile.TemporaryDirectory() as kit:
            os.makedirs(os.path.join(kit, "labs", "7-toy"))
            with open(os.path.join(kit, "labs", "7-toy", "columns.csv"), "w") as f:
                f.write("file,column,kind,unit,class\nlab7.csv,mode,token,,need\nlab7.csv,trial,count,,need\n"
                        "lab7.csv,wall_s,seconds,s,need\nlab7.csv,cpu_s,seconds?,s,keep\n")
            path = os.path.join(kit, "labs", "7-toy", "trials.csv")

            def declare(text):
                with open(path, "w") as f:
                    f.write("file,configuration,measured,above,below,trials,equal_from\n" + text)
                return columns.declared_trials(kit)
            rule = declare("lab7.csv,mode,wall_s,0,600,3,0.001\n")["lab7.csv"]
            self.assertEqual(rule, columns.Trials("lab7.csv", ("mode",), "wall_s", 0.0, 600.0, 3, 0.001))
            for text, why in [("lab8.csv,mode,wall_s,0,600,3,0\n", "lab8.csv is not a file labs/7-toy/columns"),
                              ("lab7.csv,mode size,wall_s,0,600,3,0\n", "lab7.csv has no column size"),
                              ("lab7.csv,mode,cpu_s,0,600,3,0\n", "cpu_s is a seconds\\?, not a number"),
                              ("lab7.csv,mode,wall_s,-1,600,3,0\n", "'-1' has a sign"),
                              ("lab7.csv,mode,wall_s,0,600\n", "not 7 fields")]:
                with self.subTest(text=text):
                    with self.assertRaisesRegex(ValueError, "^labs/7-toy/trials.csv line 2: " + why):
                        declare(text)
        rows = [{"mode": m, "trial": t, "wall_s": w} for m, t, w in
                [("a", 1, 0.5), ("a", 2, 0.5), ("a", 3, 0.5), ("b", 1, 0.1), ("b", 2, 0.2)]]
        self.assertIsNone(columns.out_of_bounds(rows, rule))
        self.assertEqual(columns.forged(rows, rule), "lab7.csv: all 3 trials of mode=a have wall_s 0.5 exactly: not measured")
        self.assertEqual(columns.too_few(rows, rule), "lab7.csv: only 2 trial(s) of mode=b (at least 3)")
        rows[4]["wall_s"] = 600.0
        self.assertEqual(columns.out_of_bounds(rows, rule), "lab7.csv line 6: wall_s 600 is not between 0 and 600")
        # below equal_from, equal trials are the CSV's precision, not a forgery
        self.assertIsNone(columns.forged([dict(r, wall_s=0.000001) for r in rows[:3]], rule))


class Tarballs(unittest.TestCase):
    def test_handin(self):
        blob = tar_gz([regular("iolab-handin/answers.md", b"## Q1.1\n"),
                       regular("iolab-handin/data/lab1.csv", b"a\n1\n"),
                       regular("iolab-handin/data/machine.txt", b"cpu: x\n"),
                       regular("iolab-handin/data/lab7-other.csv", b"not wanted\n"),
                       regular("iolab-handin/plot/lab1-runs.png", b"\x89PNG" * 1000)])
        self.assertEqual(read(blob), {"lab1.csv": b"a\n1\n", "machine.txt": b"cpu: x\n"})
        # the predictions, beside data/ (not deeper)
        blob = tar_gz([regular("iolab-handin/predictions.md", b"- P4.1 x: 1\n"),
                       regular("iolab-handin/labs/predictions.md", b"not wanted\n"),
                       regular("iolab-handin/data/lab1.csv", b"a\n1\n")])
        self.assertEqual(read(blob), {"lab1.csv": b"a\n1\n", "predictions.md": b"- P4.1 x: 1\n"})

    def test_pax_long_names(self):
        long = "iolab-handin/" + "d" * 120 + "/x.txt"
        blob = tar_gz([regular(long, b"x"), regular("iolab-handin/data/lab2.csv", b"b\n2\n")],
                      fmt=tarfile.PAX_FORMAT)
        self.assertEqual(read(blob), {"lab2.csv": b"b\n2\n"})
        blob = tar_gz([regular(long, b"x"), regular("iolab-handin/data/lab2.csv", b"b\n2\n")])
        self.assertEqual(read(blob), {"lab2.csv": b"b\n2\n"})

    def test_refused_members(self):
        for member, why in [
                (("iolab-handin/data/lab1.csv", None, tarfile.SYMTYPE, "/etc/passwd"), "symbolic link"),
                (("iolab-handin/x", None, tarfile.LNKTYPE, "/etc/shadow"), "hard link"),
                (("iolab-handin/dev", None, tarfile.CHRTYPE, ""), "a device"),
                (("iolab-handin/fifo", None, tarfile.FIFOTYPE, ""), "a fifo"),
                (regular("iolab-handin/../../x", b"x"), "'..'"),
                (regular("/etc/cron.d/x", b"x"), "absolute"),
                (regular("a/\x1b[2Jb", b"x"), "control characters")]:
            with self.subTest(why=why):
                blob = tar_gz([regular("iolab-handin/data/lab1.csv", b"a\n1\n"), member])
                with self.assertRaisesRegex(reader.Rejected, why):
                    read(blob)

    def test_twice(self):
        blob = tar_gz([regular("iolab-handin/data/lab1.csv", b"a\n1\n"),
                       regular("other/data/lab1.csv", b"a\n2\n")])
        with self.assertRaisesRegex(reader.Rejected, "twice"):
            read(blob)

    def test_sizes_from_headers_and_limits(self):
        big = tar_gz([regular("iolab-handin/data/lab5.csv", bytes(reader.MAX_FILE + 1))])
        with self.assertRaisesRegex(reader.Rejected, "more than 8 MiB"):
            read(big)
        old = reader.MAX_TOTAL
        reader.MAX_TOTAL = 1 << 20
        try:
            bomb = tar_gz([regular("iolab-handin/plot/a.png", bytes(2 << 20))])
            self.assertLess(len(bomb), 10000)
            with self.assertRaisesRegex(reader.Rejected, "unpacked"):
                read(bomb)
        finally:
            reader.MAX_TOTAL = old

    def test_corrupt(self):
        blob = bytearray(tar_gz([regular("iolab-handin/data/lab1.csv", b"a\n1\n")]))
        raw = bytearray(gzip.decompress(bytes(blob)))
        raw[20] ^= 0x01		# the name: the header's checksum no longer holds
        with self.assertRaisesRegex(reader.Rejected, "checksum"):
            read(gzip.compress(bytes(raw)))
        with self.assertRaisesRegex(reader.Rejected, "truncated|not a readable"):
            read(bytes(blob[:len(blob) // 2]))
        with self.assertRaisesRegex(reader.Rejected, "not a readable .tar.gz"):
            read(b"PK\x03\x04 not gzip")
        # a header that says 1 GiB follows, which does not
        raw = bytearray(gzip.decompress(bytes(blob)))
        raw[124:136] = b"%011o\0" % (1 << 30)
        raw[148:156] = b"        "
        raw[148:156] = b"%06o\0 " % sum(raw[:512])
        with self.assertRaisesRegex(reader.Rejected, "more than 8 MiB|truncated"):
            read(gzip.compress(bytes(raw)))


class Folders(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.dir = self.tmp.name

    def tearDown(self):
        self.tmp.cleanup()

    def put(self, rel, data=b"x\n"):
        path = os.path.join(self.dir, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as f:
            f.write(data)

    def test_unpacked_one_folder_down(self):
        self.put("sub/iolab-handin/data/lab1.csv", b"a\n")
        self.put("sub/iolab-handin/data/machine.txt", b"m\n")
        self.assertEqual(reader.read_path(os.path.join(self.dir, "sub"), "sub", WANTED),
                         {"lab1.csv": b"a\n", "machine.txt": b"m\n"})

    def test_predictions_beside_data(self):
        self.put("sub/iolab-handin/data/lab1.csv", b"a\n")
        self.put("sub/iolab-handin/predictions.md", b"p\n")
        self.put("top/data/lab1.csv", b"a\n")
        self.put("top/predictions.md", b"q\n")
        self.assertEqual(reader.read_path(os.path.join(self.dir, "sub"), "sub", WANTED),
                         {"lab1.csv": b"a\n", "predictions.md": b"p\n"})
        self.assertEqual(reader.read_path(os.path.join(self.dir, "top"), "top", WANTED),
                         {"lab1.csv": b"a\n", "predictions.md": b"q\n"})
        # a link in its place is never followed: at the top, refused as
        # every link there is; one folder down, left unread
        self.put("link/data/lab1.csv", b"a\n")
        os.symlink("/etc/passwd", os.path.join(self.dir, "link/predictions.md"))
        with self.assertRaisesRegex(reader.Rejected, "link"):
            reader.read_path(os.path.join(self.dir, "link"), "link", WANTED)
        os.makedirs(os.path.join(self.dir, "deep/x"))
        self.put("deep/x/data/lab1.csv", b"a\n")
        os.symlink("/etc/passwd", os.path.join(self.dir, "deep/x/predictions.md"))
        self.assertEqual(reader.read_path(os.path.join(self.dir, "deep"), "deep", WANTED),
                         {"lab1.csv": b"a\n"})

    def test_gradescope_loose_files(self):
        self.put("sub/lab1.csv", b"a\n")
        self.put("sub/machine.txt", b"m\n")
        self.assertEqual(set(reader.read_path(os.path.join(self.dir, "sub"), "sub", WANTED)),
                         {"lab1.csv", "machine.txt"})

    def test_links_refused(self):
        self.put("sub/data/machine.txt")
        os.symlink("/etc/passwd", os.path.join(self.dir, "sub/data/lab1.csv"))
        with self.assertRaisesRegex(reader.Rejected, "not a regular file"):
            reader.read_path(os.path.join(self.dir, "sub"), "sub", WANTED)
        os.makedirs(os.path.join(self.dir, "two"))
        os.symlink("/etc", os.path.join(self.dir, "two/data"))
        with self.assertRaisesRegex(reader.Rejected, "link"):
            reader.read_path(os.path.join(self.dir, "two"), "two", WANTED)
        os.symlink(os.path.join(self.dir, "sub"), os.path.join(self.dir, "three"))
        with self.assertRaisesRegex(reader.Rejected, "symbolic link"):
            reader.read_path(os.path.join(self.dir, "three"), "three", WANTED)

    def test_fifo_refused(self):
        os.makedirs(os.path.join(self.dir, "sub/data"))
        os.mkfifo(os.path.join(self.dir, "sub/data/lab1.csv"))
        with self.assertRaisesRegex(reader.Rejected, "not a regular file"):
            reader.read_path(os.path.join(self.dir, "sub"), "sub", WANTED)


class Zips(unittest.TestCase):
    def test_export_layout(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "export.zip")
            with zipfile.ZipFile(path, "w") as z:
                z.writestr("assignment_9_export/submission_metadata.yml", "names: here\n")
                z.writestr("assignment_9_export/submission_1/iolab-handin.tar.gz",
                           tar_gz([regular("iolab-handin/data/lab1.csv", b"a\n")]))
                z.writestr("assignment_9_export/submission_2/lab1.csv", b"b\n")
                link = zipfile.ZipInfo("assignment_9_export/submission_3/lab1.csv")
                link.external_attr = (stat.S_IFLNK | 0o777) << 16
                z.writestr(link, "/etc/passwd")
            with zipfile.ZipFile(path) as z:
                groups = reader.zip_submissions(z)
            self.assertEqual(sorted(groups), ["submission_1", "submission_2", "submission_3"])
            self.assertEqual(reader.read_zip_folder(path, groups["submission_1"], "s1", WANTED),
                             {"lab1.csv": b"a\n"})
            self.assertEqual(reader.read_zip_folder(path, groups["submission_2"], "s2", WANTED),
                             {"lab1.csv": b"b\n"})
            with self.assertRaisesRegex(reader.Rejected, "link"):
                reader.read_zip_folder(path, groups["submission_3"], "s3", WANTED)

    def test_directory_entries(self):
        """`zip -r` records every directory, each submission's folder too."""
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "export.zip")
            with zipfile.ZipFile(path, "w") as z:
                for d in ("export/", "export/submission_1/", "export/submission_1/data/",
                          "export/submission_2/"):
                    z.writestr(d, b"")
                z.writestr("export/submission_1/data/lab1.csv", b"a\n")
            with zipfile.ZipFile(path) as z:
                groups = reader.zip_submissions(z)
            self.assertEqual(sorted(groups), ["submission_1", "submission_2"])
            self.assertEqual(reader.read_zip_folder(path, groups["submission_1"], "s1", WANTED),
                             {"lab1.csv": b"a\n"})
            self.assertEqual(reader.read_zip_folder(path, groups["submission_2"], "s2", WANTED), {})

    def test_public_reasons_name_nothing_from_inside(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "export.zip")
            with zipfile.ZipFile(path, "w") as z:
                link = zipfile.ZipInfo("export/submission_1/Jane Doe's notes.txt")
                link.external_attr = (stat.S_IFLNK | 0o777) << 16
                z.writestr(link, "/etc/passwd")
            with zipfile.ZipFile(path) as z:
                groups = reader.zip_submissions(z)
            with self.assertRaises(reader.Rejected) as e:
                reader.read_zip_folder(path, groups["submission_1"], "submission", WANTED)
        self.assertIn("Jane Doe", str(e.exception))	# the instructor's log says which
        self.assertEqual(reader.public(str(e.exception)),
                         "submission: (a name) is a link or special file")
        # a name that tries to close the quotation early is escaped inside it
        self.assertEqual(reader.public("x: " + reader.quote("a\u00bb b") + " is bad"), "x: (a name) is bad")


def lab2_rows(walls):
    """lab2.csv parsed: the sweep at K=1 with flush, one row per wall time."""
    head = ("experiment,lines_per_lock,flush,lock,sync,trial,writer,lines_written,wall_s,"
            "lines_found,lost_lines\n")
    body = "".join(f"sweep,1,1,flock,none,{i // 2 + 1},{'AB'[i % 2]},100,{w},100,0\n"
                   for i, w in enumerate(walls))
    f = spec.BY_NAME["lab2.csv"]
    return f, values.read_csv((head + body).encode(), f.columns, "lab2.csv")


class Predictions(unittest.TestCase):
    def test_the_number_in_the_unit_of_the_line(self):
        for text, unit, want in [("0.5 s", "s", 0.5), ("about 1,200 us", "us", 1200), ("500 ms", "s", 0.5),
                                 ("3 ms", "us", 3000), ("2e-3", "s", 0.002), ("1.5 (threads help)", "s", 1.5),
                                 ("4 states", "states", 4)]:
            self.assertAlmostEqual(spec.predicted(text, unit), want, msg=text)
        for text in ["no idea", "0", "1e9999", "-", "yes: fflush writes", ""]:
            self.assertIsNone(spec.predicted(text, "s"), msg=text)

    def test_beside_the_measurement_or_left_out(self):
        rows = [dict(strategy=s, files=f, fsync=1, wall_s=w, cpu_s=w / 10)
                for s, f, w in [("per-file", 5, 9.0), ("per-file", 50, 2.0), ("per-file", 50, 4.0),
                                ("seq", 50, 6.0)]]
        text = b"## Lab 4\n- P4.1 per-file: 1 s\n- P4.2 cpu: some\n- P4.3 seq:\n- P4.1 again: 7\n"
        points, left = spec.predictions(text, {"lab4-writers.csv": rows})
        # the largest file count's median (50 files: 2 and 4 s), the first P4.1 line
        self.assertEqual(points, [("P4.1", 1.0, 3.0)])
        self.assertEqual(left, {"P4.3": "missing", "P2.4": "missing", "P6.2": "missing",
                                "P6.3": "missing", "P4.2": "unparseable"})
        points, left = spec.predictions(b"- P2.4 fsync: 0.1\n", {})
        self.assertEqual((points, left["P2.4"]), ([], "not measured"))

    def test_a_long_line_without_a_colon(self):
        """A line of 200,000 spaces and no colon is read in one pass: the
        pattern it replaced backtracked for minutes on it, and make class
        waited for that one submission."""
        rows = [dict(strategy="per-file", files=50, fsync=1, wall_s=2.0, cpu_s=0.2)]
        text = b"- P4.1" + b" " * 200000 + b"x\n- P4.3 seq: 5 s\n- P4.1 per-file: 1 s\n"
        points, left = spec.predictions(text, {"lab4-writers.csv": rows})
        self.assertEqual(points, [("P4.1", 1.0, 2.0)])
        self.assertEqual(left["P4.3"], "not measured")


class Checks(unittest.TestCase):
    def test_forged_constant_trials(self):
        f, rows = lab2_rows(["0.050000"] * 4)
        with self.assertRaisesRegex(Bad, "all 4 trials .* took exactly 0.05 s"):
            spec.check_file(f, rows)
        f, rows = lab2_rows(["0.050000", "0.050000", "0.050001", "0.050000"])
        spec.check_file(f, rows)
        f, rows = lab2_rows(["0.000003"] * 4)	# at the clock's resolution: no proof
        spec.check_file(f, rows)
        f, rows = lab2_rows(["0.05", "0.05"])	# two writers of one trial may tie
        spec.check_file(f, rows)

    def test_impossible_values(self):
        f = spec.BY_NAME["lab5.csv"]
        head = ("experiment,series,op,pattern,io_bytes,direct,trial,ios,bytes,wall_s,mib_s,iops\n")
        ok = "random-read,direct,read,random,4096,1,1,256,1048576,0.01,100,25600\n"
        spec.check_file(f, values.read_csv((head + ok).encode(), f.columns, "lab5.csv"))
        forged = "random-read,direct,read,random,4096,1,1,256,1048576,0.01,100,99999\n"
        with self.assertRaisesRegex(Bad, "iops 99999 is not ios / wall_s"):
            spec.check_file(f, values.read_csv((head + forged).encode(), f.columns, "lab5.csv"))
        nothing = "random-read,direct,read,random,4096,1,1,0,0,0.01,0,0\n"	# every rate agrees with 0
        with self.assertRaisesRegex(Bad, "lab5.csv line 2: ios must be at least 1"):
            spec.check_file(f, values.read_csv((head + nothing).encode(), f.columns, "lab5.csv"))

    def test_consistent_at_any_duration(self):
        """Under 1 ms too: the rate must agree with the time as printed,
        rounding included; a time printed as 0 still bounds the rate."""
        f = spec.BY_NAME["lab5.csv"]
        head = ("experiment,series,op,pattern,io_bytes,direct,trial,ios,bytes,wall_s,mib_s,iops\n")

        def check(row):
            spec.check_file(f, values.read_csv((head + row).encode(), f.columns, "lab5.csv"))
        # 1 I/O of 4 KiB in 12 us (printed to the microsecond): 83333 IOPS, 325.5 MiB/s
        check("random-read,cached,read,random,4096,0,1,1,4096,0.000012,325.5,83333\n")
        check("random-read,cached,read,random,4096,0,1,1,4096,0.000012,315.0,80645\n")	# 12.4 us, printed 12
        with self.assertRaisesRegex(Bad, "iops 1e\\+12 is not ios / wall_s"):
            check("random-read,cached,read,random,4096,0,1,1,4096,0.000012,325.5,1e12\n")
        with self.assertRaisesRegex(Bad, "mib_s is not bytes / wall_s"):
            check("random-read,cached,read,random,4096,0,1,1,4096,0.000012,9000,83333\n")
        # printed as 0: at least 1 I/O in half a microsecond, 2e6 IOPS; fewer cannot be
        with self.assertRaisesRegex(Bad, "iops 100 is not ios / wall_s"):
            check("random-read,cached,read,random,4096,0,1,1,4096,0.000000,0.4,100\n")

    def test_rates_no_machine_reaches(self):
        f = spec.BY_NAME["lab5-depth.csv"]	# the file with threads of pread (jobs)
        head = ("experiment,series,op,pattern,io_bytes,direct,iodepth,jobs,trial,ios,bytes,wall_s,mib_s,iops\n")

        def check(row):
            spec.check_file(f, values.read_csv((head + row).encode(), f.columns, "lab5-depth.csv"))
        # consistent, but 2e7 I/Os a second in one thread: 50 ns each
        with self.assertRaisesRegex(Bad, "iops 2e\\+07 with 1 thread\\(s\\): more than 1e\\+07"):
            check("depth,pread,read,random,1,0,0,1,1,20000000,20000000,1.000000,19.07,2e7\n")
        check("depth,pread,read,random,1,0,0,4,1,20000000,20000000,1.000000,19.07,2e7\n")	# 4 threads
        # 2 TiB/s: past any core's caches
        with self.assertRaisesRegex(Bad, "mib_s 2.09715e\\+06 with 1 thread"):
            check("depth,pread,read,seq,1073741824,0,0,1,1,2048,2199023255552,1.000000,2097152,2048\n")
        f = spec.BY_NAME["lab3-membw.csv"]
        rows = values.read_csv(b"trial,threads,op,bytes,wall_s,mib_s\n1,1,copy,1048576,0.000001,2000000\n",
                               f.columns, "lab3-membw.csv")
        with self.assertRaisesRegex(Bad, "past any machine's memory"):
            spec.check_file(f, rows)


class Reading(unittest.TestCase):
    def test_a_reading_of_columns_not_merged_stops_it(self):
        with self.assertRaisesRegex(ValueError, "^grading/lab7/class_results.py reads lab7.csv by mode, which "
                                    "labs/7-\\*/columns.csv does not declare with class need or keep$"):
            spec.DataFile("lab7.csv", 7, [("n", "count", "need"), ("wall_s", "seconds", "need")], config=("mode",))

    def test_a_row_check_in_a_file_with_no_time(self):
        """A lab's counts only: its check runs (with no rounding of a time to
        allow), and no trial is told apart."""
        f = spec.DataFile("lab7.csv", 7, [("n", "count", "need"), ("square", "count", "need")],
                          config=("n",), check=lambda v, half: None if v["square"] == v["n"] ** 2 else "not n * n")
        self.assertEqual(f.timing, ())
        spec.check_file(f, values.read_csv(b"n,square\n3,9\n3,9\n3,9\n", f.columns, "lab7.csv"))
        with self.assertRaisesRegex(Bad, "lab7.csv line 3: not n \\* n"):
            spec.check_file(f, values.read_csv(b"n,square\n2,4\n3,8\n", f.columns, "lab7.csv"))


class Summaries(unittest.TestCase):
    def test_first_touch_per_pass(self):
        """Lab 3's first-touch cost: a one-pass fill of fresh pages against
        one pass of the prefaulted fills, which make --passes N."""
        gib = 1 << 30
        rows = [dict(threads=t, bytes=gib, rng="xoshiro", prefault=p, pages="4k", passes=n, phase="fill", wall_s=w)
                for t, p, n, w in [(1, 1, 10, 1.0), (1, 1, 10, 1.2), (1, 0, 1, 0.31), (2, 1, 10, 0.55)]]
        metrics, points = spec.SUMMARIES["lab3.csv"](rows)
        self.assertAlmostEqual(metrics["lab3_first_touch_s_gib"], 0.31 - 0.11)
        self.assertAlmostEqual(metrics["lab3_speedup_2"], 1.1 / 0.55)

    def test_no_ratio_of_nothing(self):
        """A time or rate of 0 gives no ratio, nor a point a log axis
        cannot draw."""
        self.assertIsNone(measures.ratio(0.0, 2.0))
        self.assertIsNone(measures.ratio(2.0, 0.0))
        self.assertEqual(measures.ratio(3.0, 2.0), 1.5)
        rows = [dict(experiment="sweep", lines_per_lock=1, flush=f, wall_s=w) for f, w in [(0, 0.5), (1, 0.0)]]
        self.assertEqual(spec.SUMMARIES["lab2.csv"](rows), ({"lab2_fflush_k1_x": None}, {"lab2-fflush": []}))


class Figures(unittest.TestCase):
    def test_the_rest_is_a_group_of_its_own(self):
        """With more categories than drawn by name, the rest are one box,
        which a category named like it does not join or replace."""
        with tempfile.TemporaryDirectory() as out:
            os.mkdir(os.path.join(out, "plot"))
            names = [f"fs{i}" for i in range(10)] + ["4 other file systems"]
            with open(os.path.join(out, "plot", "f.csv"), "w") as f:
                f.write("sub,fs,iops\n" + "".join(f"{i:04x}aa,{n},{i + 1}\n" for i, n in enumerate(names)))
            self.assertEqual(plotdata.categories(out, "f", lambda r: r["fs"], "iops", top=8,
                                                 other="other file systems"), 8)
            with open(os.path.join(out, "plot", "f-boxes.dat")) as f:
                boxes = list(csv.DictReader(f))
            with open(os.path.join(out, "plot", "f-points.dat")) as f:
                points = list(csv.DictReader(f))
            self.assertEqual(sum(int(b["n"]) for b in boxes), 11)
            self.assertEqual(len(points), 11)
            self.assertEqual((boxes[-1]["label"], boxes[-1]["n"]), ("4 other file systems", "4"))


class Copies(unittest.TestCase):
    HEAD = ("experiment,lines_per_lock,flush,lock,sync,trial,writer,lines_written,wall_s,"
            "lines_found,lost_lines\n")

    def merge_two(self, a, b):
        """Merges two submissions whose lab2.csv bodies are a and b; copies.csv's rows."""
        machine = b"cpu: x\ncores: 2\nkernel: k\nscratch_dir_fs: ext4\n"
        with tempfile.TemporaryDirectory() as tmp:
            subs = os.path.join(tmp, "subs")
            os.mkdir(subs)
            for name, body in (("alice", a), ("bob", b)):
                with open(os.path.join(subs, name + ".tar.gz"), "wb") as out:
                    out.write(tar_gz([regular("iolab-handin/data/machine.txt", machine),
                                      regular("iolab-handin/data/lab2.csv", (self.HEAD + body).encode())]))
            merge.merge(subs, os.path.join(tmp, "out"), jobs=1, log=lambda line: None)
            with open(os.path.join(tmp, "out", "copies.csv")) as f:
                return [line.split(",", 2)[2].strip() for line in f.readlines()[1:]]

    def rows(self, walls):
        return "".join(f"sweep,1,1,flock,none,{i // 2 + 1},{'AB'[i % 2]},100,{w},100,0\n"
                       for i, w in enumerate(walls))

    def test_identical_and_shared_runs(self):
        walls = [f"0.0{4321 + 7 * i}" for i in range(8)]
        self.assertEqual(self.merge_two(self.rows(walls), self.rows(walls)), ["lab2.csv,the same bytes"])
        # one row changed: five timings in a row are still the other's
        other = walls[:7] + ["0.051234"]
        self.assertEqual(self.merge_two(self.rows(walls), self.rows(other)),
                         ["lab2.csv,5 timings in a row the same"])
        # honest machines: timings at the clock's resolution may match, long ones not
        short = ["0.000003"] * 8
        self.assertEqual(self.merge_two(self.rows(short), self.rows(short[:7] + ["0.000004"])), [])
        self.assertEqual(self.merge_two(self.rows(walls), self.rows(walls[::-1])), [])


class Runs(unittest.TestCase):
    def test_tiny_and_busy_runs_left_out_saying_so(self):
        machine = b"cpu: x\ncores: 2\nkernel: k\nscratch_dir_fs: ext4\n"
        loads = {"tiny": b"scale: tiny\nverdict: quiet\n", "busy": b"scale: quick\nverdict: busy noisy\n",
                 "quiet": b"scale: quick\nverdict: short\n", "old": None}
        with tempfile.TemporaryDirectory() as tmp:
            subs = os.path.join(tmp, "subs")
            os.mkdir(subs)
            for i, (name, load) in enumerate(loads.items()):
                rows = Copies.HEAD + Copies().rows([f"0.0{1000 * i + 4321 + 7 * j}" for j in range(8)])
                members = [regular("iolab-handin/data/machine.txt", machine),
                           regular("iolab-handin/data/lab2.csv", rows.encode())]
                if load:
                    members.append(regular("iolab-handin/data/lab2-load.txt", load))
                with open(os.path.join(subs, name + ".tar.gz"), "wb") as out:
                    out.write(tar_gz(members))
            logged = []
            counts = merge.merge(subs, os.path.join(tmp, "out"), jobs=1, log=logged.append)
            self.assertEqual(counts["runs"], {merge.TINY: 1, merge.BUSY: 1})
            self.assertEqual(counts["merged"], 4)
            with open(os.path.join(tmp, "out", "lab2.csv")) as f:
                self.assertEqual(len({row["sub"] for row in csv.DictReader(f)}), 2)	# quiet and old
            with open(os.path.join(tmp, "out", "left-out.csv")) as f:
                reasons = sorted(row["reason"] for row in csv.DictReader(f) if row["file"] == "lab2.csv")
            self.assertEqual(reasons, sorted([merge.TINY, merge.BUSY]))
            self.assertEqual(len([line for line in logged if line.startswith("left out of the class figures")]), 2)
            self.assertTrue(any(line.startswith("left out of the class figures, tiny.tar.gz") and
                                line.endswith(merge.TINY) for line in logged), logged)


class Percentiles(unittest.TestCase):
    def test_percentile_and_words(self):
        self.assertEqual(standing.percentile(5, [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]), 45.0)
        self.assertEqual(standing.percentile(3, [3, 3, 3, 3]), 50.0)
        self.assertEqual([standing.ordinal(n) for n in (1, 2, 3, 4, 11, 12, 13, 21, 22, 61, 99)],
                         ["1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd",
                          "61st", "99th"])
        self.assertEqual(standing.show(14123.0, "si"), "14.1k")
        self.assertEqual(standing.show(9800.0, "si"), "9.8k")
        self.assertEqual(standing.show(950.0, "si"), "950")
        self.assertEqual(standing.show(2.345, "x"), "2.35x")

    def test_ids(self):
        key = bytes(32)
        a = merge.anonymous_id(key, "alice.tar.gz")
        self.assertEqual(a, merge.anonymous_id(key, "alice.tar.gz"))
        self.assertNotEqual(a, merge.anonymous_id(bytes([1]) + bytes(31), "alice.tar.gz"))
        self.assertRegex(a, "^[0-9a-f]{12}$")


if __name__ == "__main__":
    unittest.main()
