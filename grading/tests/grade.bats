#!/usr/bin/env bats
# grade.sh and make handin: full marks for the reference, exactly the right
# points lost for each broken submission, and safe with hostile ones.

load ../../tests/helpers
load grading
GRADED_LAB=1

# Grading takes seconds per submission, so one batch run grades the
# reference and every broken copy of it, and the tests read its results.
setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	# A student's kit with every lab done at tiny scale.
	mkdir subs
	reference_kit $(cd "$ROOT/labs" && ls -d [0-9]-* | cut -c1)
	cp kit/iolab-handin.tar.gz reference.tar.gz
	# Every lab graded once, for the full-marks test (the labs the suites
	# share, where tests/run.sh gave them one kit: the same labs, run once).
	shared_reference reference || "$ROOT/grade.sh" --json reference.json reference.tar.gz >reference.txt 2>&1 || true
	cp reference.tar.gz subs/

	# Broken copies, as directories.
	local lab1=labs/1-interleave
	variant missing-csv
	rm subs/missing-csv/data/lab1.csv
	variant compile-error
	# a message of its own that would read as the report's lines
	printf '#pragma message "x\\nScore: 99/25\\nlab1: build runs: PASS"\nthis is not C\n' >>subs/compile-error/$lab1/runs.c
	variant infinite-loop
	sed -i 's/^\tiolab_init(argv\[0\], usage);/\tfor (volatile int spin = 0;; spin++)\n\t\t;\n&/' subs/infinite-loop/$lab1/writer.c
	variant wrong-runs
	sed -i 's/^\tst.start = st.lines;/\tst.start = st.lines - 1;/' subs/wrong-runs/$lab1/runs.c
	variant constant-data
	awk -F, -v OFS=, 'NR > 1 { $7 = "0.010000" } 1' unpacked/iolab-handin/data/lab1.csv >subs/constant-data/data/lab1.csv
	variant missing-answers
	sed -i '/^## Q1.3/,/^## Q1.4/{/^## Q1.4/!d}' subs/missing-answers/answers.md
	variant fork-bomb
	sed -i 's/^\tiolab_init(argv\[0\], usage);/\tfor (;;)\n\t\tfork();\n&/' subs/fork-bomb/$lab1/writer.c
	variant write-forever
	sed -i 's/i < o.lines; i++/o.lines > 0; i++/' subs/write-forever/$lab1/writer.c
	changed write-forever $lab1/writer.c
	variant tiny-scale
	sed -i 's/^scale: quick$/scale: tiny/' subs/tiny-scale/data/lab1-load.txt
	changed tiny-scale data/lab1-load.txt
	variant no-scale
	sed -i '/^scale: /d' subs/no-scale/data/lab1-load.txt
	changed no-scale data/lab1-load.txt

	# Lab 1 only, for the broken copies.
	"$ROOT/grade.sh" --batch subs -j 2 --labs 1 --out grades >batch.log 2>&1
}

# score NAME: "X/Y" from its last line (nothing unless X <= Y).
score() {
	local s
	s=$(sed -n 's/^Score: //p' "$BATS_FILE_TMPDIR/grades/$1.txt")
	within_max "$s" "$1" && echo "$s"
}

# The most Lab 1 can score: its checks and the machine description; with
# "all", the most the whole kit can score.
max_score() {
	if [ "${1:-}" = all ]; then
		"$ROOT/grade.sh" --list
	else
		"$ROOT/grade.sh" --list --labs 1
	fi | awk -F'\t' '{ s += $2 } END { print s }'
}

