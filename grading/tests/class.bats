#!/usr/bin/env bats
# make class: a generated class of submissions merged into the class's CSVs
# and figures (grading/classresults). The class is made once per file: the
# labs run at SCALE=tiny for one real submission (the reference the
# grader's suites grade, run once for them all: grading.bash), which
# grading/tests/class-gen.py copies into 50 submissions on 50 machines with their
# values perturbed, plus hostile ones (malformed, forged, links, '..'
# names, a gzip bomb) that must be left out, each with its reason.

load ../../tests/helpers
load grading

GOOD=50

setup_file() {
	[ -d "$ROOT/grading/classresults" ] || return 0	# the students' kit: see need_kit
	mkdir "$BATS_FILE_TMPDIR/ref" && cd "$BATS_FILE_TMPDIR/ref" || return 1
	reference_kit $(cd "$ROOT/labs" && ls -d [0-9]-* | cut -d- -f1) || return 1
	cd "$BATS_FILE_TMPDIR" || return 1
	# the template: the results make handin packs (those the figures are
	# drawn from, and machine.txt), and the sources, packed along
	mkdir -p kit/iolab-handin
	cp -R ref/unpacked/iolab-handin/data kit/iolab-handin/
	cp -R "$ROOT/labs" kit/iolab-handin/
	python3 "$ROOT/grading/tests/class-gen.py" kit/iolab-handin subs -n "$GOOD" --hostile >expected.tsv || return 1
	# the merge, as an instructor runs it, from the kit
	(cd "$ROOT" && make -s class SUBMISSIONS="$BATS_FILE_TMPDIR/subs" CLASS="$BATS_FILE_TMPDIR/out") \
		>merge.txt 2>&1
	echo $? >merge.status
}

# need_kit: the instructor's kit; the students' has no grading/.
need_kit() {
	[ -d "$ROOT/grading/classresults" ] || skip "no grading/: this is the students' kit"
}

# subs FILE: the anonymous ids in the tidy CSV out/FILE, one a line.
subs() {
	tail -n +2 "$BATS_FILE_TMPDIR/out/$1" | cut -d, -f1 | sort -u
}

@test "class: make class exits 0 and says how many it merged" {
	need_kit
	cat "$BATS_FILE_TMPDIR/merge.txt"
	[ "$(cat "$BATS_FILE_TMPDIR/merge.status")" -eq 0 ]
	total=$(wc -l <"$BATS_FILE_TMPDIR/expected.tsv")
	# the hostile ones that could not be read at all: their reason names no data file
	whole=$(cut -f2 "$BATS_FILE_TMPDIR/expected.tsv" | grep -cv '^lab[0-9a-z-]*\.csv')
	grep -qx "merged $((GOOD + total - whole)) of $((GOOD + total)) submissions (.* machines) into .* s; $whole left out entirely" \
		"$BATS_FILE_TMPDIR/merge.txt"
}

@test "class: every hostile submission is left out, in one line naming it and saying why" {
	need_kit
	while IFS=$'\t' read -r name why; do
		said=$(grep -F "left out" "$BATS_FILE_TMPDIR/merge.txt" | grep -F " $name (sub ")
		[ "$(grep -c . <<<"$said")" -eq 1 ] || { echo "$name: $(grep -c . <<<"$said") lines"; return 1; }
		[[ $said == *"$why"* ]] || { echo "$name: expected '$why' in: $said"; return 1; }
	done <"$BATS_FILE_TMPDIR/expected.tsv"
	# and no generated good one
	run grep "left out.* s[0-9]\{4\}\.tar\.gz" "$BATS_FILE_TMPDIR/merge.txt"
	[ "$status" -eq 1 ]
	# nothing was written where the hostile names point
	[ ! -e "$BATS_FILE_TMPDIR/evil" ] && [ ! -e "$BATS_FILE_TMPDIR/subs/evil" ]
}

