#!/usr/bin/env bats
# One Lab 1 wall_s, one declaration, one parser: odd values written into
# one row's wall_s of a tiny-scale reference handin, each in a copy of its
# own, then graded (the data check, grade.sh --only) and merged (make
# class's merge). The grader and the class take or refuse each value the
# same way, as labs/1-interleave/columns.csv and trials.csv declare and
# common/columns.py parses: a number in decimal or exponent form, no sign,
# within trials.csv's bounds (0 < wall_s < 600).

load ../../../tests/helpers
load ../../tests/grading

# name|the value written|whether both must take it
ODD='reference||take
exponent|7.209e-03|take
fraction20|0.01234567890123456789|take
thousand|1e3|refuse
zero|0|refuse
minus-zero|-0.0|refuse
minus-one|-1|refuse
nan|nan|refuse
inf|inf|refuse
underscore|1_000|refuse
hex|0x10|refuse
space| 1.5|refuse
empty||refuse
comma|1,5|refuse
digits30|123456789012345678901234567890|refuse
fraction21|0.012345678901234567890|refuse
huge|1e400|refuse'

setup_file() {
	[ -d "$ROOT/grading/classresults" ] || return 0	# the students' kit: see need_kit
	cd "$BATS_FILE_TMPDIR" || return 1
	mkdir subs
	reference_kit 1 || return 1
	local name value verdict
	while IFS='|' read -r name value verdict; do
		variant "$name"
		[ "$name" = reference ] && continue
		# line 2's wall_s (written as CSV: "1,5" quoted, " 1.5" as it is)
		python3 - "subs/$name/data/lab1.csv" "$value" <<-'EOF' || return 1
			import csv, sys
			with open(sys.argv[1], newline="") as f:
			    rows = list(csv.reader(f))
			rows[1][rows[0].index("wall_s")] = sys.argv[2]
			with open(sys.argv[1], "w", newline="") as f:
			    csv.writer(f, lineterminator="\n").writerows(rows)
		EOF
	done <<<"$ODD"
	# one grading each, of the data check alone (--batch grades every
	# check), two at a time
	mkdir grades
	(cd subs && printf '%s\n' *) | xargs -P 2 -I NAME sh -c \
		'"$1/grade.sh" --labs 1 --only "data/lab1.csv: plausible" subs/NAME >grades/NAME.txt 2>&1' sh "$ROOT"
	(cd "$ROOT" && python3 -B -m grading.classresults merge --out "$BATS_FILE_TMPDIR/out" "$BATS_FILE_TMPDIR/subs") \
		>merge.log 2>&1
	# each submission's verdicts: NAME, the grader's (take/refuse), the class's
	(cd "$ROOT" && python3 -B - "$BATS_FILE_TMPDIR") >verdicts.tsv <<-'EOF'
		import csv, os, re, sys
		from grading.classresults.merge import anonymous_id, load_secret
		tmp = sys.argv[1]
		key = load_secret(os.path.join(tmp, "out"))
		with open(os.path.join(tmp, "out", "left-out.csv"), newline="") as f:
		    left = {(r["sub"], r["file"]): r["reason"] for r in csv.DictReader(f)}
		for name in sorted(os.listdir(os.path.join(tmp, "subs"))):
		    with open(os.path.join(tmp, "grades", name + ".txt")) as f:
		        m = re.search(r"^lab1: data/lab1.csv: plausible values.*: (PASS|FAIL)", f.read(), re.M)
		    grader = {"PASS": "take", "FAIL": "refuse"}[m.group(1)] if m else "no verdict"
		    why = left.get((anonymous_id(key, name), "lab1.csv"))
		    print(name, grader, "refuse" if why else "take", why or "", sep="\t")
	EOF
}

need_kit() {
	[ -d "$ROOT/grading/classresults" ] || skip "no grading/: this is the students' kit"
}

@test "odd-values: grade.sh and make class take or refuse each odd wall_s alike, as declared" {
	need_kit
	cat "$BATS_FILE_TMPDIR/verdicts.tsv"
	local name value verdict grader class
	while IFS='|' read -r name value verdict; do
		read -r grader class < <(awk -F'\t' -v n="$name" '$1 == n { print $2, $3 }' "$BATS_FILE_TMPDIR/verdicts.tsv")
		echo "$name '$value': grader $grader, class $class, declared $verdict"
		[ "$grader" = "$verdict" ] && [ "$class" = "$verdict" ]
	done <<<"$ODD"
	[ "$(wc -l <"$BATS_FILE_TMPDIR/verdicts.tsv")" -eq "$(grep -c . <<<"$ODD")" ]
}

@test "odd-values: each refusal says why, in the grader's report and in left-out.csv" {
	need_kit
	grep -q "data/lab1.csv line 2: wall_s '-1' has a sign" "$BATS_FILE_TMPDIR/grades/minus-one.txt"
	grep -q "data/lab1.csv line 2: wall_s 1000 is not between 0 and 600" "$BATS_FILE_TMPDIR/grades/thousand.txt"
	grep -q "data/lab1.csv line 2: wall_s '1e400' is out of range" "$BATS_FILE_TMPDIR/grades/huge.txt"
	run grep -P "^minus-one\t.*\tlab1.csv line 2: wall_s '-1' has a sign" "$BATS_FILE_TMPDIR/verdicts.tsv"
	[ "$status" -eq 0 ]
	run grep -P '^thousand\t.*\tlab1.csv line 2: wall_s 1000 is not between 0 and 600$' "$BATS_FILE_TMPDIR/verdicts.tsv"
	[ "$status" -eq 0 ]
}
