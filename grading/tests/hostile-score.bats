#!/usr/bin/env bats
# The grader's own integrity against hostile submissions: a score is a
# function of the kit's checks only and never above its maximum, every way
# a grading ends writes a valid results.json, quoted text is short and
# cannot fake a line, a grading's time is bounded and what it finished is
# kept, and one grading's leftovers never break the next. Cheap: Lab 1 at
# tiny scale, graded with --only where the test allows. CI runs it with
# bubblewrap and with bwrap hidden from PATH.

load ../../tests/helpers
load grading

teardown() {
	[ -z "${REFUSE_DIR:-}" ] || rm -rf "$REFUSE_DIR"
}

# Students' code runs only as root or in bubblewrap; can_grade says why
# not.
can_grade() {
	[ "$(id -u)" -eq 0 ] || bwrap_starts --unshare-all
}

need_grading() {
	local why
	why=$(can_grade) || skip "the grader runs students' code only as root or in bubblewrap: not root, and $why"
}

# The reference with Lab 1 done, and the gradings the tests read.
setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	mkdir subs batch grades
	reference_kit 1
	variant reference
	can_grade >/dev/null || return 0

	# A batch: bob/ (a labs.txt naming Lab 1 49 times, a lab the kit
	# lacks and garbage) beside alice.tar.gz (not a tarball), over the
	# reports of an earlier batch that must not survive.
	cp -R subs/reference batch/bob
	{ printf '1,%.0s' $(seq 48); printf '1,7,x\n'; } >batch/bob/labs.txt
	head -c 3000 /dev/urandom >batch/alice.tar.gz
	echo '{"score": 999, "tests": []}' >grades/alice.json
	echo 'Score: 999/1' >grades/alice.txt
	echo '{"score": 999, "tests": []}' >grades/bob.json
	# Beside them, entries a batch must leave out, none graded (so free
	# here): links to a genuine handin (it would score in another's name),
	# names that are no uid (a spreadsheet formula, a line break, a comma
	# and a quote, a name that is only .tar.gz), names differing in case.
	ln -s alice.tar.gz batch/carol.tar.gz
	ln -s ../subs/reference batch/mallory
	mkdir batch/'=HYPERLINK("x.example";"a")' batch/'@SUM(1)' batch/$'eve\nScore: 999' \
		batch/'a,"b' batch/Dave batch/DAVE
	cp batch/alice.tar.gz batch/'+1.tar.gz'
	cp batch/alice.tar.gz batch/.tar.gz
	cp batch/alice.tar.gz batch/dave.tar.gz
	"$ROOT/grade.sh" --batch batch -j 2 --out grades >batch.log 2>&1

	# The hostile writer, graded twice with one seed and once without.
	variant nester
	cp "$ROOT/grading/tests/fixtures/hostile-score/nester.c" subs/nester/labs/1-interleave/writer.c
	local n
	for n in 1 2; do
		"$ROOT/grade.sh" --seed 42 --json grades/nester-$n.json --only 'writer:' subs/nester >grades/nester-$n.txt 2>&1
	done
	"$ROOT/grade.sh" --json grades/nester-3.json --only 'writer:' subs/nester >grades/nester-3.txt 2>&1
	# The next grading (the same uid slot, when root) after the nested trees.
	"$ROOT/grade.sh" --json grades/after-nester.json --only 'writer:' subs/reference >grades/after-nester.txt 2>&1
}

# report_agrees NAME: grades/NAME.json and grades/NAME.txt agree, and the
# score is at most the maximum, every test's too.
report_agrees() {
	python3 - "$BATS_FILE_TMPDIR/grades/$1.json" "$BATS_FILE_TMPDIR/grades/$1.txt" <<-'PY'
	import json, re, sys
	r = json.load(open(sys.argv[1]))
	score, most = map(int, re.search(r"^Score: (\d+)/(\d+)$", open(sys.argv[2]).read(), re.M).groups())
	assert r["score"] == score == sum(t["score"] for t in r["tests"]), (r["score"], score)
	assert most == r["extra_data"]["max_score"] == sum(t["max_score"] for t in r["tests"]), most
	assert score <= most and all(0 <= t["score"] <= t["max_score"] for t in r["tests"]), r
	assert len({t["name"] for t in r["tests"]}) == len(r["tests"]), "a check graded twice"
	PY
}