@test "class: a tidy CSV per data file, every good submission in each, the left-out ones in none" {
	need_kit
	local f expected
	# (lab5-depth.csv: from every other generated submission, below;
	# lab6-states.csv is not merged: the same on every machine; nor are the
	# medians a lab writes for its figures)
	for f in $(cd "$BATS_FILE_TMPDIR/kit/iolab-handin/data" && ls -- *.csv | grep -vx -e lab5-depth.csv -e lab6-states.csv -e '.*-medians\.csv'); do
		# the good ones, and the hostile ones whose bad data are in another file
		expected=$((GOOD + $(cut -f2 "$BATS_FILE_TMPDIR/expected.tsv" | grep '^lab[0-9a-z-]*\.csv' | grep -cv "^${f}[ :]")))
		[ "$(subs "$f" | wc -l)" -eq "$expected" ] || { echo "$f: $(subs "$f" | wc -l) submissions, expected $expected"; return 1; }
		head -1 "$BATS_FILE_TMPDIR/out/$f" | grep -q '^sub,machine,cpu,cores,kernel,scratch_fs,storage,'
	done
	# every row of every submission: as many as the real one has
	rows=$(($(wc -l <"$BATS_FILE_TMPDIR/kit/iolab-handin/data/lab1.csv") - 1))
	[ "$(tail -n +2 "$BATS_FILE_TMPDIR/out/lab1.csv" | wc -l)" -eq $((rows * $(subs lab1.csv | wc -l))) ]
	# lab5-depth.csv, from every other generated submission
	[ "$(subs lab5-depth.csv | wc -l)" -eq $((GOOD / 2)) ]
	col=$(head -1 "$BATS_FILE_TMPDIR/out/lab5-depth.csv" | tr , '\n' | grep -nx iodepth | cut -d: -f1)
	[ "$(tail -n +2 "$BATS_FILE_TMPDIR/out/lab5-depth.csv" | cut -d, -f"$col" | sort -un | tr '\n' ' ')" = "1 2 4 8 16 32 " ]
	# the left-out ones, by file, in left-out.csv
	[ "$(grep -c ',lab5.csv,' "$BATS_FILE_TMPDIR/out/left-out.csv")" -eq \
		"$(cut -f2 "$BATS_FILE_TMPDIR/expected.tsv" | grep -c '^lab5.csv[ :]')" ]
}

