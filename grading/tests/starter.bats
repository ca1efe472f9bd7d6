#!/usr/bin/env bats
# The instructor's workflow: grading/starter.sh strips solution regions,
# `make starter` makes a students' kit that compiles, tells what is still to
# write and grades low without errors; `make autograder` makes a Gradescope
# zip whose run_autograder grades a handin in a fake /autograder tree, and
# `make autograder PLATFORM=prairielearn` a PrairieLearn course's zip whose
# run_prairielearn grades one in a fake /grade tree.

load ../../tests/helpers

FIX="$ROOT/grading/tests/fixtures/starter"

# make starter and make autograder run once, into this file's directory,
# with a Lab 1 handin of the reference kit for the autograder to grade.
setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	make -s -C "$ROOT" starter DIST="$BATS_FILE_TMPDIR/dist" >starter.log 2>&1 || { cat starter.log >&2; return 1; }
	# LABS=, the list make starter takes too
	make -s -C "$ROOT" autograder DIST="$BATS_FILE_TMPDIR/dist" LABS=1 >autograder.log 2>&1 ||
		{ cat autograder.log >&2; return 1; }
	make -s -C "$ROOT" autograder PLATFORM=prairielearn DIST="$BATS_FILE_TMPDIR/dist" LABS=1 >>autograder.log 2>&1 ||
		{ cat autograder.log >&2; return 1; }

	# The reference kit with Lab 1 done at tiny scale, handed in.
	mkdir -p kit/data
	cp -R "$ROOT/Makefile" "$ROOT/common" "$ROOT/labs" "$ROOT/plot" kit/
	rm -f kit/plot/*.png
	DATA=kit/data SCRATCH=kit/scratch SCALE=tiny bash "$ROOT/labs/1-interleave/lab1.sh" >/dev/null
	# graded as a run at the default scale (the grader refuses tiny data)
	sed -i 's/^scale: tiny$/scale: quick/' kit/data/lab1-load.txt
	(cd kit && for gp in plot/lab1-*.gp; do bash common/plot.sh "$gp" "${gp%.gp}.png"; done) >/dev/null
	cat "$ROOT"/grading/lab*/answers.md >kit/answers.md
	(cd kit && LABS=1 bash common/handin.sh) >handin.log
}

STARTER() { echo "$BATS_FILE_TMPDIR/dist/starter"; }

# strip_fails FIXTURE LINE TEXT: the strip refuses FIXTURE, naming its LINE.
strip_fails() {
	run bash "$ROOT/grading/starter.sh" --strip "$FIX/$1"
	[ "$status" -eq 1 ] || { echo "status $status: $output"; return 1; }
	[[ $output == *"$FIX/$1:$2: "*"$3"* ]] || { echo "not '$1:$2: ...$3...': $output"; return 1; }
}

# zipped ZIP list | cat NAME | modes NAME... | extract DIR: unzip, or python3.
zipped() {
	local zip=$1 what=$2
	shift 2
	if command -v unzip >/dev/null; then
		case $what in
		list) unzip -Z1 "$zip" ;;
		cat) unzip -p "$zip" "$1" ;;
		modes) unzip -Z "$zip" "$@" | cut -c1-10 ;;
		extract) unzip -q "$zip" -d "$1" ;;
		esac
		return
	fi
	python3 - "$zip" "$what" "$@" <<-'PY'
	import os, stat, sys, zipfile
	z = zipfile.ZipFile(sys.argv[1])
	what, args = sys.argv[2], sys.argv[3:]
	if what == "list":
	    print("\n".join(z.namelist()))
	elif what == "cat":
	    sys.stdout.buffer.write(z.read(args[0]))
	elif what == "modes":
	    for name in args:
	        print(stat.filemode(z.getinfo(name).external_attr >> 16))
	else:
	    for info in z.infolist():
	        path = z.extract(info, args[0])
	        if info.external_attr >> 16:
	            os.chmod(path, (info.external_attr >> 16) & 0o7777)
	PY
}

# kit_build DIR: the kit built, and its bin/ and build/ copied into the kit
# unpacked in DIR, as up to date (setup.sh builds it there; this build is
# the same): the zip stamps what it holds with the time it was made, after
# the kit's build, and the first grading there rebuilt every program of
# every lab (some 10 CPU-s) without this. Lab 6's two wrappers, which name
# the Python they run by its path, are left for make to write there.
kit_build() {
	make -s -C "$ROOT" all
	find "$1" -exec touch -h -d @0 {} +
	cp -Rp "$ROOT/bin" "$ROOT/build" "$1/"
	rm -f "$1/bin/fsrecord" "$1/bin/crashstates"
}

