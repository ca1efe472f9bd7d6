#!/usr/bin/env bats
# The reference answers (grading/answers/labN.md) quote two kinds of
# number: those that follow from the kit itself (a lab's sizes at quick
# scale and what they imply: write(2) counts, lines lost, page faults), the
# same on every machine, and measured ones, an example from one run on a
# named machine that a student's data will not match. These tests hold the
# first kind to the lab scripts, so that a lab whose sizes change cannot
# leave its answers quoting the old ones (as Q1.3 and Q1.4 once did).

load helpers

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
	lab="$ROOT/labs/1-interleave/lab1.sh" ans="$ROOT/grading/answers/lab1.md"
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
	lab="$ROOT/labs/3-threads/lab3.sh" ans="$ROOT/grading/answers/lab3.md"
	size=$(quick size "$lab")
	[ "${size%M}" != "$size" ]	# in MiB
	mib=${size%M}
	q=$(answer "$ans" Q3.10)
	[[ $q == *"$mib MiB / 4 KiB = $(comma $((mib * 256))) faults"* ]]
	[[ $q == *"$mib MiB / 2 MiB = $((mib / 2)) with huge pages"* ]]
	[[ $(answer "$ans" Q3.4) == *"$(comma $((mib * 256))) in the copy of $mib MiB, 256 per MiB"* ]]
}

@test "answers: every question of the handout has a reference answer" {
	local d n
	for d in "$ROOT"/labs/[1-9]-*/; do
		n=${d%/}; n=${n##*/}; n=${n%%-*}
		want=$(grep -o '^- \*\*Q'$n'\.[0-9]*' "$ROOT/handout.md" | sed 's/^- \*\*//' | sort -u)
		have=$(grep -o '^## Q'$n'\.[0-9]*$' "$ROOT/grading/answers/lab$n.md" | sed 's/^## //' | sort -u)
		[ "$want" = "$have" ] || { echo "lab $n: handout $want, answers $have"; return 1; }
	done
}

@test "answers and handout: every data file and figure they name is one the kit writes or draws" {
	local name missing=
	for name in $(grep -oh 'lab[0-9]-[a-z-]*\.\(csv\|png\)\|lab[0-9]\.csv' "$ROOT"/grading/answers/*.md "$ROOT/handout.md" | sort -u); do
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