@test "class: Lab 6's time per save by storage: its rows with their storage, unknown without scratch_dir_storage, the figure's kinds" {
	need_kit
	out=$BATS_FILE_TMPDIR/out
	# the generated submissions: those whose machine.txt is as machine.sh
	# wrote it before it told the storage, and the kinds the others have
	local old=0 t kinds
	for t in "$BATS_FILE_TMPDIR"/subs/s*.tar.gz; do
		tar -xzOf "$t" iolab-handin/data/machine.txt | grep -q '^scratch_dir_storage: ' || old=$((old + 1))
	done
	[ "$old" -ge 1 ] && [ "$old" -lt "$GOOD" ]
	col=$(head -1 "$out/submissions.csv" | tr , '\n' | grep -nx storage | cut -d: -f1)
	[ "$(tail -n +2 "$out/submissions.csv" | cut -d, -f"$col" | grep -cx unknown)" -eq "$old" ]
	# every Lab 6 row of a submission carries its storage; several kinds
	col=$(head -1 "$out/lab6-cost.csv" | tr , '\n' | grep -nx storage | cut -d: -f1)
	kinds=$(tail -n +2 "$out/lab6-cost.csv" | cut -d, -f"$col" | sort -u)
	[ "$(grep -c . <<<"$kinds")" -ge 4 ] && grep -qx unknown <<<"$kinds" && grep -qx memory <<<"$kinds"
	[ "$(tail -n +2 "$out/lab6-cost.csv" | cut -d, -f1,"$col" | sort -u | cut -d, -f1 | uniq -d)" = "" ]
	# ... and the figure draws each kind, with and without fsync: memory's
	# fsync costs little beside any disk's
	[ "$(tail -n +2 "$out/plot/lab6-save-kinds.dat" | cut -d, -f2 | sort | tr '\n' ' ')" = "$(tr '\n' ' ' <<<"$kinds")" ]
	python3 - "$out/plot" <<-'EOF'
		import csv, sys
		kinds = {r["label"]: float(r["x"]) for r in csv.DictReader(open(sys.argv[1] + "/lab6-save-kinds.dat"))}
		med = {(float(r["x"]), r["sync"]): float(r["median"]) for r in csv.DictReader(open(sys.argv[1] + "/lab6-save-boxes.dat"))}
		def m(kind, sync):
		    return med[(kinds[kind] + (0.2 if sync == "1" else -0.2), sync)]
		assert m("memory", "1") < 10 * m("memory", "0"), med
		for disk in set(kinds) & {"nvme", "ssd", "vm-disk", "hdd", "network"}:
		    assert m(disk, "1") > 10 * m("memory", "1"), (disk, med)
	EOF
	# one old submission read by itself: storage unknown; a new one: its kind
	run python3 -c "
import sys, tarfile; sys.path.insert(0, '$ROOT')
from grading.classresults import merge
for t in sys.argv[1:]:
    m = tarfile.open(t).extractfile('iolab-handin/data/machine.txt').read().decode()
    told = [l.split()[1] for l in m.splitlines() if l.startswith('scratch_dir_storage: ')]
    r = merge.process(('s', ('path', t), '', b''))
    print(told[0] if told else 'old', r['ident'][-1])" "$BATS_FILE_TMPDIR"/subs/s000[0-9].tar.gz
	echo "$output"
	[ "$status" -eq 0 ]
	[ -z "$(grep -v -e '^old unknown$' -e '^\([a-z-]*\) \1$' <<<"$output")" ]
	grep -q '^old unknown$' <<<"$output"
	# the impossible Lab 6 row: that submission's Lab 6 left out, saying why
	grep -q ',lab6-cost.csv,"lab6-cost.csv line 2: us_per_save 0.5 is not wall_s / saves (' "$out/left-out.csv"
}

@test "class: machine.sh tells the storage it can, as the class reads it; no findmnt still writes the line" {
	need_kit
	local kinds line
	kinds=$(cd "$ROOT" && python3 -c "from grading.classresults import measures; print(' '.join(measures.STORAGE_KINDS))")
	bash "$ROOT/common/machine.sh" . m.txt
	line=$(grep '^scratch_dir_storage: ' m.txt)
	[[ " $kinds " == *" $(cut -d' ' -f2 <<<"$line") "* ]] || { echo "not a kind the class knows: $line"; return 1; }
	if [ "$(findmnt -n -o FSTYPE --target /dev/shm 2>/dev/null | tail -1)" = tmpfs ]; then
		bash "$ROOT/common/machine.sh" /dev/shm shm.txt
		grep -qx 'scratch_dir_storage: memory tmpfs' shm.txt
	fi
	# without findmnt (a minimal container): stat and /sys, or unknown
	mkdir nofindmnt
	for c in bash cat date uname sed head tail getconf awk stat rm mv tr ls basename dirname readlink cc; do
		ln -s "$(command -v "$c")" nofindmnt/
	done
	PATH=$PWD/nofindmnt bash "$ROOT/common/machine.sh" . old.txt
	line=$(grep '^scratch_dir_storage: ' old.txt)
	[[ " $kinds " == *" $(cut -d' ' -f2 <<<"$line") "* ]] || { echo "not a kind the class knows: $line"; return 1; }
	[ "$(grep -c . old.txt)" -eq "$(grep -c . m.txt)" ]
}

