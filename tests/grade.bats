#!/usr/bin/env bats
# grade.sh and make handin: full marks for the reference, exactly the right
# points lost for each broken submission, and safe with hostile ones.

load helpers
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
	# Every lab graded once, for the full-marks test.
	"$ROOT/grade.sh" --json reference.json reference.tar.gz >reference.txt 2>&1
	cp reference.tar.gz subs/

	# Broken copies, as directories.
	local lab1=labs/1-interleave
	variant missing-csv
	rm subs/missing-csv/data/lab1.csv
	variant compile-error
	echo "this is not C" >>subs/compile-error/$lab1/runs.c
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
	sed -i 's/i < lines; i++/lines > 0; i++/' subs/write-forever/$lab1/writer.c

	# Lab 1 only, for the broken copies.
	"$ROOT/grade.sh" --batch subs -j 2 --labs 1 >batch.log 2>&1
}

# score NAME: "X/Y" from its last line.
score() {
	sed -n 's/^Score: //p' "$BATS_FILE_TMPDIR/subs/$1.txt"
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

@test "grade.sh: a missing CSV costs the data checks only" {
	[ "$(failed missing-csv | tr '\n' '|')" = "data/lab1.csv: plausible values, 3+ real trials|data/lab1.csv: no loss in append mode, one writer's worth in overwrite|data/lab1.csv has the kit's header|" ]
	[ "$(score missing-csv)" = "$(($(max_score) - 5))/$(max_score)" ]
}

@test "grade.sh: a compile error costs the build and what needs that program" {
	[ "$(failed compile-error | tr '\n' '|')" = "build runs|runs: --csv and --summary-csv as the kit's on fixtures and a random file|runs: --expect exit codes|runs: speed within 3x the kit's|" ]
	[ "$(score compile-error)" = "$(($(max_score) - 8))/$(max_score)" ]
	grep -q "reproduce: make bin/runs" "$BATS_FILE_TMPDIR/subs/compile-error.txt"
}

@test "grade.sh: an infinite loop fails its check and grading goes on" {
	[ "$(failed infinite-loop)" = "writer: line counts, append and overwrite modes" ]
	grep -q "writer did not finish in time (killed)" "$BATS_FILE_TMPDIR/subs/infinite-loop.txt"
	[ "$(score infinite-loop)" = "$(($(max_score) - 3))/$(max_score)" ]
}

@test "grade.sh: a wrong run analyzer loses the runs check, with a diff" {
	[ "$(failed wrong-runs)" = "runs: --csv and --summary-csv as the kit's on fixtures and a random file" ]
	[ "$(score wrong-runs)" = "$(($(max_score) - 4))/$(max_score)" ]
}

@test "grade.sh: fabricated constant timings are caught" {
	[ "$(failed constant-data | tr '\n' '|')" = "data/lab1.csv: plausible values, 3+ real trials|data/lab1.csv: no loss in append mode, one writer's worth in overwrite|" ]
	grep -q "not measured" "$BATS_FILE_TMPDIR/subs/constant-data.txt"
}

@test "grade.sh: a missing answer costs the answers check and names it" {
	[ "$(failed missing-answers)" = "answers to Q1.x present" ]
	grep -q "no answer under '## Q1.3'" "$BATS_FILE_TMPDIR/subs/missing-answers.txt"
	[ "$(score missing-answers)" = "$(($(max_score) - 1))/$(max_score)" ]
}

@test "grade.sh: a fork bomb and an endless writer are contained" {
	[ "$(failed fork-bomb)" = "writer: line counts, append and overwrite modes" ]
	[ "$(failed write-forever)" = "writer: line counts, append and overwrite modes" ]
	# nothing of them is left running
	! pgrep -f "iolab-grade.*/bin/writer"
}

@test "grade.sh: in the sandbox a fork bomb is held to its own process limit" {
	[ "$(id -u)" -eq 0 ] || skip "needs root: student programs run as nobody"
	grep -q '^Containment: bubblewrap sandbox' "$BATS_FILE_TMPDIR/subs/reference.txt" ||
		skip "bubblewrap cannot start here"
	# As one of a batch of 4, the outer limit leaves room for 4 gradings;
	# the bomb alone must stay within one program's 128 tasks.
	local before peak=0 n
	before=$(ps -L -u nobody -o lwp= | wc -l)
	GRADE_PARALLEL=4 "$ROOT/grade.sh" --labs 1 "$BATS_FILE_TMPDIR/subs/fork-bomb" >/dev/null 2>&1 &
	while kill -0 $! 2>/dev/null; do
		n=$(ps -L -u nobody -o lwp= | wc -l)
		[ "$n" -le "$peak" ] || peak=$n
		sleep 0.1
	done
	echo "nobody's tasks: $before before, $peak at the peak"
	[ "$peak" -ge $((before + 100)) ]	# the bomb did go off
	[ "$peak" -le $((before + 128 + 16)) ]
}

@test "grade.sh: the report says which containment was used" {
	grep -q '^Containment: ' "$BATS_FILE_TMPDIR/subs/reference.txt"
	if command -v bwrap >/dev/null && bwrap --ro-bind / / true 2>/dev/null; then
		grep -q '^Containment: bubblewrap sandbox' "$BATS_FILE_TMPDIR/subs/reference.txt"
	fi
}

@test "grade.sh --batch: a class CSV with a row per submission and a column per check" {
	csv="$BATS_FILE_TMPDIR/subs/class.csv"
	[ "$(wc -l <"$csv")" -eq 10 ]
	[[ $(head -1 "$csv") == 'submission,"lab1: build launch","lab1: build runs",'*',score,max_score' ]]
	# header columns = submission + checks + 2
	[ "$(head -1 "$csv" | awk -F'","' '{ print NF }')" -eq "$("$ROOT/grade.sh" --list --labs 1 | wc -l)" ]
	grep -q "^\"reference\",1,1,1,3,3,4,1,2,2,2,1,2,1,1,$(max_score),$(max_score)$" "$csv"
}

@test "grade.sh --json: Gradescope's results.json fields" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	python3 - "$BATS_FILE_TMPDIR/subs/missing-answers.json" "$(max_score)" <<-'PY'
	import json, sys
	r = json.load(open(sys.argv[1]))
	assert r["score"] == int(sys.argv[2]) - 1, r["score"]
	assert sum(t["score"] for t in r["tests"]) == r["score"]
	for t in r["tests"]:
	    assert set(t) == {"name", "score", "max_score", "status", "output", "visibility"}, t
	    assert t["status"] == ("passed" if t["score"] == t["max_score"] else "failed")
	bad = [t for t in r["tests"] if t["status"] == "failed"]
	assert len(bad) == 1 and "Q1.3" in bad[0]["output"], bad
	PY
}