@test "labs.txt naming a lab 49 times, a lab the kit lacks and garbage: each lab once, the kit's maximum, a note each" {
	need_grading
	cd "$BATS_FILE_TMPDIR" || return 1
	cat batch.log >&2
	[ "$(sed -n 's/^Score: //p' grades/bob.txt)" = "$(lab_max 1)/$(lab_max 1)" ]
	grep -qx 'Note: labs.txt: lab 1 named again: graded once' grades/bob.txt
	grep -qx 'Note: labs.txt: this course has no lab 7: ignored' grades/bob.txt
	grep -qx "Note: labs.txt: 'x' is not a lab number: ignored" grades/bob.txt
	[ "$(grep -c '^lab1: build writer: ' grades/bob.txt)" -eq 1 ]
	report_agrees bob
}

@test "--batch: alice.tar.gz and bob/ each get their own report and row; no earlier report survives" {
	need_grading
	cd "$BATS_FILE_TMPDIR" || return 1
	! grep -q 'Score: 999\|"score": 999' grades/alice.txt grades/alice.json grades/bob.json
	grep -q 'not a readable .tar.gz' grades/alice.txt
	[ ! -e grades/alice.txt.tmp ] && [ ! -e grades/bob.json.tmp ]
	# class.csv: max_score is each grading's own; an ungraded one gets the batch's (every lab)
	python3 - grades/class.csv "$(lab_max 1)" "$("$ROOT/grade.sh" --list | awk -F'\t' '{ s += $2 } END { print s }')" <<-'PY'
	import csv, sys
	rows = {r["submission"]: r for r in csv.DictReader(open(sys.argv[1]))}
	assert sorted(rows) == ["alice", "bob"], sorted(rows)
	assert (rows["bob"]["score"], rows["bob"]["max_score"]) == (sys.argv[2], sys.argv[2]), rows["bob"]
	assert (rows["alice"]["score"], rows["alice"]["max_score"]) == ("0", sys.argv[3]), rows["alice"]
	PY
}

@test "--batch: links, names that are no uid (formulas, line breaks, quotes) and names differing in case are left out, each said" {
	need_grading
	cd "$BATS_FILE_TMPDIR" || return 1
	# only alice's and bob's reports, rows and uids
	[ -z "$(find grades -maxdepth 1 \( -name 'carol*' -o -name 'mallory*' -o -name '[=@+a]*[,="]*' -o -name 'eve*' \
		-o -iname 'dave*' -o -name '.*' \) -print)" ]
	python3 - grades/class.csv grades/pl-scores.csv <<-'PY'
	import csv, sys
	assert [r["submission"] for r in csv.DictReader(open(sys.argv[1]))] == ["alice", "bob"]
	assert [r["uid"] for r in csv.DictReader(open(sys.argv[2]))] == ["alice", "bob"]
	PY
	grep -qx "grade.sh: --batch: 'carol.tar.gz': a symbolic link: left out (copy the handin itself into the batch)" batch.log
	grep -qx "grade.sh: --batch: 'mallory': a symbolic link: left out (copy the handin itself into the batch)" batch.log
	[ "$(grep -c ": not a uid (at most 128 letters, digits, _ . @ + -, not first = + - @ .): left out, rename it$" batch.log)" -eq 6 ]
	grep -qF "grade.sh: --batch: 'eve\\nScore: 999': not a uid" batch.log
	grep -q '^grade.sh: --batch: DAVE and Dave and dave differ only in case: none graded' batch.log
	! grep -q '^Score: 999' batch.log
}