@test "class: ids are keyed hashes: no name or file name in the class's files; the same on a second run" {
	need_kit
	out=$BATS_FILE_TMPDIR/out
	run grep -rIl -e 'hostile' -e 's00[0-9][0-9]' -e 'tar\.gz' -e 'iolab-handin' --exclude=.secret --exclude=left-out.csv "$out"
	[ "$status" -eq 1 ] || { echo "names in: $output"; return 1; }
	# left-out.csv's reasons: a name from inside an archive shows as "(a name)";
	# only the readers' own words may mention a .tar.gz
	run bash -c "sed -e 's/not a readable \.tar\.gz//' -e 's/several \.tar\.gz files, none of them iolab-handin\.tar\.gz//' '$out/left-out.csv' |
		grep -e hostile -e 's00[0-9][0-9]' -e 'tar\.gz' -e iolab-handin"
	[ "$status" -eq 1 ] || { echo "names in left-out.csv: $output"; return 1; }
	grep -q '(a name)' "$out/left-out.csv"
	[ -z "$(subs lab1.csv | grep -v '^[0-9a-f]\{12\}$')" ]
	[ "$(stat -c %a "$out/.secret")" = 600 ]
	# a second merge into the same CLASS keeps the ids; another CLASS has others
	mkdir again
	cp -R "$BATS_FILE_TMPDIR/subs/s0001.tar.gz" "$BATS_FILE_TMPDIR/subs/s0002.tar.gz" again/
	mkdir same && cp "$out/.secret" same/
	(cd "$ROOT" && python3 -B -m grading.classresults merge --out "$BATS_TEST_TMPDIR/same" "$BATS_TEST_TMPDIR/again" >/dev/null)
	(cd "$ROOT" && python3 -B -m grading.classresults merge --out "$BATS_TEST_TMPDIR/other" "$BATS_TEST_TMPDIR/again" >/dev/null)
	[ "$(tail -n +2 same/submissions.csv | cut -d, -f1 | sort | comm -12 - <(subs submissions.csv) | wc -l)" -eq 2 ]
	[ "$(tail -n +2 other/submissions.csv | cut -d, -f1 | sort | comm -12 - <(subs submissions.csv) | wc -l)" -eq 0 ]
}