@test "make handin: packs sources, results, figures and answers under one directory" {
	run tar -tzf "$BATS_FILE_TMPDIR/reference.tar.gz"
	[[ $output == *"iolab-handin/labs/1-interleave/runs.c"* ]]
	[[ $output == *"iolab-handin/data/lab1.csv"* ]]
	[[ $output == *"iolab-handin/data/machine.txt"* ]]
	[[ $output == *"iolab-handin/plot/lab1-runs.png"* ]]
	[[ $output == *"iolab-handin/answers.md"* ]]
	[ -z "$(grep -v '^iolab-handin/' <<<"$output")" ]
	# every figure of every lab, and nothing from the scratch directory
	for gp in "$ROOT"/plot/lab*.gp; do
		[[ $output == *"iolab-handin/plot/$(basename "${gp%.gp}").png"* ]]
	done
	[[ $output != *scratch* ]]
}

@test "make handin: refuses, listing what is missing" {
	cp -R "$BATS_FILE_TMPDIR/kit" kit
	rm kit/answers.md kit/plot/lab1-time.png kit/iolab-handin.tar.gz
	run env LABS=1 bash kit/common/handin.sh
	[ "$status" -eq 1 ]
	[[ $output == *"answers.md"* ]]
	[[ $output == *"plot/lab1-time.png"* ]]
	[ ! -e kit/iolab-handin.tar.gz ]
}

@test "grade.sh: the reference submission scores full marks in every lab" {
	grep -A4 ': FAIL ' "$BATS_FILE_TMPDIR/reference.txt" >&2 || true
	[ "$(sed -n 's/^Score: //p' "$BATS_FILE_TMPDIR/reference.txt")" = "$(max_score all)/$(max_score all)" ]
	# and Lab 1 alone, in the batch
	[ "$(score reference)" = "$(max_score)/$(max_score)" ]
}

@test "grade.sh: data run at SCALE=tiny, or without its scale, costs the data's columns check, saying why" {
	[ "$(failed tiny-scale | tr '\n' '|')" = "data/lab1.csv has the declared columns|" ]
	grep -q "data/lab1.csv was run at SCALE=tiny, the tests' size (data/lab1-load.txt): its numbers answer no question; run make lab1 (SCALE=quick, the default) and hand in again" "$BATS_FILE_TMPDIR/grades/tiny-scale.txt"
	[ "$(score tiny-scale)" = "$(($(max_score) - 1))/$(max_score)" ]
	[ "$(failed no-scale | tr '\n' '|')" = "data/lab1.csv has the declared columns|" ]
	grep -q "data/lab1-load.txt does not say the scale data/lab1.csv was run at (quick or full): run make lab1, which writes it" "$BATS_FILE_TMPDIR/grades/no-scale.txt"
}

@test "grade.sh: a missing CSV costs the data checks and the figures drawn from it, nothing else" {
	[ "$(failed missing-csv | tr '\n' '|')" = "data/lab1.csv: plausible values, 3+ real trials|data/lab1.csv: no loss in append mode, one writer's worth in overwrite|data/lab1.csv has the declared columns|figures: the kit's plot/lab1-*.gp draw your data|" ]
	# the PNGs handed in are not what is graded: plot.sh finds no data/lab1.csv to draw from
	grep -q "plot/lab1-time.png: the kit's plot/lab1-time.gp drew no figure from your data (skip plot/lab1-time.png: no data/lab1.csv yet" "$BATS_FILE_TMPDIR/grades/missing-csv.txt"
	[ "$(score missing-csv)" = "$(($(max_score) - 7))/$(max_score)" ]
}

@test "grade.sh: a compile error costs the build and what needs that program" {
	[ "$(failed compile-error | tr '\n' '|')" = "build runs|runs: --csv and --summary-csv as the kit's on fixtures and a random file|runs: --expect exit codes|runs: speed within 3x the kit's, with the same summary|" ]
	[ "$(score compile-error)" = "$(($(max_score) - 8))/$(max_score)" ]
	grep -q "reproduce: make bin/runs" "$BATS_FILE_TMPDIR/grades/compile-error.txt"
	grep -q "this is not C" "$BATS_FILE_TMPDIR/grades/compile-error.txt"
	# the compiler's words are quoted, indented, in the report and in results.json
	! grep -qE '^(Score: 99|lab1: build runs: PASS)' "$BATS_FILE_TMPDIR/grades/compile-error.txt"
	python3 - "$BATS_FILE_TMPDIR/grades/compile-error.json" <<-'PY'
	import json, sys
	build, = [t for t in json.load(open(sys.argv[1]))["tests"] if t["name"] == "lab1: build runs"]
	lines = build["output"].splitlines()
	assert lines[0] == "make bin/runs failed:", lines
	assert any(line.startswith("  ") and "Score: 99/25" in line for line in lines), lines
	assert not any(line.startswith(("Score:", "lab1:")) for line in lines), lines
	PY
}

