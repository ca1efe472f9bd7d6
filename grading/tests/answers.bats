#!/usr/bin/env bats
# The reference answers (grading/labN/answers.md), every lab's: a
# reference answer for every question of its page, and only data files
# and figures the kit writes. What an answer quotes is held to the lab by
# the lab's own grading/labN/tests/answers-labN.bats: numbers that follow
# from the lab script (Labs 1 and 3), or medians of its reference run
# (Labs 4 and 5).

load ../../tests/helpers

@test "answers: every question of a lab's page has a reference answer" {
	local d n
	for d in "$ROOT"/labs/[1-9]-*/; do
		n=${d%/}; n=${n##*/}; n=${n%%-*}
		want=$(grep -o '^- \*\*Q'$n'\.[0-9]*' "$d/README.md" | sed 's/^- \*\*//' | sort -u)
		[ -n "$want" ] || { echo "lab $n: its page asks no question"; return 1; }
		have=$(grep -o '^## Q'$n'\.[0-9]*$' "$ROOT/grading/lab$n/answers.md" | sed 's/^## //' | sort -u)
		[ "$want" = "$have" ] || { echo "lab $n: page $want, answers $have"; return 1; }
	done
}

@test "answers, handout and lab pages: every data file and figure they name is one the kit writes or draws" {
	local name missing=
	for name in $(grep -oh 'lab[0-9]-[a-z-]*\.\(csv\|png\)\|lab[0-9]\.csv' "$ROOT"/grading/lab*/answers.md "$ROOT/handout.md" "$ROOT"/labs/*/README.md | sort -u); do
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
