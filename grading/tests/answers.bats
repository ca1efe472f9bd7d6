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

@test "answers: a page's rubric says what earns the points; the answer is in grading/labN/answers.md" {
	# the rubrics the issue found giving answers away, and pages whose text
	# gave one away (Q3.3's and Q6.7's background, Q4.4's count): the answer
	# is in the reference answers, and on no page
	while IFS='|' read -r n q answer; do
		page=$(ls "$ROOT"/labs/"$n"-*/README.md)
		grep -q "^- \*\*$q[* ]" "$page" || { echo "$page does not ask $q"; return 1; }
		# the text as one line: a phrase may be broken across two
		! tr -s ' \n' '  ' <"$page" | grep -qF "$answer" || { echo "$page gives away $q: $answer"; return 1; }
		awk -v q="## $q" '$0 == q { on = 1; next } /^## / { on = 0 } on' "$ROOT/grading/lab$n/answers.md" |
			tr -s ' \n' '  ' | grep -qF "$answer" || { echo "lab$n/answers.md: $q lacks '$answer'"; return 1; }
	done <<-'LIST'
	1|Q1.5|4096 is not a multiple of 3
	3|Q3.9|1 for 12 bytes
	4|Q4.6|32 GiB per CPU-second
	3|Q3.3|seeds only the calling thread
	4|Q4.4|400 creations
	6|Q6.7|PRAGMA synchronous=EXTRA
	LIST
	# and no page's rubric quotes a model answer ("1 for \"...\"", as they did)
	# (a rubric for every question: the pages' questions and rubrics are as many)
	[ "$(cat "$ROOT"/labs/*/README.md | grep -oE '\*(Rubric )?\([0-9]+ (points?|pts)' | wc -l)" -eq \
		"$(cat "$ROOT"/labs/*/README.md | grep -cE '^- \*\*Q[0-9]+\.[0-9]+')" ]
	run grep -nE '1 for "' "$ROOT"/labs/*/README.md
	[ "$status" -eq 1 ] || { echo "$output"; return 1; }
}