@test "class: a figure per lab, each caption with its submissions, machines and left-out count" {
	need_kit
	local fig file left
	for fig in lab1-lost:lab1.csv lab2-fflush:lab2.csv lab3-threads:lab3.csv lab4-wall-cpu:lab4-writers.csv lab5-iops:lab5.csv lab6-fsync:lab6-cost.csv; do
		file=${fig#*:} fig=${fig%:*}
		[ "$(head -c 4 "$BATS_FILE_TMPDIR/out/$fig.png" | od -An -c | tr -d ' ')" = '211PNG' ]
		[ "$(stat -c %s "$BATS_FILE_TMPDIR/out/$fig.png")" -gt 10000 ]
		left=$(($(cut -f2 "$BATS_FILE_TMPDIR/expected.tsv" | grep -cv '^lab[0-9a-z-]*\.csv') +
			$(cut -f2 "$BATS_FILE_TMPDIR/expected.tsv" | grep -c "^${file}[ :]")))
		grep -q "^drew .*/$fig.png: $(subs "$file" | wc -l) submissions on [0-9]* machines.*; $left left out " \
			"$BATS_FILE_TMPDIR/merge.txt" || { echo "no caption for $fig with $left left out"; return 1; }
	done
}

@test "class: predictions.png from the generated class's handins (predictions.md in each tarball but every sixth)" {
	need_kit
	local i with=0 none=0
	# class-gen.py: every sixth copy hands none in; every ninth writes no number for P4.2
	for ((i = 0; i < GOOD; i++)); do
		((i % 6 == 5)) && continue
		with=$((with + 1))
		((i % 9 == 4)) && none=$((none + 1))
	done
	[ "$(head -c 4 "$BATS_FILE_TMPDIR/out/predictions.png" | od -An -c | tr -d ' ')" = '211PNG' ]
	grep -q "^drew .*/predictions.png: P4.1 $with drawn, [0-9]* missing; P4.3 $with drawn, " "$BATS_FILE_TMPDIR/merge.txt"
	grep -q " / P4.2 $((with - none)) drawn, [0-9]* missing, $none unparseable\$" "$BATS_FILE_TMPDIR/merge.txt"
	[ "$(grep -c ',predictions.md,P4.2: no positive number' "$BATS_FILE_TMPDIR/out/left-out.csv")" -eq "$none" ]
	[ "$(grep -c ',P4\.1,' "$BATS_FILE_TMPDIR/out/plot/predictions.csv")" -eq "$with" ]
}

@test "class: predictions.png: each prediction beside its lab's own measurement; missing and unparseable ones counted" {
	need_kit
	cd "$BATS_FILE_TMPDIR" || return 1
	local kit=kit/iolab-handin s
	# three folder submissions of the template's data, unperturbed: one
	# predicting in several units (P4.2 with no number), one with no
	# predictions.md, one predicting P4.1 only
	for s in s1 s2 s3; do mkdir -p "pred/$s" && cp -R "$kit/data" "pred/$s/"; done
	sed -e 's/^\(- P4\.1 [^:]*:\).*/\1 0.05 s/' -e 's/^\(- P4\.3 [^:]*:\).*/\1 200 ms/' \
		-e 's/^\(- P4\.2 [^:]*:\).*/\1 about a second/' -e 's/^\(- P2\.4 [^:]*:\).*/\1 0.01/' \
		-e 's/^\(- P6\.2 [^:]*:\).*/\1 1,500 us/' "$ROOT/predictions.md" >pred/s1/predictions.md
	printf '## Lab 4\n- P4.1 per-file, in s: 2e-3\n' >pred/s3/predictions.md
	(cd "$ROOT" && python3 -B -m grading.classresults merge -j 1 --out "$BATS_FILE_TMPDIR/pred-out" "$BATS_FILE_TMPDIR/pred") >pred.txt 2>&1 ||
		{ cat pred.txt; return 1; }
	[ "$(head -c 4 pred-out/predictions.png | od -An -c | tr -d ' ')" = '211PNG' ]
	# key, predicted: s1's four, in the line's unit, and s3's one
	[ "$(tail -n +2 pred-out/plot/predictions.csv | cut -d, -f8,9 | sort | tr '\n' ' ')" = \
		"P2.4,0.01 P4.1,0.002 P4.1,0.05 P4.3,0.2 P6.2,1500 " ]
	# measured: what the lab's closing line prints (common/predict.py median)
	local top want
	top=$(tail -n +2 "$kit/data/lab4-writers.csv" | cut -d, -f4 | sort -n | tail -1)
	want=$(python3 "$ROOT/common/predict.py" median "$kit/data/lab4-writers.csv" wall_s strategy=per-file files="$top" fsync=1)
	python3 -c 'import sys; assert abs(float(sys.argv[1]) / float(sys.argv[2]) - 1) < 1e-3, sys.argv' \
		"$(grep -m1 ',P4\.1,0\.05,' pred-out/plot/predictions.csv | cut -d, -f10)" "$want"
	want=$(python3 "$ROOT/common/predict.py" median "$kit/data/lab6-cost.csv" us_per_save strategy=safe)
	python3 -c 'import sys; assert abs(float(sys.argv[1]) / float(sys.argv[2]) - 1) < 1e-3, sys.argv' \
		"$(grep -m1 ',P6\.2,' pred-out/plot/predictions.csv | cut -d, -f10)" "$want"
	# the captions count what was left out; left-out.csv names the unparseable key
	grep -q "^drew .*/predictions.png: P4.1 2 drawn, 1 missing; P4.3 1 drawn, 2 missing / " pred.txt
	grep -q " / P4.2 0 drawn, 2 missing, 1 unparseable$" pred.txt
	[ "$(grep -c ',predictions.md,' pred-out/left-out.csv)" -eq 1 ]
	grep -q ',predictions.md,P4.2: no positive number in the prediction$' pred-out/left-out.csv
}

@test "class: the percentile lines of one student, and of one whose data were left out" {
	need_kit
	run bash -c "cd '$ROOT' && python3 -B -m grading.classresults percentile --class-data '$BATS_FILE_TMPDIR/out' '$BATS_FILE_TMPDIR/subs/s0007.tar.gz'"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output =~ lab5:\ your\ 4K\ random\ read\ \(O_DIRECT\):\ [0-9.]+k?\ IOPS,\ class\ median\ [0-9.]+k?,\ [0-9]+(st|nd|rd|th)\ percentile\ of\ 5[0-9] ]]
	[[ $output =~ lab2:\ your\ fflush\ before\ every\ unlock\ at\ K\ =\ 1:\ [0-9.]+x\ the\ time\ without ]]
	# the percentile agrees with the class's values in submissions.csv
	mine=$(python3 -c "
import sys; sys.path.insert(0, '$ROOT')
from grading.classresults import merge
r = merge.process(('s', ('path', '$BATS_FILE_TMPDIR/subs/s0007.tar.gz'), '', b''))
print(r['metrics']['lab5_rr4k_iops'])")
	col=$(head -1 "$BATS_FILE_TMPDIR/out/submissions.csv" | tr , '\n' | grep -nx lab5_rr4k_iops | cut -d: -f1)
	pct=$(tail -n +2 "$BATS_FILE_TMPDIR/out/submissions.csv" | cut -d, -f"$col" | grep . |
		awk -v m="$mine" '{ n++; if ($1 < m) b++; else if ($1 == m) e++ } END { p = int(100 * (b + e / 2) / n + 0.5); print (p < 1 ? 1 : p > 99 ? 99 : p) }')
	[[ $output =~ \ $pct(st|nd|rd|th)\ percentile ]] || { echo "expected the ${pct}th percentile"; return 1; }

	run bash -c "cd '$ROOT' && python3 -B -m grading.classresults percentile --class-data '$BATS_FILE_TMPDIR/out' '$BATS_FILE_TMPDIR/subs/hostile-nan.tar.gz'"
	[ "$status" -eq 0 ]
	[[ $output == *"lab5: your data/lab5.csv was left out of the class figures: lab5.csv line 2: wall_s 'nan' is not a number"* ]]
	[[ $output != *"4K random read"* ]]
}