@test "grade.sh: an infinite loop fails its check and grading goes on" {
	[ "$(failed infinite-loop)" = "writer: line counts, append and overwrite modes" ]
	grep -q "writer did not finish in 10 s (killed)" "$BATS_FILE_TMPDIR/grades/infinite-loop.txt"
	[ "$(score infinite-loop)" = "$(($(max_score) - 3))/$(max_score)" ]
}

@test "grade.sh: a wrong run analyzer loses the runs check, with a diff" {
	[ "$(failed wrong-runs)" = "runs: --csv and --summary-csv as the kit's on fixtures and a random file" ]
	[ "$(score wrong-runs)" = "$(($(max_score) - 4))/$(max_score)" ]
}

@test "grade.sh: fabricated constant timings are caught" {
	[ "$(failed constant-data | tr '\n' '|')" = "data/lab1.csv: plausible values, 3+ real trials|data/lab1.csv: no loss in append mode, one writer's worth in overwrite|" ]
	grep -q "not measured" "$BATS_FILE_TMPDIR/grades/constant-data.txt"
}

@test "grade.sh: a missing answer costs no point: the answers row names it for the hand grader" {
	[ "$(failed missing-answers)" = "answers to Q1.x present (for the hand grader)" ]
	grep -q "^lab1: answers to Q1.x present (for the hand grader): FAIL 0/0" "$BATS_FILE_TMPDIR/grades/missing-answers.txt"
	grep -q "no answer under '## Q1.3'" "$BATS_FILE_TMPDIR/grades/missing-answers.txt"
	[ "$(score missing-answers)" = "$(max_score)/$(max_score)" ]
}

@test "grade.sh: a fork bomb and an endless writer are contained" {
	[ "$(failed fork-bomb)" = "writer: line counts, append and overwrite modes" ]
	[ "$(failed write-forever)" = "writer: line counts, append and overwrite modes" ]
	# nothing of them is left running
	! pgrep -f "iolab-grade.*/bin/writer"
	[ "$(score fork-bomb)" = "$(($(max_score) - 3))/$(max_score)" ]
}

# What a count of a fork bomb's tasks may read past the limit it is held
# to: ps reads /proc one task at a time, so a task that ends and one forked
# in its place during the read are both counted, and the launcher of the
# next run enters the uid by setuid, which no fork limit checks. Once (a
# CI rehearsal, 2026-11-24) the root test read 193 against 192.
NPROC_SLACK=8

# bomb_peak PEAK: the larger of PEAK, the most tasks the test's own look
# (ps, every 50 ms) saw, and the processes the grader's watchdog counted
# when it killed the bomb ("ran N processes at once", in bomb.txt): on a
# busy machine the bomb, killed within its first second, can end between
# two of the test's looks.
bomb_peak() {
	local counted
	counted=$(sed -n 's/.* ran \([0-9]*\) processes at once.*/\1/p' bomb.txt | sort -n | tail -1)
	counted=${counted:-0}
	echo $((counted > $1 ? counted : $1))
}