@test "a CSV naming a column twice scores no data check (make class refuses it); a header of 99,990 columns is refused in moments" {
	need_grading
	cd "$BATS_FILE_TMPDIR" || return 1
	local v
	# twice: wall_s again at the end (the readers kept the first, or the
	# last); case: Wall_s, not the column; wide: 99,990 distinct columns and
	# one row (a list.count() per field had taken 35 s, the check's limit)
	for v in twice case wide; do
		variant "csv-$v"
	done
	python3 - subs/csv-twice/data/lab1.csv subs/csv-case/data/lab1.csv subs/csv-wide/data/lab1.csv <<-'PY'
	import sys
	twice, case, wide = sys.argv[1:]
	lines = open(twice).read().splitlines()
	with open(twice, "w") as f:
	    f.write("\n".join([lines[0] + ",wall_s"] + [l + ",0.5" for l in lines[1:]]) + "\n")
	with open(case, "w") as f:
	    f.write("\n".join([lines[0].replace("wall_s", "Wall_s")] + lines[1:]) + "\n")
	with open(wide, "w") as f:
	    n = 99990 - lines[0].count(",") - 1
	    f.write(lines[0] + "".join(f",c{i}" for i in range(n)) + "\n" + lines[1] + ",1" * n + "\n")
	PY
	for v in twice case wide; do
		"$ROOT/grade.sh" --json "grades/csv-$v.json" --only 'data/lab1.csv' "subs/csv-$v" >"grades/csv-$v.txt" 2>&1
		report_agrees "csv-$v"
		cat "grades/csv-$v.txt" >&2
	done
	[ "$(grep -c '^lab1: data/lab1.csv.*: FAIL 0/' grades/csv-twice.txt)" -eq 3 ]
	[ "$(grep -c '^    data/lab1.csv: a column named twice: wall_s$' grades/csv-twice.txt)" -eq 3 ]
	[ "$(grep -c '^lab1: data/lab1.csv.*: FAIL 0/' grades/csv-case.txt)" -eq 3 ]
	grep -qx '    data/lab1.csv: no column wall_s' grades/csv-case.txt
	# wide: refused (one row is not the lab's), each check in seconds, not at its limit
	! grep -q 'ran out of time' grades/csv-wide.txt
	grep 'data/lab1.csv has the declared columns' grades/csv-wide.txt | grep -Eq '\(([0-9]|1[0-9])\.[0-9]s\)$'
}

@test "a name holding a line break and 'Score: 999/999' (a folder's link or pipe, a tar member, the submission's own path): no line of the report or results.json reads as the grader's" {
	need_grading
	cd "$BATS_FILE_TMPDIR" || return 1
	local fake=$'\nScore: 999' v
	mkdir -p "inject/link/x$fake" "inject/pipe/labs/y$fake" "inject/s$fake"
	ln -s /etc/passwd "inject/link/x$fake/999"
	mkfifo "inject/pipe/labs/y$fake/999"
	cp -R subs/reference/. "inject/s$fake/"
	python3 - inject/member.tar.gz <<-'PY'
	import io, sys, tarfile
	with tarfile.open(sys.argv[1], "w:gz") as t:
	    m = tarfile.TarInfo("iolab-handin/z\nScore: 999/999")
	    m.type, m.linkname = tarfile.SYMTYPE, "/etc/passwd"
	    t.addfile(m)
	PY
	for v in link pipe member.tar.gz "s$fake"; do
		"$ROOT/grade.sh" --json inject/r.json --only 'data/machine.txt' "inject/$v" >inject/r.txt 2>&1 || true
		cat inject/r.txt >&2
		! grep -q '^Score: 999' inject/r.txt
		python3 -c 'import json, sys; out = json.load(open(sys.argv[1]))["output"]; assert not any(
			line.startswith("Score: 999") for line in out.splitlines()), out' inject/r.json
	done
	grep -qx 'Score: 1/1' inject/r.txt       # the folder named s\nScore: 999 was graded
	grep -qF "Grading inject/s\\nScore: 999" inject/r.txt
}

@test "CSV values a check divides by or squares (Lab 3's passes 0, Lab 5's rates of 1e200 and 1e-300): FAIL saying why, never 'the grader broke'" {
	need_grading
	cd "$BATS_FILE_TMPDIR" || return 1
	local v
	for v in zero huge tiny; do
		variant "arith-$v"
		python3 - "subs/arith-$v" "$v" "$ROOT" <<-'PY'
		import sys
		sub, v, root = sys.argv[1:]
		sys.path.insert(0, root)
		from common import columns
		decl = columns.declared(root)
		rate = {"zero": "1", "huge": "1e200", "tiny": "1e-300"}[v]
		rows = {
		    "lab3.csv": [dict(trial="1", threads=t, bytes="4096", files="1", prefault="1", fsync="0", wall_s="1",
		                      cpu_s="1", mib_s="1", faults="0", passes="0" if v == "zero" else "1", rng=rng,
		                      copy="memcpy", phase="fill", pages="4k")
		                 for rng, t in (("xoshiro", "1"), ("rand", "1"), ("rand", "2"))],
		    "lab5.csv": [dict(experiment="read-size", series="warm", op="read", pattern="seq", io_bytes="4096",
		                      stride_bytes="", file_bytes="", direct="0", cold="0", sync="", seed="1", trial=str(t),
		                      ios="10", bytes="40960", wall_s=f"1.{t}", cpu_s="1", bytes_per_ns=rate, mib_s="1",
		                      iops="1", lat_p50_us="1", lat_p99_us="1", cached_pct="0", median_bytes_per_ns=rate,
		                      mean_bytes_per_ns="1", stddev_bytes_per_ns="0", ci95_bytes_per_ns="0")
		                 for t in (1, 2, 3)],
		}
		for name, rs in rows.items():
		    names = [c.name for c in decl[name][1]]
		    with open(f"{sub}/data/{name}", "w") as f:
		        f.write(",".join(names) + "\n" + "".join(",".join(r.get(n, "1") for n in names) + "\n" for r in rs))
		for lab in (3, 5):
		    with open(f"{sub}/data/lab{lab}-load.txt", "w") as f:
		        f.write("scale: quick\nverdict: quiet\n")
		PY
		"$ROOT/grade.sh" --json "grades/arith-$v.json" --labs 3,5 --only 'data/lab' "subs/arith-$v" \
			>"grades/arith-$v.txt" 2>&1
		cat "grades/arith-$v.txt" >&2
		report_agrees "arith-$v"
		! grep -q 'the grader broke' "grades/arith-$v.txt"
	done
	grep -qx '    data/lab3.csv line 2: passes 0: a fill makes one pass or more' grades/arith-zero.txt
	grep -qx '    data/lab5.csv line 2: bytes_per_ns 1e+200 is not bytes / wall_s / 1e9 = 3.72364e-05' grades/arith-huge.txt
	grep -qx '    data/lab5.csv line 2: bytes_per_ns 1e-300 is not bytes / wall_s / 1e9 = 3.72364e-05' grades/arith-tiny.txt
}