@test "class: grade.sh --class-data puts a student's place in the class into the report and results.json" {
	run "$ROOT/grade.sh" --labs 5 --only answers --class-data "$BATS_FILE_TMPDIR/out" --json r.json \
		"$BATS_FILE_TMPDIR/subs/s0007.tar.gz"
	[ "$status" -eq 0 ]
	[[ $output == *"Your measurements in the class:"*"4K random read"*"percentile of 5"* ]]
	[[ $(tail -1 <<<"$output") == "Score: "* ]]
	python3 -c "import json; r = json.load(open('r.json')); assert 'percentile of 5' in r['output'], r['output']"
}

@test "class: Gradescope's download-all zip, read in place: one command, the figures, CLASS relative to the kit" {
	need_kit
	python3 "$ROOT/grading/tests/class-gen.py" "$BATS_FILE_TMPDIR/kit/iolab-handin" gs -n 10 --seed 7 --zip
	# CLASS as make class's default (class) is: a path relative to the kit
	rel=$(realpath --relative-to="$ROOT" "$BATS_TEST_TMPDIR/gsout")
	run bash -c "cd '$ROOT' && make -s class SUBMISSIONS='$BATS_TEST_TMPDIR/gs/export.zip' CLASS='$rel'"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"merged 10 of 11 submissions"* ]]
	[[ $output == *"left out submission_9999 (sub "*"): submission: data/lab1.csv is a link or special file"* ]]
	[ "$(tail -n +2 gsout/lab1.csv | cut -d, -f1 | sort -u | wc -l)" -eq 10 ]
	for fig in lab1-lost lab2-fflush lab3-threads lab4-wall-cpu lab5-iops lab6-fsync; do [ -s "gsout/$fig.png" ]; done
	run grep -rIl -e 'submission_' -e 'A Student' --exclude=.secret gsout
	[ "$status" -eq 1 ] || { echo "names in: $output"; return 1; }
}

