#!/usr/bin/env bash
# grading/starter.sh - makes the students' starter kit from the reference kit.
#
# The kit's sources are the reference solutions. The parts that are the
# students' to write are marked in the C sources (*.c, *.h):
#
#	/* BEGIN SOLUTION */
#	... the reference code ...
#	/* END SOLUTION */
#	/* STUB
#	// TODO: what to write here
#	not_written("what is missing");
#	*/
#
# Each marker is alone on its line. The STUB block is optional; when there is
# one, it comes right after END SOLUTION (no line in between) and its lines
# replace the region in the starter; without one the region is removed. A
# one-line stub is also fine: /* STUB return -1; */. A STUB cannot hold a
# /* comment */ (its */ would end the block in the reference): use //.
# not_written() (common/iolab.h) says what is missing and exits 3.
#
# In the kit, each region is the whole body of one function (a test checks
# it), so that a stub is a TODO comment and not_written(): the kit's CFLAGS
# (-Wno-unused-parameter) let a stub leave its parameters unused, and a
# helper that only a region calls lives in a common/ header or is marked
# __attribute__((unused)) (clang warns of an unused static function in a .c
# file, inline or not). The starter must compile with the kit's -Werror,
# here with this machine's compiler; .ci/toolchains builds it with others.
#
# The starter is the kit without the grader: grading/ (its checks, reference
# answers, tests and fixtures, this tool) and grade.sh are left out, as is
# setup.cfg (make lint's settings), and every region is replaced. Every
# test a student gets lives outside grading/: tests/ (the kit's own) and
# labs/N-topic/tests/ (each lab's). Its README ends before "## For
# instructors", where everything about these tools is. It is built in a
# temporary directory, compiled with the kit's default CFLAGS (-Werror),
# and only then renamed into place: never half a starter.
#
# --labs 1,2,3,4 makes a starter for a course without the other labs. What
# belongs to a lab is found in the tree: labs/N-*/ (its programs, lab
# script and tests), plot/labN-*.gp, data/reference/labN-*, and the
# lines of handout.md and README.md that link its page (labs/N-*/README.md,
# which goes with its folder). A lab left out whose
# programs a kept lab runs (its lab_begin line names them) is refused.
set -euo pipefail

KIT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
PROG=starter.sh

usage() {
	cat <<-EOF
	usage: grading/starter.sh [-o DIR] [--labs LIST] [--no-build]
	       grading/starter.sh --strip FILE
	  -o DIR      where to write the starter kit (default dist/starter, in the kit)
	  --labs LIST only these labs, e.g. 1,2,3,4 (default: every lab): the
	              others' programs, lab scripts, figure scripts, tests,
	              reference data, pages and index lines are left out
	  --no-build  do not check that the starter compiles without warnings
	  --strip FILE
	              print FILE with its solution regions replaced by their stubs
	  -h, --help  this help
	  Marker errors name the file and line; the exit status is then 1.
	EOF
}

die() { echo "$PROG: $*" >&2; exit 1; }
usage_error() { echo "$PROG: $*" >&2; usage >&2; exit 2; }

# The strip itself, in POSIX awk (mawk, gawk, busybox): FILE on stdin-less
# awk, the stripped text on stdout, "FILE:LINE: message" on stderr and exit
# status 1 at the first error. -v name=FILE is the name used in messages.
# States: 0 ordinary code, 1 inside a region, 2 the line right after END
# SOLUTION (a STUB may open there), 3 inside a STUB block.
# shellcheck disable=SC2016
STRIP_AWK='
function trim(s) { sub(/^[ \t]+/, "", s); sub(/[ \t\r]+$/, "", s); return s }
function fail(line, msg) {
	printf "%s:%d: %s\n", name, line, msg > "/dev/stderr"
	failed = 1
	exit 1
}
{
	t = trim($0)
	begin = t == "/* BEGIN SOLUTION */"
	end = t == "/* END SOLUTION */"
	stub = t ~ /^\/\*[ \t]*STUB([^A-Za-z0-9_]|$)/
	marker = $0 ~ /(BEGIN|END)[ \t]+SOLUTION/ || $0 ~ /\/\*[ \t]*STUB([^A-Za-z0-9_]|$)/
	if (state == 2) {
		state = 0
		if (stub) {
			if (t == "/* STUB") { state = 3; opened = NR; next }
			if (t ~ /\*\/$/) {
				body = t
				sub(/^\/\*[ \t]*STUB[ \t]*/, "", body)
				sub(/[ \t]*\*\/$/, "", body)
				if (index(body, "/*") || index(body, "*/"))
					fail(NR, "a STUB cannot hold a /* comment */ (its */ ends the STUB): use //")
				match($0, /^[ \t]*/)
				print substr($0, 1, RLENGTH) body
				next
			}
			fail(NR, "a STUB block opens with a line holding only \"/* STUB\", or is one line: /* STUB code */")
		}
		# no stub: the region is removed, and this line is ordinary code
	}
	if (state == 3) {
		if (t == "*/") { state = 0; next }
		if (marker)
			fail(NR, "a solution marker inside the STUB block opened at line " opened)
		if (index($0, "/*") || index($0, "*/"))
			fail(NR, "a STUB block cannot hold a /* comment */ (its */ ends the STUB): use //")
		print
		next
	}
	if (state == 1) {
		if (begin)
			fail(NR, "nested BEGIN SOLUTION: the region opened at line " opened " is not closed")
		if (end) { state = 2; next }
		if (stub)
			fail(NR, "STUB inside the solution region opened at line " opened " (a STUB goes right after END SOLUTION)")
		if (marker)
			fail(NR, "malformed solution marker: a marker is alone on its line, exactly /* END SOLUTION */")
		next
	}
	if (begin) { state = 1; opened = NR; next }
	if (end)
		fail(NR, "END SOLUTION without a BEGIN SOLUTION")
	if (stub)
		fail(NR, "STUB block not right after an END SOLUTION")
	if (marker)
		fail(NR, "malformed solution marker: a marker is alone on its line, exactly /* BEGIN SOLUTION */ or /* END SOLUTION */")
	print
}
END {
	if (failed)
		exit 1
	if (state == 1)
		fail(opened, "BEGIN SOLUTION never closed: no END SOLUTION before the end of the file")
	if (state == 3)
		fail(opened, "STUB block never closed: no line holding only */ before the end of the file")
}'