@test "--batch --out that students' uids could write (0777, 1777, 0775, 0722) or the batch itself: refused in one line, exit 2; the grades made o-rwx as root" {
	need_grading
	cd "$BATS_FILE_TMPDIR" || return 1
	# alice.tar.gz, not a tarball: a grading refused in moments
	mkdir -p outs/batch
	head -c 100 /dev/urandom >outs/batch/alice.tar.gz
	local mode
	for mode in 777 1777 775 722; do
		rm -rf "outs/o$mode" && mkdir "outs/o$mode" && chmod "$mode" "outs/o$mode"
		run "$ROOT/grade.sh" --batch outs/batch --labs 1 --out "outs/o$mode"
		echo "$output"
		[ "$status" -eq 2 ]
		[[ ${lines[0]} == "grade.sh: --out: outs/o$mode is writable by other users (mode $mode): students' programs run as other users; name a directory of your own" ]]
		[ -z "$(ls -A "outs/o$mode")" ]
	done
	run "$ROOT/grade.sh" --batch outs/batch --labs 1 --out outs/batch
	[ "$status" -eq 2 ]
	[[ ${lines[0]} == "grade.sh: --out: outs/batch is outs/batch or inside it: the grades go elsewhere" ]]
	# a directory of the instructor's that others may read: graded into, made unreadable to them
	mkdir -m 755 outs/mine
	"$ROOT/grade.sh" --batch outs/batch --labs 1 --out outs/mine >outs/mine.log 2>&1 || true
	cat outs/mine.log
	[ "$(id -u)" -ne 0 ] || [ "$(stat -c %a outs/mine)" = 750 ]
	[ -s outs/mine/alice.json ] && [ -s outs/mine/class.csv ]
}

@test "every grading of this file: score <= maximum, and the report, results.json and its tests agree" {
	need_grading
	local name n=0
	for name in bob nester-1 nester-2 nester-3 after-nester; do
		report_agrees "$name"
		n=$((n + 1))
	done
	[ "$n" -eq 5 ]
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["score"] == 0 and r["tests"] == [], r' \
		"$BATS_FILE_TMPDIR/grades/alice.json"
}

@test "a program's U+2028, U+2029, U+0085, bidi controls and ESC reach the report escaped, never raw" {
	need_grading
	cd "$BATS_FILE_TMPDIR" || return 1
	grep -F 'writer: exit status 1 (args: ' grades/nester-1.txt | grep -qF '\u2028Score: 999/1\u2029\x85\u202eevil\u2066 \x1b[2J)'
	! LC_ALL=C grep -q $'\xe2\x80[\xa8\xa9\xae]\|\xc2\x85\|\xe2\x81\xa6\|\x1b' grades/nester-1.txt grades/nester-1.json
	[ "$(grep -c '^Score: ' grades/nester-1.txt)" -eq 1 ]
}