# hostile NAME: a tarball made by python's tarfile with one bad member.
hostile() {
	python3 - "$1" <<-'PY'
	import io, sys, tarfile
	kind = sys.argv[1]
	with tarfile.open(kind + ".tar.gz", "w:gz") as t:
	    if kind == "symlink":
	        m = tarfile.TarInfo("iolab-handin/data")
	        m.type, m.linkname = tarfile.SYMTYPE, "/etc"
	        t.addfile(m)
	    else:
	        name = {"dotdot": "iolab-handin/../../escaped", "absolute": "/tmp/iolab-escaped-abs"}[kind]
	        m = tarfile.TarInfo(name)
	        m.size = 3
	        t.addfile(m, io.BytesIO(b"hi\n"))
	PY
}

@test "grade.sh: hostile tarballs are rejected, nothing written outside, a failing JSON still written" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	mkdir -p deep/er && cd deep/er
	for kind in dotdot absolute symlink; do
		hostile $kind
		run "$ROOT/grade.sh" --json $kind.json $kind.tar.gz
		[ "$status" -eq 1 ]
		[[ $output == *"grade.sh: $kind.tar.gz: "* ]]
		python3 -c "import json; r = json.load(open('$kind.json')); assert r['score'] == 0 and r['tests'] == []"
	done
	[ ! -e ../escaped ] && [ ! -e ../../escaped ] && [ ! -e /tmp/iolab-escaped-abs ]
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

@test "grade.sh: every automatic check appears in handout.md with the same points" {
	for lab in $(ls -d "$ROOT"/labs/[0-9]-* | sed 's|.*/labs/\([0-9]\).*|\1|'); do
		"$ROOT/grade.sh" --list --labs "$lab" | awk -F'\t' -v lab="lab$lab" '$1 == lab { print "| " $3 " | " $2 " |" }' >want
		sed -n "/^### How Lab $lab is graded/,/^#/p" "$ROOT/handout.md" | grep '^| [^-c]' >got || true
		diff want got
	done
}

@test "grade.sh: knows the header of every CSV the labs write" {
	source <(sed -n '/^kit_header() {/,/^}/p' "$ROOT/grade.sh")
	KIT=$ROOT
	for csv in "$BATS_FILE_TMPDIR"/kit/data/lab*.csv; do
		[ "$(kit_header "$(basename "$csv")")" = "$(head -1 "$csv")" ]
	done
}

@test "shellcheck finds nothing in the grader and the kit's scripts" {
	command -v shellcheck >/dev/null || skip "shellcheck is not installed"
	shellcheck -S warning "$ROOT/grade.sh" "$ROOT"/grading/*.sh "$ROOT"/grading/autograder/* \
		"$ROOT"/common/*.sh "$ROOT"/labs/*/*.sh "$ROOT"/tests/*.bash "$ROOT/.ci/run"
}