# strip FILE NAME: FILE stripped on stdout; NAME is how messages name it.
strip() {
	awk -v name="$2" "$STRIP_AWK" "$1"
}

# What goes into the starter, relative to the kit (and below: plot/*.gp,
# data/reference/, docs/speed-goals.md, docs/platforms.md and .devcontainer/).
KIT_ITEMS=(Makefile README.md handout.md predictions.md .gitignore common labs tests)

# looks_like_starter DIR: DIR is a starter this tool made, safe to replace.
looks_like_starter() {
	[ -f "$1/Makefile" ] && [ -d "$1/labs" ] && [ ! -e "$1/grade.sh" ] && [ ! -d "$1/grading" ]
}

# drop_lab DIR N: removes lab N's files from the starter in DIR.
drop_lab() {
	local dir=$1 lab=$2
	# its page goes with its folder; the lines that link the page (the
	# index of labs in handout.md and README.md) go too
	grep -q "](labs/$lab-[^)]*/README.md)" "$dir/handout.md" ||
		die "handout.md has no line linking Lab $lab's page (labs/$lab-*/README.md) in its index of labs"
	rm -rf "$dir"/labs/"$lab"-* "$dir"/plot/lab"$lab"-*.gp "$dir"/data/reference/lab"$lab"-*
	sed -i "\|](labs/$lab-[^)]*/README.md)|d" "$dir/handout.md" "$dir/README.md"
}