# fake_autograder: a fake /autograder in $BATS_FILE_TMPDIR/ag, the zip
# unpacked in source/ with the kit's build (kit_build), an empty
# submission/ and no results/; the test then stands in its parent.
fake_autograder() {
	cd "$BATS_FILE_TMPDIR" || return 1
	if [ ! -d ag/source ]; then
		mkdir -p ag/source
		zipped "$BATS_FILE_TMPDIR/dist/autograder.zip" extract ag/source
		kit_build ag/source
	fi
	rm -rf ag/submission ag/results
	mkdir ag/submission
}

# results_json FILE MAX: Gradescope's fields, the score the sum of the tests'.
results_json() {
	command -v python3 >/dev/null || { grep -q '"score": ' "$1"; return; }
	python3 - "$1" "$2" <<-'PY'
	import json, sys
	r = json.load(open(sys.argv[1]))
	assert isinstance(r["score"], (int, float)) and isinstance(r["output"], str), r
	assert sum(t["score"] for t in r["tests"]) == r["score"], r["score"]
	seen = {}
	for t in r["tests"]:
	    assert set(t) - {"number"} == {"name", "score", "max_score", "status", "output", "visibility", "tags"}, t
	    assert t["status"] == ("passed" if t["output"].startswith("PASS") else "failed"), t
	    # lab1's checks: tag lab1, numbers 1.1, 1.2, ... in order; the machine's: tag all, no number
	    lab = t["name"].split(":")[0]
	    seen[lab] = seen.get(lab, 0) + 1
	    assert t["tags"] == [lab] and t.get("number") == (f"{lab[3:]}.{seen[lab]}" if lab != "all" else None), t
	assert isinstance(r["execution_time"], int) and r["execution_time"] >= 0, r
	if sys.argv[2] != "-":
	    assert r["score"] == int(sys.argv[2]), (r["score"], sys.argv[2])
	    assert sum(t["max_score"] for t in r["tests"]) == int(sys.argv[2])
	PY
}

# failing_json FILE TEXT: a score of 0, no tests, an output saying TEXT.
failing_json() {
	grep -q '"score": 0,' "$1" || { cat "$1"; return 1; }
	grep -q "$2" "$1" || { echo "no '$2' in:"; cat "$1"; return 1; }
	command -v python3 >/dev/null || return 0
	python3 -c "import json, sys; r = json.load(open(sys.argv[1])); assert r['score'] == 0 and r['tests'] == []" "$1"
}

@test "strip: a stub replaces its region, a region without one is removed" {
	run bash "$ROOT/grading/starter.sh" --strip "$FIX/regions.c"
	[ "$status" -eq 0 ]
	diff "$FIX/regions.expected" - <<<"$output"
}

@test "strip: the stripped code compiles without warnings and its stub says what is not written" {
	bash "$ROOT/grading/starter.sh" --strip "$FIX/regions.c" >regions.c
	cc -std=c11 -Wall -Wextra -Wno-unused-parameter -Werror -I"$ROOT/common" -o regions regions.c
	status=0
	./regions >out.txt 2>err.txt || status=$?
	[ "$status" -eq 3 ]
	[ "$(cat out.txt)" = 0 ]	# twice()'s stub returns 0
	[ "$(cat err.txt)" = "regions: not written yet: square() (see regions.c)" ]
	# and the reference runs its solution
	cc -std=c11 -Wall -Wextra -Wno-unused-parameter -Werror -I"$ROOT/common" -o reference "$FIX/regions.c"
	run ./reference
	[ "$status" -eq 0 ]
	[ "$output" = "$(printf 'solution only\n4')" ]
}

@test "strip: nested markers are refused, naming file and line" {
	strip_fails nested.c 5 "nested BEGIN SOLUTION: the region opened at line 3 is not closed"
}

@test "strip: an unclosed region is refused, naming file and line" {
	strip_fails unclosed.c 5 "BEGIN SOLUTION never closed"
	strip_fails unclosed-stub.c 6 "STUB block never closed"
}

@test "strip: unmatched and misplaced markers are refused, naming file and line" {
	strip_fails stray-end.c 4 "END SOLUTION without a BEGIN SOLUTION"
	strip_fails late-stub.c 7 "STUB block not right after an END SOLUTION"
	strip_fails comment-in-stub.c 7 "cannot hold a /* comment */"
	strip_fails inline-marker.c 3 "a marker is alone on its line"
}

