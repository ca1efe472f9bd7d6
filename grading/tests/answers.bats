#!/usr/bin/env bats
# The reference answers (grading/labN/answers.md) quote two kinds of
# number: those that follow from the kit itself (a lab's sizes at quick
# scale and what they imply: write(2) counts, lines lost, page faults), the
# same on every machine, and measured ones, an example from one run on a
# named machine that a student's data will not match. These tests hold the
# first kind to the lab scripts, so that a lab whose sizes change cannot
# leave its answers quoting the old ones (as Q1.3 and Q1.4 once did); and
# hold the second kind, in Labs 4 and 5, to the reference run they come
# from (grading/lab4/reference-run/, grading/lab5/reference-run/), as
# their closing tables print them.

load ../../tests/helpers

# quick VAR FILE: the quick-scale value of "VAR=...$(by_scale TINY QUICK FULL)" in FILE
quick() {
	sed -n "s/^$1=.*by_scale \([^ ]*\) \([^ )]*\) [^ )]*).*/\2/p" "$2"
}

# answer FILE Q: the text of question Q's answer in FILE
answer() {
	awk -v q="## $2" '$0 == q { on = 1; next } /^## / { on = 0 } on' "$1"
}

# comma N: N with thousands separators, as the answers write it
comma() {
	python3 -c "import sys; print(f'{int(sys.argv[1]):,}')" "$1"
}

@test "answers: Lab 1 quotes the lab's lines per writer, write counts and losses" {
	lab="$ROOT/labs/1-interleave/lab1.sh" ans="$ROOT/grading/lab1/answers.md"
	lines=$(quick LINES "$lab")
	[ -n "$lines" ]
	ow=$(sed -n 's/^OW_LINES=\([0-9]*\)$/\1/p' "$lab")
	[ -n "$ow" ]
	# Q1.3: one write(2) per line unbuffered; 2-byte lines in 4096-byte
	# buffers with the default (st_blksize 4096 in the reference machine)
	q=$(answer "$ans" Q1.3)
	[[ $q == *"$(comma "$lines") calls"* ]]
	[[ $q == *"$(comma $((2 * lines))) bytes / 4096 = $(((2 * lines + 4095) / 4096)) calls"* ]]
	# Q1.4: the two writers lose one writer's worth together
	[[ $(answer "$ans" Q1.4) == *"lose $(comma "$ow") lines together"* ]]
	[[ $(answer "$ans" Q1.4) == *"$(comma $((2 * ow))) bytes = $(comma "$ow") lines"* ]]
	# Q1.1: the run unit of a 4096-byte buffer of 2-byte lines
	[[ $(answer "$ans" Q1.1) == *"2048 lines"* ]]
}

@test "answers: Lab 3 quotes the faults the lab's buffer implies" {
	lab="$ROOT/labs/3-threads/lab3.sh" ans="$ROOT/grading/lab3/answers.md"
	size=$(quick size "$lab")
	[ "${size%M}" != "$size" ]	# in MiB
	mib=${size%M}
	q=$(answer "$ans" Q3.10)
	[[ $q == *"$mib MiB / 4 KiB = $(comma $((mib * 256))) faults"* ]]
	[[ $q == *"$mib MiB / 2 MiB = $((mib / 2)) with huge pages"* ]]
	[[ $(answer "$ans" Q3.4) == *"$(comma $((mib * 256))) in the copy of $mib MiB, 256 per MiB"* ]]
}