# check_labs LIST: every lab in LIST exists, and no lab left out has a
# program that a kept lab runs.
check_labs() {
	local keep=",$1," lab dir prog needs
	for lab in ${1//,/ }; do
		ls -d labs/"$lab"-* >/dev/null 2>&1 || die "--labs: there is no lab $lab (labs: $(ls -d labs/[0-9]-* | sed 's|labs/\([0-9]\).*|\1|' | paste -sd, -))"
	done
	for dir in labs/[0-9]-*; do
		lab=${dir#labs/}; lab=${lab%%-*}
		[[ $keep == *",$lab,"* ]] || continue
		# lab_begin "TITLE" PROG...: the programs the lab runs
		needs=$(sed -n 's/^lab_begin "[^"]*" //p' "$dir"/lab*.sh)
		for prog in $needs; do
			# a program is a .c file, or a kit tool such as Lab 6's crashstates.py
			src=$(compgen -G "labs/*/$prog.c" || compgen -G "labs/*/$prog.py") ||
				die "Lab $lab runs $prog, which no labs/*/$prog.c or .py makes"
			other=${src#labs/}; other=${other%%-*}
			[[ $keep == *",$other,"* ]] || die "--labs $1: Lab $lab runs $prog, a program of Lab $other: keep Lab $other too"
		done
	done
}

make_starter() {
	local out=$1 build=$2 labs=$3 parent tmp rel errors=0 regions=0 left lab
	case $out in /*) ;; *) out="$PWD/$out" ;; esac
	parent=$(dirname "$out")
	cd "$KIT"
	[ "$(cd "$parent" 2>/dev/null && pwd)/$(basename "$out")" != "$KIT" ] || die "-o: $out is the kit itself"
	[ -z "$labs" ] || check_labs "$labs"
	if [ -e "$out" ] && ! looks_like_starter "$out"; then
		die "$out exists and is not a starter kit (it has no Makefile and labs/, or has grade.sh): remove it or choose another -o"
	fi
	mkdir -p "$parent"
	tmp=$(mktemp -d "$parent/.starter.XXXXXX") || die "cannot make a temporary directory in $parent"
	chmod "$(umask -S)" "$tmp"	# mktemp's 700 would stay on the starter
	# shellcheck disable=SC2064
	trap "rm -rf '$tmp' '$tmp.old'" EXIT

	local item
	for item in "${KIT_ITEMS[@]}"; do
		[ -e "$item" ] || die "$KIT/$item is missing"
		cp -R "$item" "$tmp/"
	done
	mkdir -p "$tmp/plot" "$tmp/data"
	cp plot/*.gp "$tmp/plot/"
	# of docs/, only what the students' README links to
	for doc in docs/speed-goals.md docs/platforms.md; do
		[ ! -e "$doc" ] || { mkdir -p "$tmp/docs" && cp "$doc" "$tmp/docs/"; }
	done
	[ ! -d data/reference ] || cp -R data/reference "$tmp/data/"
	# the dev container, for students on macOS or Windows (README.md)
	[ ! -d .devcontainer ] || cp -R .devcontainer "$tmp/"
	# The README's last section is for instructors, about tools students do
	# not get: the starter's README ends before it.
	awk '/^## For instructors/ { exit } !/#for-instructors/' README.md >"$tmp/README.md"
	if [ -n "$labs" ]; then
		for lab in $(ls -d labs/[0-9]-* | sed 's|labs/\([0-9]\).*|\1|'); do
			[[ ",$labs," == *",$lab,"* ]] || drop_lab "$tmp" "$lab"
		done
	fi
	# editor, build and Python leftovers
	find "$tmp" \( -name '*.tmp' -o -name '*~' -o -name '.*.swp' -o -name '*.o' \) -type f -delete
	find "$tmp" -name __pycache__ -type d -prune -exec rm -rf {} +

	# Every C source and header, stripped from the kit's own copy, so that
	# messages name the kit's files and lines.
	while IFS= read -r rel; do
		rel=${rel#./}
		if ! strip "$KIT/$rel" "$rel" >"$tmp/$rel"; then
			errors=$((errors + 1))
		fi
		regions=$((regions + $(grep -cE '^[[:space:]]*/\* BEGIN SOLUTION \*/[[:space:]]*$' "$KIT/$rel" || true)))
	done < <(cd "$tmp" && find . -type f \( -name '*.c' -o -name '*.h' \) | sort)
	[ "$errors" -eq 0 ] || die "$errors file(s) with marker errors (above): no starter written"
	left=$(cd "$tmp" && grep -rlE '(BEGIN|END)[[:space:]]+SOLUTION|/\*[[:space:]]*STUB' \
		--include='*.c' --include='*.h' --include='*.sh' --include=Makefile . || true)
	[ -z "$left" ] || die "solution markers left in: $left"

	if [ "$build" -eq 1 ]; then
		echo "$PROG: compiling the starter (the kit's CFLAGS, -Werror) ..."
		if ! env -u CFLAGS -u EXTRA_CFLAGS make -C "$tmp" -s --no-print-directory all >"$tmp.log" 2>&1; then
			sed "s|$tmp/||g" "$tmp.log" >&2
			rm -f "$tmp.log"
			die "the starter does not compile: fix the STUB blocks named above (no starter written)"
		fi
		rm -f "$tmp.log"
		rm -rf "${tmp:?}/bin" "${tmp:?}/build"
	fi

	if [ -e "$out" ]; then
		mv "$out" "$tmp.old"
	fi
	mv "$tmp" "$out"
	rm -rf "$tmp.old"
	echo "wrote $out: the kit with $regions solution regions replaced by their stubs, without grade.sh and grading/${labs:+ (labs $labs only)}"
}

main() {
	local out="$KIT/dist/starter" build=1 strip_file="" labs=""
	while [ $# -gt 0 ]; do
		case $1 in
		-o) [ $# -ge 2 ] || usage_error "-o needs a DIR"; out=$2; shift 2 ;;
		--no-build) build=0; shift ;;
		--labs)
			[[ ${2:-} =~ ^[1-9](,[1-9])*$ ]] || usage_error "--labs: '${2:-}' is not a list like 1,2"
			labs=$2; shift 2 ;;
		--strip) [ $# -ge 2 ] || usage_error "--strip needs a FILE"; strip_file=$2; shift 2 ;;
		-h | --help) usage; exit 0 ;;
		*) usage_error "unknown argument '$1'" ;;
		esac
	done
	if [ -n "$strip_file" ]; then
		[ -f "$strip_file" ] || die "$strip_file: no such file"
		strip "$strip_file" "$strip_file"
		return
	fi
	make_starter "$out" "$build" "$labs"
}

main "$@"