@test "--seed N replays a grading's draws; without it, a seed is drawn, printed and in results.json" {
	need_grading
	cd "$BATS_FILE_TMPDIR" || return 1
	grep -qx 'Seed: 42' grades/nester-1.txt
	a=$(grep '^    reproduce: bin/writer -c ' grades/nester-1.txt)
	[ -n "$a" ] && [ "$a" = "$(grep '^    reproduce: bin/writer -c ' grades/nester-2.txt)" ]
	seed=$(sed -n 's/^Seed: \([0-9]*\)$/\1/p' grades/nester-3.txt)
	[ -n "$seed" ]
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["extra_data"]["seed"] == int(sys.argv[2]), r' \
		grades/nester-3.json "$seed"
	# replayed: that seed draws nester-3's inputs again
	"$ROOT/grade.sh" --seed "$seed" --only 'writer:' subs/nester >again.txt 2>&1
	[ "$(grep '^    reproduce: bin/writer -c ' again.txt)" = "$(grep '^    reproduce: bin/writer -c ' grades/nester-3.txt)" ]
}

@test "3,000 nested directories in the run directory and /tmp: the grading ends with a score, the next one grades" {
	need_grading
	cd "$BATS_FILE_TMPDIR" || return 1
	! grep -q 'Traceback\|RecursionError' grades/nester-1.txt grades/after-nester.txt
	grep -q '^lab1: writer: line counts, append and overwrite modes: FAIL 0/3' grades/nester-1.txt
	grep -q '^lab1: writer: line counts, append and overwrite modes: PASS 3/3' grades/after-nester.txt
	[ -z "$(find /tmp -maxdepth 1 -name 'iolab-nest-*' -print -quit)" ]
}

@test "a 3,000,000-character identifier: the build's message and results.json stay small" {
	need_grading
	cp -R "$BATS_FILE_TMPDIR/subs/reference" long-name
	python3 -c 'import sys; open(sys.argv[1], "a").write("int f(void) { return " + "a" * 3000000 + "; }\n")' \
		long-name/labs/1-interleave/runs.c
	run "$ROOT/grade.sh" --json long.json --only 'no check has this name' long-name
	[ "$status" -eq 0 ]
	grep -q '^lab1: build runs: FAIL 0/1' <<<"$output"
	[ "${#output}" -lt 20000 ]
	[ "$(stat -c %s long.json)" -lt 30000 ]
	grep -q 'more characters)' long.json
}

@test "150 MB of errors through 60 macro levels from a 110 KB source: the grader stays under 200 MB, quoting the first and last lines" {
	# the whole output, read at once, took the grader to 619 MiB
	need_grading
	cp -R "$BATS_FILE_TMPDIR/subs/reference" flood
	python3 - flood/labs/1-interleave/runs.c <<-'PY'
	import sys
	pad = "/*" + "x" * 1500 + "*/"      # every note quotes its macro's line
	lines = ["#define M0(x) ((x)->p) " + pad] + [f"#define M{k}(x) M{k - 1}(x) {pad}" for k in range(1, 60)]
	lines.append("int f(void) { return " + "+".join(["M59(0)"] * 1400) + "; }")
	# a file outside the submission, whose lines must not be quoted, in the output's end
	lines.append('#include "/usr/lib/os-release"')
	open(sys.argv[1], "a").write("\n".join(lines) + "\n")
	PY
	grader_peak flood.mib --json flood.json --only 'no check has this name' flood >flood.txt 2>&1
	echo "the grader's peak: $(cat flood.mib) MiB"
	[ "$(cat flood.mib)" -lt 200 ]
	grep -q '^lab1: build runs: FAIL 0/1' flood.txt
	python3 - flood.json <<-'PY'
	import json, re, sys
	out = next(t["output"] for t in json.load(open(sys.argv[1]))["tests"] if t["name"] == "lab1: build runs")
	lines = out.splitlines()
	print("\n".join(line[:100] for line in lines))
	assert lines[0] == "make bin/runs failed:" and lines[-1] == "reproduce: make bin/runs", lines
	assert lines[1] == "  labs/1-interleave/runs.c: In function 'f':", lines[1]
	assert re.search(r"^  \(the middle not shown: the whole output is \d{9} bytes\)$", out, re.M), out
	assert "  (a message about a file outside your submission, not shown)" in lines, out
	assert "NAME=" not in out and "os-release" not in out, out
	assert re.fullmatch(r"  make: \*\*\* \[Makefile:\d+: bin/runs\] Error 1", lines[-2]), lines[-2]
	assert len(lines) <= 25 and len(out) < 20000, len(out)
	PY
}