@test "answers: Labs 4 and 5 quote the medians of their reference run, as the closing tables print them" {
	python3 - "$ROOT" <<-'PY'
	import csv, math, os, re, statistics, sys
	root = sys.argv[1]
	sys.path.insert(0, os.path.join(root, "common"))
	from table import number  # the closing tables' format: 4 significant digits
	runs = [os.path.join(root, "grading", f"lab{lab}", "reference-run") for lab in (4, 5)]

	def reference(name):
	    """The reference run's file NAME, in Lab 4's or Lab 5's folder."""
	    return next(os.path.join(r, name) for r in runs if os.path.exists(os.path.join(r, name)))

	def answer(lab, q):
	    with open(os.path.join(root, "grading", f"lab{lab}", "answers.md")) as f:
	        m = re.search(rf"^## {re.escape(q)}\n(.*?)(?=^## |\Z)", f.read(), re.S | re.M)
	    return " ".join(m.group(1).split())

	def med(name, value, **where):
	    """The median of VALUE (a column, or a product of columns over 1e6)
	    over the rows of reference-run/NAME that match every COL=VALUE."""
	    with open(reference(name), newline="") as f:
	        rows = [r for r in csv.DictReader(f) if all(r[k] == str(v) for k, v in where.items())]
	    assert rows, (name, where)
	    cols = value.split("*")
	    return number(statistics.median(math.prod(float(r[c]) for c in cols) / (1e6 if len(cols) > 1 else 1)
	                                    for r in rows))

	def step4(strategy):
	    with open(reference("lab4-step4.txt")) as f:
	        return number(statistics.median(float(line.split()[6]) for line in f if line.split()[0] == strategy))

	w, d = "lab4-writers.csv", "lab5-depth.csv"
	want = {("4", "Q4.1"): [f"{med(w, 'mib_s', fsync=1, files=n, strategy=s)} / {med(w, 'cpu_mib_s', fsync=1, files=n, strategy=s)}"
	                        for n in (100, 500) for s in ("seq", "per-file", "io-thread", "pool")],
	        ("4", "Q4.2"): [f"{med(w, 'wall_s', fsync=1, files=500, strategy='seq')} s with fsync",
	                        f"{med(w, 'wall_s', fsync=0, files=500, strategy='seq')} s without",
	                        f"{med(w, 'cpu_s', fsync=1, files=500, strategy='seq')} s",
	                        f"{med(w, 'mib_s', fsync=0, files=500, strategy='seq')} MiB/s",
	                        f"{med('lab3-membw.csv', 'mib_s', threads=1, op='copy')} MiB/s"],
	        ("4", "Q4.3"): [f"{med(w, 'wall_s', fsync=f, files=500, strategy='per-file')} s against" for f in (1, 0)]
	        + [f"{med(w, 'mib_s', fsync=f, files=500, strategy='per-file')} against "
	           f"{med(w, 'mib_s', fsync=f, files=500, strategy='seq')} MiB/s" for f in (1, 0)],
	        ("4", "Q4.4"): [f"(median {step4(s)})" for s in ("seq", "per-file")],
	        ("4", "Q4.5"): [f"| {k} | " for k in (1, 2, 4, 8, 16, 32)]
	        + [f" | {med('lab4-step3.csv', 'mib_s', threads=k)} |" for k in (1, 2, 4, 8, 16, 32)],
	        ("4", "Q4.7"): [f"threaded median {med('lab4-datagen.csv', 'wall_s', mode='threaded')} s",
	                        f"sequential (-z) median {med('lab4-datagen.csv', 'wall_s', mode='sequential')} s",
	                        f"fill_s is {med('lab4-datagen.csv', 'fill_s', mode='sequential')} s",
	                        f"write_s {med('lab4-datagen.csv', 'write_s', mode='sequential')} s"],
	        ("5", "Q5.1"): [f"1 MiB: {med('lab5.csv', 'bytes_per_ns', experiment='read-size', series='cached', io_bytes=1048576)} bytes/ns"],
	        ("5", "Q5.2"): [f"{med('lab5.csv', 'bytes_per_ns', experiment='read-size', series='cached', io_bytes=b)} / "
	                        f"{med('lab5.csv', 'bytes_per_ns', experiment='read-size', series='direct', io_bytes=b)}" for b in (4096, 4194304)]
	        + [f"{med('lab5.csv', 'lat_p50_us', experiment='read-size', series='cached', io_bytes=b)} us" for b in (4096, 4194304)],
	        ("5", "Q5.4"): [f"cached {med('lab5.csv', 'bytes_per_ns', experiment='write-size', series='cached', io_bytes=4096)} bytes/ns",
	                        f"fsync-end {med('lab5.csv', 'bytes_per_ns', experiment='write-size', series='fsync-end', io_bytes=4096)}",
	                        f"fsync-each {med('lab5.csv', 'bytes_per_ns', experiment='write-size', series='fsync-each', io_bytes=4096)}"],
	        ("5", "Q5.6"): [f"{med('lab5.csv', 'bytes_per_ns', experiment='read-size', series='direct', io_bytes=b)} / "
	                        f"{med('lab5.csv', 'bytes_per_ns', experiment='random-read', series='direct', io_bytes=b)}" for b in (4096, 1048576)],
	        ("5", "Q5.10"): [f"depth {q} {med(d, 'iops', experiment='depth', iodepth=q)} IOPS, p50 {med(d, 'lat_p50_us', experiment='depth', iodepth=q)} us"
	                         for q in (1, 8, 32, 64)],
	        ("5", "Q5.11"): [", ".join(med(d, "iops", experiment="threads", jobs=j) for j in (2, 4)) + " and " + med(d, "iops", experiment="threads", jobs=8),
	                         ", ".join(med(d, "iops", experiment="depth", iodepth=q) for q in (2, 4)) + " and " + med(d, "iops", experiment="depth", iodepth=8)],
	        ("5", "Q5.12"): [f"depth {q}: {med(d, 'iops*lat_mean_us', experiment='depth', iodepth=q)}" for q in (1, 8, 32)]
	        + [f"4 threads: {med(d, 'iops*lat_mean_us', experiment='threads', jobs=4)}"]}
	missing = [f"{q}: '{text}'" for (lab, q), texts in want.items() for text in texts if text not in answer(lab, q)]
	assert not missing, "not in the answers:\n" + "\n".join(missing)
	PY
}

@test "answers: every question of the handout has a reference answer" {
	local d n
	for d in "$ROOT"/labs/[1-9]-*/; do
		n=${d%/}; n=${n##*/}; n=${n%%-*}
		want=$(grep -o '^- \*\*Q'$n'\.[0-9]*' "$ROOT/handout.md" | sed 's/^- \*\*//' | sort -u)
		have=$(grep -o '^## Q'$n'\.[0-9]*$' "$ROOT/grading/lab$n/answers.md" | sed 's/^## //' | sort -u)
		[ "$want" = "$have" ] || { echo "lab $n: handout $want, answers $have"; return 1; }
	done
}

@test "answers and handout: every data file and figure they name is one the kit writes or draws" {
	local name missing=
	for name in $(grep -oh 'lab[0-9]-[a-z-]*\.\(csv\|png\)\|lab[0-9]\.csv' "$ROOT"/grading/lab*/answers.md "$ROOT/handout.md" | sort -u); do
		case $name in
		# a CSV is written by a lab script, or is a source's table
		*.csv) grep -q "DATA/$name" "$ROOT"/labs/*/lab*.sh || [ -e "$ROOT/data/reference/$name" ] ||
			missing="$missing $name" ;;
		# a figure is drawn from its script
		*.png) [ -e "$ROOT/plot/${name%.png}.gp" ] || missing="$missing $name" ;;
		esac
	done
	[ -z "$missing" ] || { echo "named but never written:$missing"; return 1; }
}