@test "class: a zip made with plain zip -r (directory entries) reads as Gradescope's" {
	need_kit
	command -v zip >/dev/null && command -v unzip >/dev/null || skip "zip and unzip are not installed (apt-get install zip unzip)"
	python3 "$ROOT/grading/tests/class-gen.py" "$BATS_FILE_TMPDIR/kit/iolab-handin" gs -n 10 --seed 7 --zip
	mkdir plain && unzip -q gs/export.zip -d plain
	(cd plain && zip -qry ../plain.zip .)	# -y: the link stays a link
	unzip -Z1 plain.zip | grep -q '/$'	# it has directory entries
	run bash -c "cd '$ROOT' && make -s class SUBMISSIONS='$BATS_TEST_TMPDIR/plain.zip' CLASS='$BATS_TEST_TMPDIR/out'"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"merged 10 of 11 submissions"* ]]
	[[ $output != *"control characters"* ]]
	# left-out.csv says why, as the output does, naming nothing from inside
	# (its rows of predictions with no number: the predictions test's)
	[ "$(tail -n +2 out/left-out.csv | grep -v '^[0-9a-f]*,predictions\.md,' | cut -d, -f2-)" = \
		"*,submission: (a name) is a link or special file" ]
}

@test "class: byte-identical copies of one submission are listed in copies.csv" {
	need_kit
	mkdir three
	for name in alice bob carol; do cp "$BATS_FILE_TMPDIR/subs/s0003.tar.gz" "three/$name.tar.gz"; done
	cp "$BATS_FILE_TMPDIR/subs/s0004.tar.gz" three/dave.tar.gz
	run bash -c "cd '$ROOT' && python3 -B -m grading.classresults merge -j 1 --out '$BATS_TEST_TMPDIR/out' '$BATS_TEST_TMPDIR/three'"
	echo "$output"
	[ "$status" -eq 0 ]
	files=$(cd "$BATS_FILE_TMPDIR/kit/iolab-handin/data" && ls -- lab*.csv | grep -cvx -e lab6-states.csv -e '.*-medians\.csv')
	# bob and carol each beside alice (whichever id came first), for every data file; dave nowhere
	[ "$(tail -n +2 out/copies.csv | grep -c ',the same bytes$')" -eq $((2 * files)) ]
	[ "$(tail -n +2 out/copies.csv | cut -d, -f1,2 | tr , '\n' | sort -u | wc -l)" -eq 3 ]
	[[ $output == *"$((2 * files)) pair(s) of submissions with the same data"* ]]
	# the generated class: each good submission perturbed, none listed; the
	# hostile ones, all edits of one submission, beside each other
	grep -q '^copies? ' "$BATS_FILE_TMPDIR/merge.txt"
	for sub in $(sed -n 's/^copies? sub \([0-9a-f]*\) and sub \([0-9a-f]*\):.*/\1 \2/p' "$BATS_FILE_TMPDIR/merge.txt"); do
		grep -q "left out.* (sub $sub)" "$BATS_FILE_TMPDIR/merge.txt" || { echo "a good submission listed: $sub"; return 1; }
	done
}

@test "class: usage errors: no SUBMISSIONS, CLASS inside SUBMISSIONS, a bad -j" {
	need_kit
	run make -s -C "$ROOT" class
	[ "$status" -ne 0 ]
	[[ $output == *"make class SUBMISSIONS=DIR"* ]]
	mkdir subs && cp "$BATS_FILE_TMPDIR/subs/s0001.tar.gz" subs/
	run bash -c "cd '$ROOT' && python3 -B -m grading.classresults merge --out '$BATS_TEST_TMPDIR/subs/class' '$BATS_TEST_TMPDIR/subs'"
	usage_fails
	[[ ${lines[0]} == *"--out: "*"is inside SUBMISSIONS"* ]]
	[ ! -e subs/class ]
	run bash -c "cd '$ROOT' && python3 -B -m grading.classresults merge -j zero subs"
	usage_fails
	[[ ${lines[0]} == *"-j: 'zero' is not a count"* ]]
	run bash -c "cd '$ROOT' && python3 -B -m grading.classresults --help"
	[ "$status" -eq 0 ] && [[ ${lines[0]} == usage:* ]]
}

@test "class: the unit tests of grading/classresults (grading/tests/test_classresults.py)" {
	need_kit
	run python3 -I -B "$ROOT/grading/tests/test_classresults.py" -v
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *OK* ]]
}