@test "make starter: a marker error stops it, naming file and line, and the previous starter stays" {
	# a copy of the kit's sources with one region left open
	mkdir kit
	cp -R "$ROOT/Makefile" "$ROOT/README.md" "$ROOT/handout.md" "$ROOT/predictions.md" "$ROOT/.gitignore" \
		"$ROOT/common" "$ROOT/labs" "$ROOT/tests" "$ROOT/plot" "$ROOT/grading" kit/
	printf '/* BEGIN SOLUTION */\nint unfinished;\n' >>kit/labs/1-interleave/writer.c
	line=$(wc -l <kit/labs/1-interleave/writer.c)
	mkdir -p out/starter/labs
	touch out/starter/Makefile out/starter/previous
	run bash kit/grading/starter.sh -o out/starter
	[ "$status" -eq 1 ]
	[[ $output == *"labs/1-interleave/writer.c:$((line - 1)): BEGIN SOLUTION never closed"* ]]
	[[ $output == *"no starter written"* ]]
	[ -e out/starter/previous ]
	[ "$(ls -A out)" = starter ]	# no temporary directory left behind
	# and it will not replace a directory that is not a starter
	run bash kit/grading/starter.sh -o kit/labs
	[ "$status" -eq 1 ]
	[[ $output == *"is not a starter kit"* ]]
}

@test "make starter: the kit for students, without the grader" {
	s=$(STARTER)
	grep -q "wrote $s: the kit with [1-9][0-9]* solution regions replaced" "$BATS_FILE_TMPDIR/starter.log"
	for f in Makefile README.md handout.md predictions.md .gitignore common/iolab.h labs/1-interleave/lab1.sh \
		labs/5-patterns/iopattern.c plot/lab1-runs.gp data/reference tests/run.sh tests/helpers.bash \
		labs/1-interleave/tests/launch.bats labs/1-interleave/columns.csv tests/unit/test-common.c; do
		[ -e "$s/$f" ] || { echo "missing: $f"; return 1; }
	done
	for f in grade.sh grading setup.cfg bin build dist scratch; do
		[ ! -e "$s/$f" ] || { echo "should not be there: $f"; return 1; }
	done
	# no results: a CSV is a published table (data/reference/) or a lab's declaration of its columns or trials
	[ -z "$(find "$s" -name 'grade*.bats' -o -name 'hostile*' -o -name '*.png' -o -name '*.tmp' \
		-o -name '*.csv' ! -path '*/data/reference/*' ! -name columns.csv ! -name trials.csv)" ]
	# the README names none of the instructor's tools (the handout may say "grader")
	run grep -nE 'make starter|make autograder|grade\.sh|grading/|For instructors|autograder' "$s/README.md"
	[ "$status" -eq 1 ] || { echo "instructor material in the starter's README: $output"; return 1; }
	# nor do the handout and the lab pages tell the student to run a grader they do not have
	run grep -n 'grade\.sh' "$s/handout.md" "$s"/labs/*/README.md
	[ "$status" -eq 1 ] || { echo "the handout or a page names grade.sh: $output"; return 1; }
	# every lab's page, with the checks it is graded on; the start page links each
	for page in "$s"/labs/[0-9]-*/README.md; do
		grep -q "^The course's grader runs these checks on your handin" "$page" || { echo "$page"; return 1; }
		grep -q "](${page#"$s/"})" "$s/handout.md" || { echo "handout.md does not link $page"; return 1; }
	done
	[ "$(ls "$s"/labs/[0-9]-*/README.md | wc -l)" -eq "$(ls -d "$s"/labs/[0-9]-* | wc -l)" ]
	# no test file loads what the starter lacks
	run grep -rlE 'load grading|grading/' "$s"/tests/*.bats "$s"/tests/*.bash "$s"/labs/*/tests
	[ "$status" -eq 1 ] || { echo "tests that need the grader: $output"; return 1; }
	# every lab program of the kit is there
	diff <(cd "$ROOT" && ls labs/*/*.c) <(cd "$s" && ls labs/*/*.c)
	# the starter's Makefile knows it cannot make a starter
	run make -C "$s" starter
	[ "$status" -ne 0 ]
	[[ $output == *"this is the students' kit"* ]]
}

