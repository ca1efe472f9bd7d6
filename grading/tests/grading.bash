# grading.bash - loaded by the grader's tests (grade*.bats): a reference
# submission to grade, and from it the broken copies each test makes.

# reference_kit LAB...: in the current directory, kit/ becomes a student's
# kit with these labs run at SCALE=tiny, their figures drawn and the
# reference answers in answers.md; kit/iolab-handin.tar.gz is what
# make handin packs for those labs, and unpacked/iolab-handin/ its contents.
# When tests/run.sh has run every lab once for all the grader's suites
# (IOLAB_TEST_REFERENCE; in CI, .ci/as-student's run of the lab pages), its
# kit is copied instead of running them again. The labs' data/labN-load.txt
# then say scale: quick and verdict: quiet, as a student's run at the
# default scale on an idle machine would: the grader refuses data run at
# tiny scale (grade.bats tests that refusal), and make class leaves out a
# BUSY run.
reference_kit() {
	local lab
	mkdir -p unpacked
	if [ -e "${IOLAB_TEST_REFERENCE:-}/done" ]; then
		cp -R "$IOLAB_TEST_REFERENCE/kit" kit
	else
		run_labs kit "$@" || return 1
	fi
	for lab in "$@"; do
		sed -i -e 's/^scale: tiny$/scale: quick/' -e 's/^verdict: .*/verdict: quiet/' "kit/data/lab$lab-load.txt" || return 1
	done
	cat "$ROOT"/grading/lab*/answers.md >kit/answers.md
	(cd kit && LABS=$(IFS=,; echo "$*") bash common/handin.sh) >handin.log || return 1
	tar -xzf kit/iolab-handin.tar.gz -C unpacked
}

# run_labs DIR LAB...: DIR becomes a copy of the kit with these labs run at
# SCALE=tiny and their figures drawn.
run_labs() {
	local dir=$1 lab
	shift
	mkdir -p "$dir/data"
	cp -R "$ROOT/Makefile" "$ROOT/common" "$ROOT/labs" "$ROOT/plot" "$dir/"
	cp -R "$ROOT/data/reference" "$dir/data/"	# some figures overlay the sources' tables
	rm -f "$dir"/plot/*.png
	for lab in "$@"; do
		DATA=$dir/data SCRATCH=$dir/scratch SCALE=tiny bash "$ROOT"/labs/"$lab"-*/lab"$lab".sh >/dev/null || return 1
		(cd "$dir" && for gp in plot/lab"$lab"-*.gp; do bash common/plot.sh "$gp" "${gp%.gp}.png"; done) >/dev/null || return 1
	done
}

# shared_reference DEST: DEST.txt and DEST.json, the report and the
# results.json of the reference handin of every lab in the reference kit
# tests/run.sh gave the grader's suites (IOLAB_TEST_REFERENCE), graded once
# for all of them in this run (into IOLAB_TEST_GRADED): the first suite to
# ask grades it, under a lock, and the others copy its report (one grading
# of six labs instead of one a suite). Fails where there is no such kit (a
# suite run alone) or its grading wrote no results.json: the suite grades
# its own reference.
shared_reference() {
	local dest=$1 labs shared=${IOLAB_TEST_GRADED:-}
	[ -e "${IOLAB_TEST_REFERENCE:-}/done" ] && [ -d "$shared" ] || return 1
	(
		flock 9 || exit 1
		[ ! -e "$shared/failed" ] || exit 1
		[ ! -e "$shared/reference.json" ] || exit 0
		mkdir "$shared/work" && cd "$shared/work" || exit 1
		# the labs run in it: those with a data/labN-load.txt
		labs=$(cd "$IOLAB_TEST_REFERENCE/kit/data" && ls lab*-load.txt | sed 's/^lab\([0-9]*\)-load\.txt$/\1/')
		# shellcheck disable=SC2086 # one lab a word
		reference_kit $labs &&
			"$ROOT/grade.sh" --json grade.json kit/iolab-handin.tar.gz >grade.txt 2>&1
		[ -s grade.json ] && mv grade.txt "$shared/reference.txt" && mv grade.json "$shared/reference.json" ||
			{ touch "$shared/failed"; exit 1; }
		cd .. && rm -rf work
	) 9>"$shared/lock" || return 1
	cp "$shared/reference.txt" "$dest.txt" && cp "$shared/reference.json" "$dest.json"
}

# variant NAME: subs/NAME, a copy of the reference to break on purpose.
variant() {
	cp -R unpacked/iolab-handin "subs/$1"
}

# mutant NAME MUTANT: subs/NAME, a copy of the reference with the edit of
# MUTANT, a known-wrong program of grading/labN/checks.py's MUTANTS for the lab in
# GRADED_LAB: a test reads what the grader says of it (its messages, the
# points it loses) where mutants.py only counts that it lost its check.
# Fails unless every edit of the mutant applied.
mutant() {
	variant "$1" && python3 -I -B "$ROOT/grading/mutants.py" --labs "$GRADED_LAB" --apply "$2" "subs/$1"
}

# changed NAME FILE: succeeds if the edit meant to break FILE of subs/NAME
# took, so that a test cannot pass on an edit that did nothing.
changed() {
	! cmp -s "unpacked/iolab-handin/$2" "subs/$1/$2" ||
		{ echo "the $1 edit did not apply to $2" >&2; return 1; }
}