@test "grade.sh: as root, a fork bomb is held to its uid's process limit" {
	[ "$(id -u)" -eq 0 ] || skip "needs root: each grading runs students' programs as a uid of its own"
	local peak=0 n uids
	"$ROOT/grade.sh" --labs 1 --only writer "$BATS_FILE_TMPDIR/subs/fork-bomb" >bomb.txt 2>&1 &
	while kill -0 $! 2>/dev/null; do
		n=$(ps -eLo uid= | awk '$1 >= 1500000000 && $1 < 1500001000' | sort | uniq -c | sort -n | tail -1 | awk '{ print $1 }')
		[ "${n:-0}" -le "$peak" ] || peak=$n
		sleep 0.05
	done
	peak=$(bomb_peak "$peak")
	echo "the bomb's uid had $peak tasks at the peak"
	[ "$peak" -ge 100 ]	# the bomb did go off
	[ "$peak" -le $((192 + NPROC_SLACK)) ]	# sandbox.LIMIT_NPROC
	grep -q "writer: line counts, append and overwrite modes: FAIL" bomb.txt
}

@test "grade.sh, not root, in bubblewrap: a fork bomb is held to the sandbox's process limit" {
	local uid peak=0 n dir run=()
	why=$(bwrap_starts --unshare-all) || skip "needs bubblewrap, without which a user who is not root is refused: $why"
	if [ "$(id -u)" -eq 0 ]; then
		# the grader as nobody, on its own copy of the kit and the submission
		uid=65534
		dir=$(mktemp -d /tmp/iolab-notroot.XXXXXX)
		mkdir "$dir/kit" "$dir/tmp"
		(cd "$ROOT" && tar --exclude=./.git --exclude=./dist --exclude=./scratch -cf - .) | tar -xf - -C "$dir/kit"
		cp -R "$BATS_FILE_TMPDIR/subs/fork-bomb" "$dir/sub"
		chown -R "$uid:$uid" "$dir"
		chmod 755 "$dir"
		run=(setpriv --reuid="$uid" --regid="$uid" --clear-groups env HOME="$dir" TMPDIR="$dir/tmp"
			"$dir/kit/grade.sh" --labs 1 --only writer "$dir/sub")
		"${run[@]:0:4}" bwrap --ro-bind / / --unshare-all true 2>/dev/null ||
			{ rm -rf "$dir"; skip "bubblewrap cannot start for a user who is not root here"; }
	else
		uid=$(id -u)
		run=("$ROOT/grade.sh" --labs 1 --only writer "$BATS_FILE_TMPDIR/subs/fork-bomb")
	fi
	# The test's own bound, should the grader's fail: 600 processes of the user.
	prlimit --nproc=600:600 "${run[@]}" >bomb.txt 2>&1 &
	while kill -0 $! 2>/dev/null; do
		n=$(ps -eLo uid=,comm= | awk -v u="$uid" '$1 == u && $2 == "writer"' | wc -l)
		[ "$n" -le "$peak" ] || peak=$n
		sleep 0.05
	done
	[ -z "${dir:-}" ] || rm -rf "$dir"
	peak=$(bomb_peak "$peak")
	echo "the bomb had $peak tasks at the peak"
	cat bomb.txt
	[ "$peak" -ge 100 ]	# the bomb did go off
	[ "$peak" -le $((192 + NPROC_SLACK)) ]	# sandbox.LIMIT_NPROC
	grep -q "writer: line counts, append and overwrite modes: FAIL" bomb.txt
	[ "$(ps -eLo uid=,comm= | awk -v u="$uid" '$1 == u && $2 == "writer"' | wc -l)" -eq 0 ]
}

@test "grade.sh: the report says which containment was used" {
	grep -q '^Containment: ' "$BATS_FILE_TMPDIR/grades/reference.txt"
	if [ "$(id -u)" -eq 0 ]; then
		grep -q '^Containment: .*own uid 15' "$BATS_FILE_TMPDIR/grades/reference.txt"
	fi
	if bwrap_starts --unshare-all >/dev/null; then
		grep -q '^Containment: bubblewrap sandbox' "$BATS_FILE_TMPDIR/grades/reference.txt"
	else
		grep -q '^Containment: .*second layer missing' "$BATS_FILE_TMPDIR/grades/reference.txt"
	fi
}