@test "make starter: no solution text is left" {
	s=$(STARTER)
	# no marker in any code (the .md files may describe them)
	run grep -rlE '(BEGIN|END)[[:space:]]+SOLUTION|/\*[[:space:]]*STUB' --exclude='*.md' "$s"
	[ "$status" -eq 1 ]
	# distinctive lines of each region
	absent() {
		local file=$1 line
		shift
		for line in "$@"; do
			grep -qF -- "$line" "$ROOT/$file" || { echo "$file: not in the reference: $line"; return 1; }
			! grep -qF -- "$line" "$s/$file" || { echo "$file: solution left: $line"; return 1; }
		done
	}
	absent labs/1-interleave/launch.c 'if (pipe(gate) != 0)' 'while (read(gate[0], &byte, 1) < 0' \
		'close(gate[1]);' 'wait4(-1, &status, 0, &ru)' '.user_s = timeval_s(ru.ru_utime),'
	absent labs/1-interleave/runs.c 'st.start = st.lines;'
	absent labs/2-locking/lockbench.c 'if (flush && fflush(fp) != 0)' '*holding += released - got;'
	absent labs/3-threads/fillcopy.c '*to = k == n - 1 ? total : *from + total / n;' \
		'memcpy(p + i, &v, end - i);' 'rng_seed(&workers[k].rng, k + 1);'
	absent labs/4-writers/pwriters.c 'size_t num = queue.taken++;' \
		'pthread_cond_wait(&queue.nonempty, &queue.lock);' 'q->posted++;' 'q->closed = 1;'
	absent labs/5-patterns/iopattern.c ': (i % slots) * c->stride;' 'rng_below(r, slots) * c->io' \
		'*offset = stx.stx_dio_offset_align;' 'if (c->io % align != 0)'
	# and, in any marked file, every line of a region found nowhere else in
	# the reference (a line of 10 characters or more)
	for src in $(cd "$ROOT" && grep -rlE '^[[:space:]]*/\* BEGIN SOLUTION \*/' --include='*.c' --include='*.h' common labs); do
		awk '{ t = $0; gsub(/^[ \t]+|[ \t]+$/, "", t) }
			t == "/* BEGIN SOLUTION */" { inside = 1; next }
			t == "/* END SOLUTION */" { inside = 0; next }
			inside && length(t) >= 10 { region[t] = 1; next }
			{ outside[t] = 1 }
			END { for (t in region) if (!(t in outside)) print t }' "$ROOT/$src" >solution.txt
		[ -s solution.txt ] || { echo "$src: no solution line found"; return 1; }
		sed 's/^[[:space:]]*//; s/[[:space:]]*$//' "$s/$src" | grep -Fxf solution.txt && {
			echo "$src: solution lines left in the starter"; return 1; }
		true
	done
}

@test "solution regions: each is the whole body of one function, and its stub has no (void) list" {
	# In the kit's style a function's body opens with "{" alone at the
	# start of a line and closes with "}" alone; a region fills all of it.
	for src in $(cd "$ROOT" && grep -rlE '^[[:space:]]*/\* BEGIN SOLUTION \*/' --include='*.c' --include='*.h' common labs); do
		awk -v src="$src" '
			function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
			{ t = trim($0) }
			t == "/* BEGIN SOLUTION */" {
				if (prev != "{") { print src ":" NR ": a region that does not open a function body"; bad = 1 }
				inside = 1
			}
			inside && t == "/* END SOLUTION */" { inside = 0; after = 1; prev = t; next }
			after && t == "/* STUB" { stub = 1; prev = t; next }
			after && stub && t != "*/" {
				if (t ~ /^\(void\)/) { print src ":" NR ": a (void) list in a stub"; bad = 1 }
				prev = t; next
			}
			after && stub && t == "*/" { stub = 0; prev = t; next }
			after && t ~ /^\/\* STUB .*\*\/$/ { prev = t; next }
			after {
				if ($0 != "}") { print src ":" NR ": a region that does not end a function body"; bad = 1 }
				after = 0
			}
			{ prev = $0 }
			END { exit bad }' "$ROOT/$src"
	done
}

@test "make starter: the starter compiles with no warnings (-Werror)" {
	run env -u CFLAGS -u EXTRA_CFLAGS make -C "$(STARTER)" all
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output != *warning* ]]
	[[ $output == *-Werror* ]]
	[ -x "$(STARTER)/bin/launch" ] && [ -x "$(STARTER)/bin/iopattern" ]
}

