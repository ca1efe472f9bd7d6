#!/usr/bin/env bash
# handin.sh - packs a submission for grade.sh: labs/ sources (.c, .h), the results
# and the machine description, the figures and answers.md, into
# iolab-handin.tar.gz. Refuses, listing what is missing, when a piece is
# absent.  LABS=1,2 packs only those labs (default: every lab).
#
# Each lab's data/labN-load.txt goes in too: the scale its data was run at
# and how busy the machine was (common/load.py). The grader refuses data
# run at SCALE=tiny, and the class results leave out tiny and BUSY runs;
# handin says so here, before the student hands them in.
#
# The tarball holds one directory, iolab-handin/, and at its top labs.txt:
# the labs handed in, one line of lab numbers in increasing order joined by
# commas, no spaces ("1,2\n"; every lab when LABS is not set). The grader
# grades those labs, and counts only their checks and questions.
set -euo pipefail
cd "$(dirname "$0")/.."

all=$(ls -d labs/[0-9]-* | sed 's|labs/\([0-9]\).*|\1|' | sort -n | paste -sd, -)
labs=${LABS:-$all}
[[ $labs =~ ^[0-9]+(,[0-9]+)*$ ]] ||
	{ echo "handin: LABS='$labs' is not a list of lab numbers like 1,2 (labs: $all)" >&2; exit 2; }
labs=$(tr , '\n' <<<"$labs" | sort -nu | paste -sd, -)
out=iolab-handin.tar.gz
files=() missing=() pages=()

need() {
	if [ -s "$1" ]; then files+=("$1"); else missing+=("$1"); fi
}

need data/machine.txt
need answers.md
# the student's predictions (handout: "Predict, then measure"): packed when
# there, never required
[ ! -s predictions.md ] || files+=(predictions.md)
for lab in ${labs//,/ }; do
	dir=$(ls -d labs/"$lab"-* 2>/dev/null) || { echo "handin: LABS=$labs: there is no lab $lab (labs: $all)" >&2; exit 2; }
	# a lab's page, which asks its questions (a course that dropped it by hand)
	grep -q "^# Lab $lab:" "$dir/README.md" 2>/dev/null ||
		{ echo "handin: $dir has no page README.md opening '# Lab $lab:'" >&2; exit 1; }
	pages+=(--questions "$dir/README.md")
	need data/lab"$lab"-load.txt
	# the student's own headers too: the grader builds with them
	for src in "$dir"/*.c "$dir"/*.h "$dir"/*.sh; do
		[ -e "$src" ] && files+=("$src")
	done
	for gp in plot/lab"$lab"-*.gp; do
		[ -e "$gp" ] || continue
		need "${gp%.gp}.png"
		# the results each figure is drawn from
		for csv in $(grep -o "data/lab[0-9][A-Za-z0-9_-]*\.csv" "$gp"); do
			need "$csv"
		done
	done
done
# The grader's own parser and rules (common/answers.py) read answers.md: a
# lab with no answer at all is refused; a question of any lab handed in
# left unanswered (of those its page asks), or answered in too few words
# to count, is a warning.
if [ -s answers.md ]; then
	check=$(python3 common/answers.py answers.md "${pages[@]}" ${labs//,/ }) || true
	while IFS= read -r line; do
		case $line in
		error:*) missing+=("${line#error: }") ;;
		warning:*) echo "handin: ${line#warning: }" >&2 ;;
		esac
	done <<<"$check"
fi

if [ ${#missing[@]} -gt 0 ]; then
	echo "handin: not packed; missing:" >&2
	printf '%s\n' "${missing[@]}" | sort -u | sed 's/^/  /' >&2
	echo "Run the labs (make labs), write answers.md (## Q1.1 ...), then make handin again." >&2
	exit 1
fi

# What the grader and the class results make of each lab's run: a warning,
# never a refusal (a student may hand in what they have).
for lab in ${labs//,/ }; do
	load=data/lab$lab-load.txt
	scale=$(sed -n 's/^scale: //p' "$load")
	verdict=$(sed -n 's/^verdict: //p' "$load")
	case $scale in
	quick | full) ;;
	tiny) echo "handin: Lab $lab was run at SCALE=tiny (the tests' size): the grader refuses its data; run make lab$lab (SCALE=quick, the default) and make handin again" >&2 ;;
	*) echo "handin: $load names no scale (written by an older kit): the grader refuses its data; run make lab$lab and make handin again" >&2 ;;
	esac
	case " $verdict " in
	*" busy "*) echo "handin: Lab $lab ran on a BUSY machine ($load): the class results leave it out; re-run make lab$lab when the machine is idle, or say so in your answers" >&2 ;;
	esac
done

# One top directory, files in a stable order, no owner names; labs.txt,
# written in a directory of its own, goes in first.
tmp="$out.tmp"
stage=$(mktemp -d)
trap 'rm -rf "$tmp" "$stage"' EXIT
echo "$labs" >"$stage/labs.txt"
printf '%s\n' "${files[@]}" | sort -u |
	tar -czf "$tmp" --owner=0 --group=0 --numeric-owner --transform 's|^|iolab-handin/|' \
		-C "$stage" labs.txt -C "$PWD" -T -
mv "$tmp" "$out"
echo "wrote $out (labs $labs, $(printf '%s\n' "${files[@]}" | sort -u | wc -l) files and labs.txt): hand this file in."