@test "grade.sh --batch: a class CSV with a row per submission and a column per check, outside the submissions" {
	csv="$BATS_FILE_TMPDIR/grades/class.csv"
	[ "$(wc -l <"$csv")" -eq 12 ]
	[[ $(head -1 "$csv") == 'submission,lab1: build launch,lab1: build runs,'*',score,max_score' ]]
	python3 - "$csv" "$(max_score)" "$("$ROOT/grade.sh" --list --labs 1 | wc -l)" <<-'PY'
	import csv, sys
	rows = list(csv.DictReader(open(sys.argv[1])))
	assert len(rows[0]) == int(sys.argv[3]) + 3, len(rows[0])
	ref = next(r for r in rows if r["submission"] == "reference")
	assert ref["score"] == ref["max_score"] == sys.argv[2], ref
	bomb = next(r for r in rows if r["submission"] == "fork-bomb")
	assert bomb["lab1: writer: line counts, append and overwrite modes"] == "0", bomb
	PY
	grep -Eq "^graded $(ls "$BATS_FILE_TMPDIR/subs" | wc -l) submissions in [0-9]+ s with -j 2: [0-9]+ CPU seconds, [0-9]+% of [0-9]+ cores$" "$BATS_FILE_TMPDIR/batch.log"
	[ -z "$(find "$BATS_FILE_TMPDIR/subs" -maxdepth 1 -name '*.json' -o -maxdepth 1 -name '*.txt' -o -name class.csv)" ]
}

@test "every grading of this file: score <= maximum in every results.json" {
	all_within_max "$BATS_FILE_TMPDIR"/reference.json "$BATS_FILE_TMPDIR"/grades/*.json
	[ "$(ls "$BATS_FILE_TMPDIR"/grades/*.json | wc -l)" -eq "$(ls "$BATS_FILE_TMPDIR/subs" | wc -l)" ]
}

@test "grade.sh --json: Gradescope's results.json fields" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	python3 - "$BATS_FILE_TMPDIR/grades/missing-answers.json" "$(max_score)" <<-'PY'
	import json, sys
	r = json.load(open(sys.argv[1]))
	assert r["score"] == int(sys.argv[2]), r["score"]
	assert sum(t["score"] for t in r["tests"]) == r["score"]
	for t in r["tests"]:
	    assert set(t) - {"number"} == {"name", "score", "max_score", "status", "output", "visibility", "tags"}, t
	    assert t["status"] == ("passed" if t["output"].startswith("PASS") else "failed")
	# the answers row: worth nothing, failed all the same, naming the question
	bad = [t for t in r["tests"] if t["status"] == "failed"]
	assert len(bad) == 1 and bad[0]["max_score"] == 0 and "Q1.3" in bad[0]["output"], bad
	PY
}

@test "grade.sh: bad arguments exit 2 with the usage" {
	run "$ROOT/grade.sh" --labs x
	[ "$status" -eq 2 ]
	[[ $output == *"--labs: 'x' is not a list like 1,2"*"usage: ./grade.sh"* ]]
	run "$ROOT/grade.sh" a b
	[ "$status" -eq 2 ]
	run "$ROOT/grade.sh" --bogus
	[ "$status" -eq 2 ]
	run "$ROOT/grade.sh" no-such-submission.tar.gz
	[ "$status" -eq 1 ]
	[[ $output == *"no-such-submission.tar.gz: no such file or directory"* ]]
}

@test "labs/*/columns.csv: the labs' CSVs have the declared columns, in order, each value of its kind" {
	# every declared file, as the labs wrote them at tiny scale; Lab 4's
	# pool and thread-count files are writers' rows
	python3 -I -B - "$ROOT" "$BATS_FILE_TMPDIR/kit/data" <<-'PY'
	import os, sys
	sys.path.insert(0, sys.argv[1])
	from common.columns import declared
	from grading.classresults.values import Bad, read_csv
	data, files = sys.argv[2], declared(sys.argv[1])
	files["lab4-pool.csv"] = files["lab4-threads.csv"] = files["lab4-writers.csv"]
	assert {"lab1.csv", "lab5-depth.csv", "lab6-states.csv"} <= set(files), sorted(files)
	for name, (lab, columns) in files.items():
	    with open(os.path.join(data, name), "rb") as f:
	        text = f.read()
	    header = text.split(b"\n", 1)[0].decode()
	    assert header == ",".join(c.name for c in columns), (name, header)
	    try:
	        rows = read_csv(text, [(c.name, c.kind, True) for c in columns], name)
	    except Bad as e:
	        sys.exit(f"{e} (its kind in labs/{lab}-*/columns.csv)")
	    print(name, len(rows), "rows")
	PY
}