@test "make starter: its make labs runs every lab and names the programs still to write" {
	s=$(STARTER)
	# the starter's own programs and data/ (not the suite's $BIN)
	run env -u BIN -u DATA make -C "$s" labs SCALE=tiny SCRATCH="$BATS_TEST_TMPDIR/scratch"
	[ "$status" -ne 0 ]
	for lab in "$s"/labs/*/lab[0-9].sh; do
		lab=$(basename "$lab" .sh)
		[[ $output == *"== Lab ${lab#lab}"* ]] || { echo "$lab did not run"; return 1; }
	done
	[[ $output == *"launch: not written yet: "*"(see labs/1-interleave/launch.c)"* ]]
	[[ $output == *"fillcopy: not written yet: "*"(see labs/3-threads/fillcopy.c)"* ]]
	[[ $output == *"pwriters: not written yet: "*"(see labs/4-writers/pwriters.c)"* ]]
	[[ $output == *"iopattern: not written yet: "*"(see labs/5-patterns/iopattern.c)"* ]]
	[[ $output == *"== Not done: the results above are incomplete"*"Labs that did not finish:"* ]]
	# Lab 3 too stops at its unwritten function, cleanly: no rows, no gnuplot error
	[[ $output == *"stopped at a program not written yet:"*" lab3"* ]]
	[ ! -e "$s/data/lab3.csv" ]
	[[ $output != *"STATS_"* && $output != *"undefined variable"* ]]
	[[ $output == *"still to write (not_written() is still called in):"*"labs/1-interleave/launch.c"*"labs/5-patterns/iopattern.c"* ]]
	[[ $output == *"== Summary"* ]]
	[[ $output != *"Segmentation fault"* && $output != *"core dumped"* && $output != *Aborted* ]]
	# the programs exit 3, not by a signal
	run "$s/bin/launch" true
	[ "$status" -eq 3 ]
	[ "$(grep -v '^trial ' <<<"$output")" = "launch: not written yet: barrier_open(): the start barrier (see labs/1-interleave/launch.c)" ]
	run "$s/bin/pwriters" --strategy pool:4 -d "$BATS_TEST_TMPDIR"
	[ "$status" -eq 3 ]
	[ "$(grep -c 'not written yet' <<<"$output")" -eq 1 ]	# one message, whichever thread got there first
	[ -z "$(find "$BATS_TEST_TMPDIR" -name 'pwriters.*')" ]
}

@test "make starter: a helper's test that runs a program still to write is skipped, naming it" {
	s=$(STARTER)
	run bats -f launch_wall "$s/tests/common.bats"
	[ "$status" -eq 0 ]
	[[ $output == *"# skip needs launch (labs/1-interleave/launch.c): still to be written"* ]]
}

@test "make starter LABS=1,2,3,4: the other labs' files, pages and index lines are left out" {
	s="$BATS_TEST_TMPDIR/four"
	run bash "$ROOT/grading/starter.sh" -o "$s" --labs 1,2,3,4 --no-build
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[[ $output == *"(labs 1,2,3,4 only)"* ]]
	[ "$(cd "$s" && ls -d labs/* | tr '\n' ' ')" = "labs/1-interleave labs/2-locking labs/3-threads labs/4-writers " ]
	# what is Lab 5's, found from the tree: its folder (programs, lab
	# script, tests, page), its figures, its reference data, the lines
	# that link its page
	[ -z "$(cd "$s" && ls plot/lab5-* data/reference/lab5-* 2>/dev/null)" ]
	[ -z "$(grep -rl iopattern "$s/tests" "$s"/labs/*/tests)" ]
	! grep -q '](labs/[56]-' "$s/handout.md" "$s/README.md" || { echo "Lab 5's or 6's lines left"; return 1; }
	grep -q '](labs/4-writers/README.md)' "$s/handout.md" && grep -q '^## Glossary' "$s/handout.md"
	grep -q '](labs/4-writers/README.md)' "$s/README.md"
	[ -e "$s/labs/4-writers/README.md" ]
	[ -e "$s/labs/4-writers/tests/lab4.bats" ] && [ -e "$s/plot/lab4-datagen.gp" ] && [ -e "$s/tests/helpers.bash" ]
	# its make knows only those labs
	[ "$(make -s -C "$s" help | sed -n 's/^make labN .*: //p')" = "lab1 lab2 lab3 lab4" ]
	# a lab whose programs a kept lab runs cannot be left out
	run bash "$ROOT/grading/starter.sh" -o "$BATS_TEST_TMPDIR/two" --labs 2,3 --no-build
	[ "$status" -eq 1 ]
	[[ $output == *"--labs 2,3: Lab 2 runs launch, a program of Lab 1: keep Lab 1 too"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/two" ]
	# a lab that runs a kit tool made from Python (Lab 6's crashstates) can be kept
	run bash "$ROOT/grading/starter.sh" -o "$BATS_TEST_TMPDIR/six" --labs 1,6 --no-build
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[ "$(cd "$BATS_TEST_TMPDIR/six" && ls -d labs/*)" = "$(printf 'labs/1-interleave\nlabs/6-fsync')" ]
}

@test "grade.sh on the starter: a low score, exit 0, no grader error" {
	run "$ROOT/grade.sh" --labs 1 "$(STARTER)"
	echo "$output"
	[ "$status" -eq 0 ]
	# no grader error (a note that the kit was made unreadable to others is not one)
	! grep -v '^grade.sh: note: ' <<<"$output" | grep -q 'grade.sh: '
	# it builds, but launch is not written and there are no results
	[[ $output == *"lab1: build launch: PASS"* ]]
	[[ $output == *"lab1: launch: concurrent start, -r, -f, times and rusage: FAIL"* ]]
	[[ $output == *"not written yet"* ]]
	[[ $output == *"data/lab1.csv: plausible values, 3+ real trials: FAIL"* ]]
	score=$(sed -n 's/^Score: \([0-9]*\)\/[0-9]*$/\1/p' <<<"$output")
	max=$("$ROOT/grade.sh" --list --labs 1 | awk -F'\t' '{ s += $2 } END { print s }')
	[ -n "$score" ] && [ "$score" -lt "$max" ]
	[ "$(sed -n 's/^Score: //p' <<<"$output")" = "$score/$max" ]
}

@test "make autograder: Gradescope's layout, setup.sh and run_autograder at the top" {
	zip="$BATS_FILE_TMPDIR/dist/autograder.zip"
	run zipped "$zip" list
	[ "$status" -eq 0 ]
	for f in setup.sh run_autograder autograder.conf grade.sh Makefile common/iolab.h grading/lab1/checks.py grading/gradelib.py grading/sandbox.py \
		grading/lab1/answers.md labs/1-interleave/launch.c tests/unit/test-common.c; do
		grep -qx "$f" <<<"$output" || { echo "missing: $f"; return 1; }
	done
	if grep -E '^(bin|build|dist|scratch)/|^data/[^/]*\.csv$|\.png$|^grading/(autograder|tests|lab[0-9]/tests)/' <<<"$output"; then
		return 1
	fi
	# the reference sources, regions and all
	zipped "$zip" cat labs/1-interleave/launch.c | cmp - "$ROOT/labs/1-interleave/launch.c"
	zipped "$zip" cat autograder.conf | grep -qx 'IOLAB_LABS=1'
	[ "$(zipped "$zip" modes run_autograder setup.sh grade.sh | grep -c '^-rwx')" -eq 3 ]
	bash -n "$ROOT/grading/autograder/setup.sh"
}

@test "run_autograder: a handin in a fake /autograder gives a full results.json" {
	fake_autograder
	cp kit/iolab-handin.tar.gz ag/submission/
	run env AUTOGRADER_ROOT="$PWD/ag" ag/source/run_autograder
	echo "$output"
	[ "$status" -eq 0 ]
	[ -s ag/results/results.json ]
	max=$("$ROOT/grade.sh" --list --labs 1 | awk -F'\t' '{ s += $2 } END { print s }')
	results_json ag/results/results.json "$max"
	grep -q '"name": "lab1: build launch"' ag/results/results.json
	[[ $output == *"Score: $max/$max"* ]]
}

@test "run_autograder: garbage, nothing, or a grading that breaks still give a failing results.json" {
	fake_autograder
	head -c 3000 /dev/urandom >ag/submission/iolab-handin.tar.gz
	AUTOGRADER_ROOT="$PWD/ag" ag/source/run_autograder
	failing_json ag/results/results.json "not a readable .tar.gz"

	rm ag/submission/*
	AUTOGRADER_ROOT=ag ag/source/run_autograder	# a relative root works too
	failing_json ag/results/results.json "No submission found"

}

@test "run_autograder: a grader that never ends or breaks still gives a failing results.json" {
	# A stand-in for grade.sh that prints a line and then never ends (or
	# exits 1), in a fake /autograder of its own: killed at the time limit
	# whatever the machine's speed.
	cd "$BATS_FILE_TMPDIR" || return 1
	mkdir -p stuck/source stuck/submission
	cp ag/source/run_autograder ag/source/autograder.conf stuck/source/ 2>/dev/null ||
		zipped "$BATS_FILE_TMPDIR/dist/autograder.zip" extract stuck/source
	cp kit/iolab-handin.tar.gz stuck/submission/
	printf '#!/usr/bin/env bash\necho "lab1: build launch: PASS"\nexec sleep 600\n' >stuck/source/grade.sh
	start=$(date +%s)
	AUTOGRADER_ROOT="$PWD/stuck" IOLAB_TIMEOUT=1 stuck/source/run_autograder
	failing_json stuck/results/results.json "did not finish in 1 s and was stopped"
	grep -q "lab1: build launch: PASS" stuck/results/results.json	# its last lines
	[ $(($(date +%s) - start)) -lt 60 ]

	printf '#!/usr/bin/env bash\necho "grade.sh: something broke"\nexit 1\n' >stuck/source/grade.sh
	AUTOGRADER_ROOT="$PWD/stuck" stuck/source/run_autograder
	failing_json stuck/results/results.json "Grading stopped (exit status 1)"
	grep -q "grade.sh: something broke" stuck/results/results.json
}

# fake_grade: a fake /grade in $BATS_FILE_TMPDIR/pl, the PrairieLearn zip's
# serverFilesCourse/ in it (once, with the kit's build, as fake_autograder),
# an empty student/ and no results/; the test then stands in its parent.
fake_grade() {
	cd "$BATS_FILE_TMPDIR" || return 1
	if [ ! -d pl/serverFilesCourse ]; then
		mkdir pl
		zipped "$BATS_FILE_TMPDIR/dist/prairielearn.zip" extract pl
		kit_build pl/serverFilesCourse/iolab
	fi
	rm -rf pl/student pl/results
	mkdir pl/student
}

# pl_json FILE SCORE: PrairieLearn's results.json, gradable, its score
# (0 to 1) SCORE (or below 1 for "low"), each test's points within its
# max_points and their sums the score.
pl_json() {
	python3 - "$1" "$2" <<-'PY'
	import json, sys
	r = json.load(open(sys.argv[1]))
	assert r["gradable"] is True and isinstance(r["message"], str) and isinstance(r["output"], str), r
	assert all(set(t) == {"name", "points", "max_points", "message", "output"} for t in r["tests"]), r["tests"]
	assert all(0 <= t["points"] <= t["max_points"] for t in r["tests"]), r["tests"]
	got, most = sum(t["points"] for t in r["tests"]), sum(t["max_points"] for t in r["tests"])
	assert most > 0 and r["score"] == round(got / most, 4), (r["score"], got, most)
	assert r["message"] == f"Score: {got}/{most}", r["message"]
	if sys.argv[2] == "low":
	    assert r["score"] < 0.5, r["score"]
	else:
	    assert r["score"] == float(sys.argv[2]), r["score"]
	for i in r["images"]:
	    assert i["label"].startswith("plot/lab1-") and i["url"].startswith("data:image/png;base64,iVBORw0KGgo"), i["label"]
	print(len(r["images"]))
	PY
}

@test "make autograder PLATFORM=prairielearn: the course's question and the kit under serverFilesCourse/iolab" {
	zip="$BATS_FILE_TMPDIR/dist/prairielearn.zip"
	run zipped "$zip" list
	[ "$status" -eq 0 ]
	for f in questions/iolab/info.json questions/iolab/question.html serverFilesCourse/iolab/run_prairielearn \
		serverFilesCourse/iolab/run_autograder serverFilesCourse/iolab/grade.sh serverFilesCourse/iolab/grading/lab1/checks.py; do
		grep -qx "$f" <<<"$output" || { echo "missing: $f"; return 1; }
	done
	! grep -Ev '^(questions/|serverFilesCourse/)' <<<"$output"
	zipped "$zip" cat questions/iolab/info.json | python3 -c '
import json, sys
q = json.load(sys.stdin)
o = q["externalGradingOptions"]
# gradingMethod turns external grading on; "enabled" is deprecated
assert q["gradingMethod"] == "External" and "enabled" not in o and o["serverFilesCourse"] == ["iolab/"], q
assert o["entrypoint"] == "/grade/serverFilesCourse/iolab/run_prairielearn" and o["timeout"] == 570, o'
	zipped "$zip" cat serverFilesCourse/iolab/autograder.conf | grep -qx 'IOLAB_LABS=1'
	[ "$(zipped "$zip" modes serverFilesCourse/iolab/run_prairielearn serverFilesCourse/iolab/run_autograder | grep -c '^-rwx')" -eq 2 ]
	run make -s -C "$ROOT" autograder PLATFORM=moodle DIST="$BATS_TEST_TMPDIR"
	[ "$status" -eq 2 ] && [[ $output == *"--platform: 'moodle' is neither gradescope nor prairielearn"* ]]
	# PrairieLearn refuses a question timeout over 600 s: 570 s of grading at most, said in one line
	run make -s -C "$ROOT" autograder PLATFORM=prairielearn GRADE_TIMEOUT=571 DIST="$BATS_TEST_TMPDIR"
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "autograder: --timeout: 571 s is over PrairieLearn's limit: its question's timeout (the grading's + 30 s) may be at most 600 s, so at most 570" ]
	[ ! -e "$BATS_TEST_TMPDIR/prairielearn.zip" ]
}

@test "run_prairielearn: a fake /grade grades the kit's handin to 1, with its figures, and the starter's low" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	fake_grade
	cp kit/iolab-handin.tar.gz pl/student/
	run env IOLAB_GRADE_ROOT="$PWD/pl" pl/serverFilesCourse/iolab/run_prairielearn
	echo "$output"
	[ "$status" -eq 0 ]
	images=$(pl_json pl/results/results.json 1.0)
	[ "$images" -eq "$(ls kit/plot/lab1-*.png | wc -l)" ]
	grep -q '"name": "lab1: build launch"' pl/results/results.json

	# the starter's files themselves (labs/ at the top of student/): a low score
	fake_grade
	cp -R "$(STARTER)/labs" pl/student/
	IOLAB_GRADE_ROOT="$PWD/pl" pl/serverFilesCourse/iolab/run_prairielearn >/dev/null
	[ "$(pl_json pl/results/results.json low)" -eq 0 ]
}

@test "run_prairielearn: no submission, or garbage, is not gradable and says why" {
	fake_grade
	IOLAB_GRADE_ROOT=pl pl/serverFilesCourse/iolab/run_prairielearn >/dev/null	# a relative root works too
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["gradable"] is False and r["score"] == 0 and "No submission found" in r["message"], r' pl/results/results.json
	head -c 3000 /dev/urandom >pl/student/iolab-handin.tar.gz
	IOLAB_GRADE_ROOT="$PWD/pl" pl/serverFilesCourse/iolab/run_prairielearn >/dev/null
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["gradable"] is False and r["score"] == 0 and "not a readable .tar.gz" in r["message"], r' pl/results/results.json
}

@test "run_prairielearn: results.json of a handin and of broken ones hold to PrairieLearn's documented fields and 1 MB" {
	fake_grade
	# the kit's handin with every figure a PNG of 390 KB that does not compress
	mkdir h && tar -xzf kit/iolab-handin.tar.gz -C h
	for gp in "$ROOT"/plot/lab*.gp; do
		{ printf '\211PNG\r\n\032\n'; head -c 390000 /dev/urandom; } >"h/iolab-handin/plot/$(basename "${gp%.gp}").png"
	done
	tar -czf pl/student/iolab-handin.tar.gz -C h iolab-handin
	IOLAB_GRADE_ROOT="$PWD/pl" pl/serverFilesCourse/iolab/run_prairielearn >/dev/null
	python3 "$ROOT/grading/tests/pl_results.py" pl/results/results.json gradable
	[ "$(stat -c %s pl/results/results.json)" -lt 1000000 ]
	grep -q "not shown: PrairieLearn takes at most 1 MB of results" pl/results/results.json

	# broken: garbage, nothing, a grader that breaks after a note naming the kit's path
	fake_grade
	head -c 3000 /dev/urandom >pl/student/iolab-handin.tar.gz
	IOLAB_GRADE_ROOT="$PWD/pl" pl/serverFilesCourse/iolab/run_prairielearn >/dev/null
	python3 "$ROOT/grading/tests/pl_results.py" pl/results/results.json ungradable
	python3 -c 'import json, sys; r = json.load(open(sys.argv[1])); assert r["format_errors"] == [r["message"]] and "iolab-handin.tar.gz: not a readable .tar.gz" in r["message"], r' pl/results/results.json
	fake_grade
	IOLAB_GRADE_ROOT="$PWD/pl" pl/serverFilesCourse/iolab/run_prairielearn >/dev/null
	python3 "$ROOT/grading/tests/pl_results.py" pl/results/results.json ungradable
	fake_grade
	cp -R pl broken && cp kit/iolab-handin.tar.gz broken/student/
	printf '#!/usr/bin/env bash\necho "grade.sh: note: made the kit unreadable to other users (chmod o-rwx $PWD)" >&2\necho "grade.sh: broke reading $PWD/grading"\nexit 1\n' \
		>broken/serverFilesCourse/iolab/grade.sh
	IOLAB_GRADE_ROOT="$PWD/broken" broken/serverFilesCourse/iolab/run_prairielearn >/dev/null
	python3 "$ROOT/grading/tests/pl_results.py" broken/results/results.json ungradable
	# its last line is quoted, the path made relative to the kit, and the note left out
	grep -q '"Grading stopped (exit status 1):\\ngrade.sh: broke reading grading"' broken/results/results.json
	! grep -q chmod broken/results/results.json
	rm -rf broken h
}

@test "grade.sh --batch: pl-scores.csv, PrairieLearn's score upload, a row per submission" {
	cd "$BATS_TEST_TMPDIR" || return 1
	mkdir subs
	cp -R "$(STARTER)" subs/starter
	head -c 3000 /dev/urandom >subs/garbage.tar.gz
	"$ROOT/grade.sh" --batch subs --out grades --labs 1 --pl-qid lab1q >batch.log 2>&1 || { cat batch.log; return 1; }
	grep -qx "wrote grades/pl-scores.csv" batch.log
	python3 - grades/pl-scores.csv grades/starter.json <<-'PY'
	import csv, json, sys
	rows = list(csv.reader(open(sys.argv[1])))
	r = json.load(open(sys.argv[2]))
	most = r["extra_data"]["max_score"]
	assert rows[0] == ["uid", "instance", "qid", "score_perc", "feedback"], rows[0]
	assert rows[1][:3] == ["garbage", "1", "lab1q"] and rows[1][3] == "0", rows[1]
	assert rows[1][4].startswith("The grader could not grade this submission: "), rows[1]
	assert rows[2] == ["starter", "1", "lab1q", str(round(100 * r["score"] / most, 2)), f"Score: {r['score']}/{most}"], rows[2]
	assert 0 < float(rows[2][3]) < 50 and len(rows) == 3, rows
	PY
}

@test "starter and autograder: shellcheck finds nothing" {
	command -v shellcheck >/dev/null || skip "shellcheck is not installed"
	shellcheck -S warning "$ROOT/grading/starter.sh" "$ROOT"/grading/autograder/*.sh \
		"$ROOT/grading/autograder/run_autograder" "$ROOT/grading/autograder/run_prairielearn"
}