# Reading a graded submission's report, grades/NAME.txt (where
# `grade.sh --batch subs --out grades` puts it), for the lab in GRADED_LAB
# (each test file sets it).
# failed NAME: the titles of the checks it failed, one a line. The report's
# FAIL lines also go to stderr, which bats shows when a test fails.
failed() {
	grep -A4 ': FAIL ' "$BATS_FILE_TMPDIR/grades/$1.txt" >&2
	sed -n "s/^\(lab$GRADED_LAB\|all\): \(.*\): FAIL .*/\2/p" "$BATS_FILE_TMPDIR/grades/$1.txt"
}

# lab_max LAB: what Lab LAB's checks and the machine description are worth
# (grade.sh --list).
lab_max() {
	"$ROOT/grade.sh" --list --labs "$1" | awk -F'\t' '{ s += $2 } END { print s }'
}

# lab_score NAME: "X/Y", what grades/NAME.txt gave the checks of
# GRADED_LAB and the machine description, from the report's lines
# "labN  X/Y" and "all  X/Y" (the grader's own: not indented): the whole
# score of a grading of that lab alone ("Score: X/Y"), and that lab's
# part of a grading of every lab (shared_reference). Nothing unless both
# lines are there.
lab_score() {
	local line x=0 y=0 n=0
	while IFS= read -r line; do
		[[ $line =~ ^(lab$GRADED_LAB|all)\ +([0-9]+)/([0-9]+)$ ]] || continue
		x=$((x + BASH_REMATCH[2])) y=$((y + BASH_REMATCH[3])) n=$((n + 1))
	done <"$BATS_FILE_TMPDIR/grades/$1.txt"
	[ "$n" -eq 2 ] && echo "$x/$y"
}

# full_marks NAME: grades/NAME.txt failed no check of GRADED_LAB and
# scored the lab's maximum.
full_marks() {
	local max
	max=$(lab_max "$GRADED_LAB")
	[ -z "$(failed "$1")" ] && [ "$(lab_score "$1")" = "$max/$max" ]
}

# points_lost NAME: the points it lost of GRADED_LAB's (lab_score);
# nothing (so the test fails) unless X <= Y.
points_lost() {
	local score
	score=$(lab_score "$1")
	within_max "$score" "$1" || return 1
	echo $((${score#*/} - ${score%/*}))
}

# within_max X/Y NAME: succeeds if X/Y is a score no greater than its maximum.
within_max() {
	[[ $1 =~ ^[0-9]+/[0-9]+$ ]] && [ "${1%/*}" -le "${1#*/}" ] ||
		{ echo "$2: the score '$1' is not X/Y with X <= Y" >&2; return 1; }
}

# all_within_max FILE.json...: every results.json's score is at most its
# maximum (extra_data.max_score) and the sum of its tests', each test's at
# most its own maximum.
all_within_max() {
	python3 - "$@" <<-'PY'
	import json, sys
	for path in sys.argv[1:]:
	    r = json.load(open(path))
	    most = r["extra_data"]["max_score"]
	    assert most is None or 0 <= r["score"] <= most, (path, r["score"], most)
	    assert r["score"] == sum(t["score"] for t in r["tests"]), path
	    assert all(0 <= t["score"] <= t["max_score"] for t in r["tests"]), path
	    assert most is None or most == sum(t["max_score"] for t in r["tests"]), path
	PY
}

# all_mutants_caught LAB JOBS AT_LEAST: grading/mutants.py grades every
# mutant of LAB IOLAB_MUTANT_TIMES times (default 3, JOBS mutants at a
# time); each must lose its check every time, and the lab must have
# AT_LEAST mutants. Three gradings catch a mutant whose check is
# deterministic and most of those a check catches by chance; the 10 of
# `python3 grading/mutants.py` (its default, run before a release) take
# about twice as long, which the suite cannot afford on 2 cores.
# shellcheck disable=SC2154 # status and output are set by bats' run
all_mutants_caught() {
	local times=${IOLAB_MUTANT_TIMES:-3}
	[ "$times" -gt 0 ] || skip "IOLAB_MUTANT_TIMES=0 (CI, for its time): make test-all and grading/mutants.py grade the mutants"
	[ "$(id -u)" -eq 0 ] || why=$(bwrap_starts --unshare-all) ||
		skip "the grader runs students' code only as root or in bubblewrap: not root, and $why"
	run python3 "$ROOT/grading/mutants.py" --labs "$1" --times "$times" -j "$2"
	echo "$output"
	[ "$status" -eq 0 ]
	[ "$(grep -c "^MUTANT .*: caught $times/$times\$" <<<"$output")" -eq "$(grep -c '^MUTANT ' <<<"$output")" ]
	[ "$(grep -c '^MUTANT ' <<<"$output")" -ge "$3" ]
}

# grader_peak MIB ARGS...: grade.sh ARGS, and into the file MIB the peak
# memory in MiB of the grader's own process (not of the compilers and
# programs it starts, whose memory the sandbox limits).
grader_peak() {
	local mib=$1
	shift
	python3 -I -B -c '
import atexit, resource, runpy, sys
mib, sys.argv = sys.argv[1], sys.argv[2:]
atexit.register(lambda: open(mib, "w").write(f"{resource.getrusage(resource.RUSAGE_SELF).ru_maxrss >> 10}\n"))
runpy.run_path(sys.argv[0], run_name="__main__")' "$mib" "$ROOT/grading/grade.py" "$@"
}