@test "a saver writing 16 MiB in one call, or 7 of 4 MiB: Lab 6's recorder refuses them, the grader stays under 200 MB" {
	# fsrecord's 16 MiB of each write, read by a regular expression: 2.4 GB
	# and 29 CPU-s; 7 calls of 4 MiB, read by slices: 222 MB
	need_grading
	command -v strace >/dev/null || skip "Lab 6's recorder needs strace"
	local sub
	for sub in one seven; do
		mkdir -p "$sub/labs/6-fsync"
		[ "$sub" = one ] || printf '#define CALLS 7\n#define EACH ((4 << 20) - 1)\n' >"$sub/labs/6-fsync/saver.c"
		cat "$ROOT/grading/tests/fixtures/hostile/bigsaver.c" >>"$sub/labs/6-fsync/saver.c"
		grader_peak "$sub.mib" --labs 6 --only 'no broken crash state' "$sub" >"$sub.txt" 2>&1
		echo "$sub: the grader's peak: $(cat "$sub.mib") MiB"
		grep -A3 ': FAIL ' "$sub.txt"
		[ "$(cat "$sub.mib")" -lt 200 ]
		grep -q '^lab6: saver -s safe: no broken crash state under any model: FAIL 0/5' "$sub.txt"
	done
	grep -q "the recorder: write of more than 4 MiB in one call" one.txt
	grep -q "the recorder: your saver's calls make a log of 1[0-9][0-9] MiB, more than the 32 MiB" seven.txt
}

@test "a tar member 1,200 directories deep: refused in one line, a results.json with 0" {
	python3 - <<-'PY'
	import io, tarfile
	with tarfile.open("deep.tar.gz", "w:gz") as t:
	    info = tarfile.TarInfo("iolab-handin/" + "d/" * 1200 + "f")
	    info.size = 1
	    t.addfile(info, io.BytesIO(b"x"))
	PY
	run "$ROOT/grade.sh" --json deep.json deep.tar.gz
	[ "$status" -eq 1 ]
	grep -q '^grade.sh: deep.tar.gz: a path 1202 directories deep (at most 16): ' <<<"$output"
	! grep -q Traceback <<<"$output"
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["score"] == 0 and "1202 directories deep" in r["output"], r' deep.json
}

@test "a handin over the unpack limit: the refusal names its largest files" {
	python3 - <<-'PY'
	import tarfile
	with tarfile.open("big.tar.gz", "w:gz", compresslevel=1) as t:
	    for name, mib in (("small", 1), ("huge", 120), ("large", 90)):
	        info = tarfile.TarInfo(f"iolab-handin/data/{name}.csv")
	        info.size = mib << 20
	        t.addfile(info, open("/dev/zero", "rb"))
	PY
	run "$ROOT/grade.sh" --json big.json big.tar.gz
	[ "$status" -eq 1 ]
	grep -q "unpacks to more than 200 MiB; its largest files: 'iolab-handin/data/huge.csv' (120 MiB), 'iolab-handin/data/large.csv' (90 MiB)" <<<"$output"
}

@test "a file name that is not UTF-8, with ESC and U+2028: escaped in the refusal, no crash in any locale" {
	cp -R "$BATS_FILE_TMPDIR/subs/reference" sub
	ln -s /etc/passwd "sub/$(printf 'l\xfe\xe2\x80\xa8Score: 999\x1b[2J')"
	for locale in C.UTF-8 en_US.UTF-8 C; do
		run env LC_ALL=$locale LANG=$locale "$ROOT/grade.sh" --json odd.json sub
		[ "$status" -eq 1 ]
		grep -qF 'links or special files are not accepted: l\xfe\u2028Score: 999\x1b[2J' <<<"$output"
		! LC_ALL=C grep -q $'\xfe\|\x1b' <<<"$output"
		python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["score"] == 0' odd.json
	done
}

@test "--budget: a grading out of time keeps the points of the checks it finished and names those that did not run" {
	need_grading
	start=$(date +%s)
	run "$ROOT/grade.sh" --budget 12 --json b.json --only 'runs: speed' --repeat 40 "$BATS_FILE_TMPDIR/subs/reference"
	echo "$output"
	[ "$status" -eq 0 ]
	[ $(($(date +%s) - start)) -lt 40 ]
	grep -q ': NOT RUN 0/2$' <<<"$output"
	grep -q "^Note: the grading's time (12 s) ran out: [0-9]* check(s) did not finish and scored 0: " <<<"$output"
	python3 - b.json "$output" <<-'PY'
	import json, re, sys
	r = json.load(open(sys.argv[1]))
	passed = sum(int(m) for m in re.findall(r": PASS (\d+)/\d+ ", sys.argv[2]))
	assert passed >= 1 and r["score"] == passed == sum(t["score"] for t in r["tests"]), (passed, r["score"])
	# the build of runs, the one program the check runs, and 40 checks
	assert r["extra_data"]["max_score"] == 1 + 2 * 40 == sum(t["max_score"] for t in r["tests"]), r["extra_data"]
	assert any(t["output"].startswith("not run") for t in r["tests"])
	PY
}