@test "grade.sh: the labs a handin names in labs.txt are the ones graded" {
	mkdir sub && cp -R "$BATS_FILE_TMPDIR/unpacked/iolab-handin/." sub/
	echo 1 >sub/labs.txt
	run "$ROOT/grade.sh" --only answers sub
	[ "$status" -eq 0 ]
	[[ $output == *"lab1: answers to Q1.x present (for the hand grader): PASS 0/0"* ]]
	[[ $output != *"lab2:"* ]]
	[[ $output == *"Written answers (6 questions, 13 points)"* ]]
}

@test "grade.sh: not root and no bubblewrap, students' code is not run unless --unsafe-no-sandbox" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to become another user for the test"
	command -v setpriv >/dev/null || skip "setpriv (util-linux) is not installed"
	local kit sub
	kit=$(mktemp -d) sub=$(mktemp -d)
	cp -R "$ROOT/." "$kit/" && cp -R "$BATS_FILE_TMPDIR/unpacked/iolab-handin/." "$sub/"
	chown -R nobody "$kit" "$sub"
	chmod 755 "$kit" "$sub"
	as_nobody() { setpriv --reuid=nobody --regid=nogroup --clear-groups env -i PATH="$1" HOME=/tmp "${@:2}"; }
	# a PATH without bwrap
	mkdir -p "$kit/nobwrap"
	# (one ln per directory: bats traces each command, and a loop over
	# every file took it two minutes)
	for dir in /usr/bin /bin; do ln -sf "$dir"/* "$kit/nobwrap/" 2>/dev/null || true; done
	rm -f "$kit/nobwrap/bwrap"
	run as_nobody "$kit/nobwrap" "$kit/grade.sh" --labs 1 --only answers "$sub"
	[ "$status" -eq 1 ]
	[[ $output == *"install bubblewrap (sudo apt-get install bubblewrap)"* ]]
	run as_nobody "$kit/nobwrap" "$kit/grade.sh" --labs 1 --only answers --unsafe-no-sandbox "$sub"
	[ "$status" -eq 0 ]
	[[ $output == *"Containment: NONE: --unsafe-no-sandbox"* ]]
	if bwrap --ro-bind / / --unshare-all true 2>/dev/null; then
		run as_nobody /usr/bin:/bin "$kit/grade.sh" --labs 1 --only writer "$sub"
		[ "$status" -eq 0 ]
		[[ $output == *"writer: line counts, append and overwrite modes: PASS"* ]]
		[[ $output == *"Containment: bubblewrap sandbox"* ]]
	fi
	rm -rf "$kit" "$sub"
}

@test "shellcheck finds nothing in the grader and the kit's scripts" {
	command -v shellcheck >/dev/null || skip "shellcheck is not installed"
	shellcheck -S warning "$ROOT/grade.sh" "$ROOT"/grading/*.sh "$ROOT"/grading/autograder/*.sh "$ROOT"/grading/autograder/run_autograder \
		"$ROOT"/common/*.sh "$ROOT"/labs/*/*.sh "$ROOT"/tests/*.bash "$ROOT"/labs/*/tests/*.bash "$ROOT"/grading/tests/*.bash "$ROOT/.ci/run"
}

@test "grade.sh lab 1: every mutant of writer, launch and runs loses its check in every grading (3, or IOLAB_MUTANT_TIMES)" {
	all_mutants_caught 1 2 7
}