@test "--budget: the checks that read only files run first, outside it: a grading out of time keeps every one" {
	need_grading
	# 3 s: the builds and a program check or two, not Lab 1's speed checks
	run "$ROOT/grade.sh" --budget 3 --json f.json --labs 1 "$BATS_FILE_TMPDIR/subs/reference"
	echo "$output"
	[ "$status" -eq 0 ]
	grep -q ': NOT RUN 0/[0-9]*$' <<<"$output"
	# the report's first lines are the file checks: data, columns, figures, answers, machine.txt
	[ "$(grep -E '^(lab1|all): ' <<<"$output" | head -6 | sed 's/: [A-Z]* .*//' | tr '\n' '|')" = \
		"lab1: data/lab1.csv: plausible values, 3+ real trials|lab1: data/lab1.csv: no loss in append mode, one writer's worth in overwrite|lab1: data/lab1.csv has the declared columns|lab1: figures: the kit's plot/lab1-*.gp draw your data|lab1: answers to Q1.x present (for the hand grader)|all: data/machine.txt describes the machine|" ]
	python3 - f.json <<-'PY'
	import json, sys
	r = json.load(open(sys.argv[1]))
	files = [t for t in r["tests"] if t["name"].startswith(("lab1: data/", "lab1: figures", "lab1: answers", "all: "))]
	assert len(files) == 6 and all(t["status"] == "passed" for t in files), files
	assert sum(t["max_score"] for t in files) == 8, files
	# results.json keeps the rubric's order: the builds first, numbered 1.1...
	assert r["tests"][0]["name"] == "lab1: build launch" and r["tests"][0]["number"] == "1.1", r["tests"][0]
	assert any(t["output"].startswith("not run") for t in r["tests"])
	PY
}

@test "a grading stopped by SIGTERM (Gradescope's timeout) writes what it finished" {
	need_grading
	# SIGTERM once the first check has passed, however loaded the machine.
	"$ROOT/grade.sh" --json t.json --only 'runs: speed' --repeat 40 "$BATS_FILE_TMPDIR/subs/reference" >t.txt 2>&1 &
	local pid=$! tries=0
	until grep -q ': PASS ' t.txt || [ $((tries += 1)) -gt 1200 ]; do sleep 0.1; done
	kill -TERM "$pid"
	wait "$pid" || true
	output=$(cat t.txt)
	echo "$output"
	grep -q '^Score: [1-9][0-9]*/81$' <<<"$output"	# the build of runs and 40 checks
	python3 - t.json <<-'PY'
	import json, sys
	r = json.load(open(sys.argv[1]))
	assert r["score"] >= 1 and r["score"] == sum(t["score"] for t in r["tests"]), r["score"]
	assert "was stopped" in r["output"] and sum(t["max_score"] for t in r["tests"]) == 81, r["output"]
	PY
}

@test "io_uring refused by the host: the check that needs it is skipped, its points left out of the maximum" {
	need_grading
	# Lab 5's iopattern alone (with its headers), graded on its --iodepth check.
	mkdir -p sub/labs/5-patterns
	cp "$ROOT/labs/5-patterns/iopattern.c" "$ROOT"/labs/5-patterns/*.h sub/labs/5-patterns/
	echo 5 >sub/labs.txt
	run python3 "$ROOT/labs/5-patterns/tests/deny-io-uring.py" EPERM "$ROOT/grade.sh" --json skip.json --only 'iodepth: N' sub
	echo "$output"
	[[ $output != "deny-io-uring.py: prctl"* ]] || skip "no seccomp filter here: $output"
	[ "$status" -eq 0 ]
	grep -q '^lab5: iopattern --iodepth: N requests in flight, same data: SKIP 0/3' <<<"$output"
	grep -q '^Note: 1 check(s) skipped, this machine cannot run them, 3 points left out of the maximum' <<<"$output"
	grep -qx 'Score: 1/1' <<<"$output"
	python3 - skip.json <<-'PY'
	import json, sys
	r = json.load(open(sys.argv[1]))
	t = next(t for t in r["tests"] if "iodepth" in t["name"])
	assert t["max_score"] == 0 and t["output"].startswith("SKIP: this machine refuses io_uring"), t
	assert r["extra_data"]["max_score"] == 1 and r["score"] == 1, r
	PY
	# where the host allows it, the same check runs and counts, in
	# bubblewrap; outside it the grader itself refuses io_uring
	run "$ROOT/grade.sh" --only 'iodepth: N' sub
	if [[ $output == *"Containment: bubblewrap"* ]]; then
		grep -qx 'Score: 4/4' <<<"$output"
	else
		grep -q '^lab5: iopattern --iodepth: N requests in flight, same data: SKIP 0/3' <<<"$output"
		grep -qx 'Score: 1/1' <<<"$output"
	fi
}

@test "--batch where the sandbox refuses (not root, no bubblewrap): one line, exit 1, no class.csv" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to run the grader as another user"
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	# The grader alone, readable by nobody, and a PATH without bwrap.
	REFUSE_DIR=$(mktemp -d /tmp/iolab-refuse.XXXXXX)
	chmod 755 "$REFUSE_DIR"
	cd "$REFUSE_DIR" || return 1
	mkdir -m 755 kit kit/bin subs out
	cp -R "$ROOT/grade.sh" "$ROOT/grading" "$ROOT/labs" "$ROOT/common" "$ROOT/handout.md" kit/
	py=/usr/bin/python3	# not a shim in root's home, which nobody cannot read
	[ -x "$py" ] || py=$(readlink -f "$(command -v python3)")
	ln -s "$py" kit/bin/python3
	ln -s "$(readlink -f "$(command -v dirname)")" kit/bin/dirname
	cp -R "$BATS_FILE_TMPDIR/subs/reference" subs/alice
	chmod -R a+rX kit subs
	chown nobody out
	run setpriv --reuid=nobody --regid="$(id -g nobody)" --clear-groups env PATH="$PWD/kit/bin" \
		kit/grade.sh --batch subs --out out/grades
	echo "$output"
	[ "$status" -eq 1 ]
	[ "${#lines[@]}" -eq 1 ]
	[[ $output == "grade.sh: --batch: will not run students' code here: "* ]]
	[ ! -e out/grades/class.csv ]
}

@test "make autograder GRADE_LABS=1,7: refused at build time, no zip" {
	run bash "$ROOT/grading/autograder/build.sh" -o ag.zip --labs 1,7
	[ "$status" -eq 2 ]
	[[ ${lines[0]} == "autograder: --labs: this kit has no lab 7 (it has "* ]]
	[ ! -e ag.zip ]
}

@test "run_autograder: IOLAB_LABS empty grades every lab of the course; a grading stopped at IOLAB_TIMEOUT keeps its result" {
	# A fake /autograder whose grade.sh records its arguments and, stopped
	# by SIGTERM, writes a partial results.json as the real one does.
	mkdir -p ag/source/labs/1-a ag/source/labs/3-b ag/source/labs/4-c ag/source/grading/lab1 ag/source/grading/lab3 ag/submission
	touch ag/source/grading/lab1/checks.py ag/source/grading/lab3/checks.py	# no grading/lab4/checks.py: not a lab of this kit
	cp "$ROOT/grading/autograder/run_autograder" ag/source/
	printf 'IOLAB_LABS=\nIOLAB_TIMEOUT=100\n' >ag/source/autograder.conf
	mkdir ag/submission/labs
	cat >ag/source/grade.sh <<-'SH'
	#!/usr/bin/env bash
	echo "$@" >"$AUTOGRADER_ROOT/args"
	trap 'echo "{\"score\": 7, \"output\": \"partial\", \"tests\": []}" >"$2"; exit 0' TERM
	[ -z "${STALL:-}" ] || { sleep 60 >/dev/null & wait; }
	echo "{\"score\": 9, \"tests\": []}" >"$2"
	SH
	chmod +x ag/source/grade.sh
	AUTOGRADER_ROOT="$PWD/ag" ag/source/run_autograder
	[[ $(cat ag/args) == "--json $PWD/ag/results/results.json --labs 1,3 --budget 70 $PWD/ag/submission" ]]
	grep -q '"score": 9' ag/results/results.json
	STALL=1 AUTOGRADER_ROOT="$PWD/ag" IOLAB_TIMEOUT=2 run ag/source/run_autograder
	[[ $output == *"grading was stopped at 2 s: results.json keeps the checks it finished"* ]]
	grep -q '"score": 7' ag/results/results.json
}
