#!/usr/bin/env bash
# grade.sh - grades an iolab submission.
#
# A submission (a directory, or the .tar.gz that `make handin` makes) holds
# the student's labs/ sources, data/*.csv, data/machine.txt, plot/*.png and
# answers.md. The grader
#   1. unpacks it safely into a fresh temporary directory (the submission
#      itself is never modified),
#   2. builds the student's programs in a clean copy of the kit: the kit's
#      Makefile and common/, with only labs/*/*.c taken from the submission,
#   3. runs functional checks (grading/labN.sh) on randomized inputs, and
#      performance checks against the kit's own programs run alongside,
#      every student program contained (see contain below),
#   4. checks data/, plot/ and answers.md,
# and prints one line per check and `Score: X/Y`. Written answers are listed
# for grading by hand with the handout's rubric; the script does not score them.
set -uo pipefail

KIT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
PROG=grade.sh

usage() {
	cat <<-EOF
	usage: ./grade.sh [--labs LIST] [--json FILE] [--keep] [SUBMISSION]
	       ./grade.sh --batch DIR [-j N] [--out CLASS.csv] [--labs LIST]
	       ./grade.sh --list
	  SUBMISSION  a directory or a .tar.gz from \`make handin\`;
	              none: grade the kit itself (after \`make labs\`)
	  --labs LIST only these labs, e.g. 1,2 (default: all)
	  --json FILE write Gradescope's results.json to FILE as well
	  --keep      keep the scratch directory and say where it is
	  --list      print every check with its points, grade nothing
	  --batch DIR grade every *.tar.gz and directory in DIR, N at a time
	              (default 2), each into DIR/NAME.json, and write a class
	              CSV (default DIR/class.csv): one row per submission, one
	              column per check
	  -h, --help  this help
	EOF
}

die() { echo "$PROG: $*" >&2; exit 1; }
usage_error() { echo "$PROG: $*" >&2; usage >&2; exit 2; }

# Limits for anything a student wrote; generous for correct programs.
MAX_TAR_BYTES=$((200 * 1024 * 1024))	# unpacked submission
MAX_TAR_ENTRIES=5000
LIMIT_FSIZE=$((512 * 1024 * 1024))	# largest file a program may write
LIMIT_AS=$((2 * 1024 * 1024 * 1024))	# address space
LIMIT_PROCS=128				# processes and threads per program run

# ---------------------------------------------------------------- results

NAMES=() SCORES=() MAXES=() OUTPUTS=() LABS_OF=()
JSON_OUT="" KEEP=0 WORK="" FINISHED=0 LIST_ONLY=0 LABS=""

# record LAB NAME SCORE MAX OUTPUT
record() {
	LABS_OF+=("$1") NAMES+=("$2") SCORES+=("$3") MAXES+=("$4") OUTPUTS+=("$5")
}

# check LAB POINTS TITLE FUNCTION [ARGS...]: runs one check. The function
# prints why it failed (its last lines are the reason and how to reproduce
# it) and returns non-zero. A check never stops the grading.
check() {
	local lab=$1 points=$2 title=$3 start out status secs
	shift 3
	if [ "$LIST_ONLY" -eq 1 ]; then
		printf '%s\t%d\t%s\n' "$lab" "$points" "$title"
		return
	fi
	start=$(date +%s%N)
	# In $RUN, where student programs run; umask 000 so that files the
	# grader prepares there can be written by the contained program.
	out=$(cd "$RUN" && umask 000 && "$@" 2>&1)
	status=$?
	secs=$(awk -v ns=$(($(date +%s%N) - start)) 'BEGIN { printf "%.1f", ns / 1e9 }')
	if [ "$status" -eq 0 ]; then
		printf '%s: %s: PASS %d/%d (%ss)\n' "$lab" "$title" "$points" "$points" "$secs"
		record "$lab" "$title" "$points" "$points" "PASS"
	else
		printf '%s: %s: FAIL 0/%d (%ss)\n' "$lab" "$title" "$points" "$secs"
		printf '%s\n' "$out" | tail -n 6 | sed 's/^/    /'
		record "$lab" "$title" 0 "$points" "$out"
	fi
}

# ---------------------------------------------------------------- containment

# contain SECONDS CMD...: runs a student's program in $RUN with HOME there,
# under a time limit and resource limits (CPU, file size, processes,
# memory) and, when bubblewrap is installed, in a sandbox with no network,
# a read-only system, the kit and the grader's files hidden, and only $RUN
# writable. As root, the program runs as nobody so that the process limit
# holds. Exit status 124 means the time ran out.
CONTAINMENT=""
contain() {
	local secs=$1
	shift
	(
		cd "$RUN" || exit 1
		export HOME="$RUN"
		exec timeout -k 2 "$secs" "${DROP[@]}" \
			prlimit --cpu="$((secs * 2))" --fsize="$LIMIT_FSIZE" --as="$LIMIT_AS" \
			--nproc="$NPROC" --core=0 -- "${SANDBOX[@]}" "$@"
	)
}

setup_containment() {
	DROP=() SANDBOX=()
	local user=$USER_NAME
	if [ "$(id -u)" -eq 0 ]; then
		DROP=(setpriv --reuid=nobody --regid=nogroup --clear-groups)
		user=nobody
		chmod 755 "$WORK"
		chmod 777 "$RUN"
	fi
	# RLIMIT_NPROC counts every process and thread of the user, so this
	# outer limit leaves room for what the user already runs and for the
	# other gradings of a --batch, running as the same user: each one's
	# program, and 8 more for bwrap's processes around it.
	NPROC=$(($(ps -L -u "$user" -o lwp= 2>/dev/null | wc -l) + (LIMIT_PROCS + 8) * ${GRADE_PARALLEL:-1}))
	CONTAINMENT="time and resource limits (cpu, fsize, nproc, as)"
	[ ${#DROP[@]} -gt 0 ] && CONTAINMENT="$CONTAINMENT, run as nobody"
	if command -v bwrap >/dev/null 2>&1; then
		local try=(bwrap --ro-bind / / --dev /dev --proc /proc --tmpfs /tmp
			--tmpfs "$KIT" --tmpfs "$WORK" --ro-bind "$STUDENT/bin" "$STUDENT/bin"
			--ro-bind "$REFBIN" "$REFBIN"
			--bind "$RUN" "$RUN" --unshare-all --die-with-parent --new-session
			--chdir "$RUN" --setenv HOME "$RUN"
			prlimit --nproc="$LIMIT_PROCS" --)
		# Inside bwrap's own user namespace the kernel (5.14 on) counts a
		# process limit over that namespace's tasks only, so the prlimit
		# above holds one program to LIMIT_PROCS: a fork bomb cannot take
		# the other gradings' share of the outer limit. (Where the kernel
		# counts the whole user instead, the try below may fail, and the
		# grading goes on without the sandbox.)
		SANDBOX=("${try[@]}")
		if contain 10 true 2>/dev/null; then
			CONTAINMENT="bubblewrap sandbox (no network, read-only system), $CONTAINMENT"
		else
			SANDBOX=()
			CONTAINMENT="$CONTAINMENT; bubblewrap is installed but cannot start here"
		fi
	else
		CONTAINMENT="$CONTAINMENT; no sandbox: install bubblewrap for one"
	fi
}

# fresh_run: empties the directory student programs run in.
fresh_run() {
	find "$RUN" -mindepth 1 -delete
}

# student SECONDS PROG ARGS...: runs the student's PROG, contained, in $RUN.
student() {
	local secs=$1 prog=$2
	shift 2
	contain "$secs" "$STUDENT/bin/$prog" "$@"
}

# reference PROG ARGS...: runs the kit's PROG in $RUN, for expected outputs.
reference() {
	local prog=$1
	shift
	(cd "$RUN" && "$KIT/bin/$prog" "$@")
}

# built PROG...: fails, saying so, unless the student's programs were built.
built() {
	local prog
	for prog in "$@"; do
		[ -x "$STUDENT/bin/$prog" ] || { echo "bin/$prog did not build: see the build check"; return 1; }
	done
}

# Random inputs, drawn anew in every grading run so that no answer can be
# written into a program in advance.
#   random_between LO HI: a whole number;  random_char: an upper-case letter
random_between() { echo $(($1 + (RANDOM * 32768 + RANDOM) % ($2 - $1 + 1))); }
random_char() { printf "\\$(printf '%03o' $((67 + RANDOM % 24)))"; }

# lines_of CHAR N: N lines holding CHAR, as the writers of Labs 1 and 2 write them.
lines_of() { awk -v c="$1" -v n="$2" 'BEGIN { for (i = 0; i < n; i++) print c }'; }

# usage_refused PROG ARGS...: the student's PROG rejects ARGS as a usage
# error: exit 2, with the usage on stderr.
usage_refused() {
	local prog=$1 status
	shift
	student 5 "$prog" "$@" >/dev/null 2>err.txt
	status=$?
	[ $status -eq 2 ] && grep -q 'usage:' err.txt && return 0
	timed_out $status "$prog"
	echo "$prog $* should be a usage error: exit 2 and the usage on stderr (got exit $status)"
	echo "reproduce: bin/$prog $*; echo \$?"
	return 1
}

# timed_out STATUS PROG: says so when a contained run hit its time limit.
timed_out() {
	[ "$1" -eq 124 ] && echo "$2 did not finish in time (killed)"
}

# ---------------------------------------------------------------- submission

# unpack SUBMISSION DIR: a safe copy of the submission in DIR.
unpack() {
	local sub=$1 dest=$2 listing bad total
	mkdir -p "$dest"
	if [ -d "$sub" ]; then
		bad=$(find "$sub" ! -type f ! -type d -printf '%P\n' | head -5)
		[ -z "$bad" ] || die "$sub: links or special files are not accepted: $bad"
		total=$(du -sb "$sub" | cut -f1)
		[ "$total" -le "$MAX_TAR_BYTES" ] || die "$sub: larger than $MAX_TAR_BYTES bytes"
		cp -R "$sub/." "$dest/"
		return
	fi
	[ -f "$sub" ] || die "$sub: no such file or directory"
	# List first, trusting nothing: only plain files and directories, with
	# relative names and no '..', within the size and count limits.
	listing=$(tar -tvzf "$sub" 2>/dev/null) || die "$sub: not a readable .tar.gz"
	bad=$(awk '$1 !~ /^[-d]/ { print "not a file or directory: " $NF }' <<<"$listing" | head -3)
	[ -z "$bad" ] || die "$sub: $bad"
	bad=$(tar -tzf "$sub" | awk '/^\// || /(^|\/)\.\.(\/|$)/ { print "unsafe path: " $0 }' | head -3)
	[ -z "$bad" ] || die "$sub: $bad"
	total=$(awk '{ s += $3 } END { print s + 0 }' <<<"$listing")
	[ "$total" -le "$MAX_TAR_BYTES" ] || die "$sub: unpacks to $total bytes, more than $MAX_TAR_BYTES"
	[ "$(wc -l <<<"$listing")" -le "$MAX_TAR_ENTRIES" ] || die "$sub: more than $MAX_TAR_ENTRIES entries"
	(ulimit -f $((MAX_TAR_BYTES / 512)) &&
		tar -xzf "$sub" -C "$dest" --no-same-owner --no-same-permissions --no-overwrite-dir) ||
		die "$sub: could not unpack"
	# make handin puts everything under one top directory; step into it.
	if [ ! -d "$dest/labs" ] && [ "$(find "$dest" -mindepth 1 -maxdepth 1 | wc -l)" -eq 1 ]; then
		local top
		top=$(find "$dest" -mindepth 1 -maxdepth 1 -type d)
		[ -n "$top" ] && mv "$top" "$dest.top" && rmdir "$dest" && mv "$dest.top" "$dest"
	fi
}

# programs of the kit, as "lab-directory/name"
kit_programs() {
	(cd "$KIT" && find labs -mindepth 2 -maxdepth 2 -name '*.c' | sort)
}

# build_student: the kit's build files, with the student's lab sources, in $STUDENT.
build_student() {
	mkdir -p "$STUDENT"
	cp -R "$KIT/Makefile" "$KIT/common" "$STUDENT/"
	local src
	while read -r src; do
		mkdir -p "$STUDENT/$(dirname "$src")"
		if [ -f "$SUB/$src" ]; then
			cp "$SUB/$src" "$STUDENT/$src"
		fi
	done < <(kit_programs)
}

# build_check PROG: compiles one of the student's programs.
build_check() {
	local prog=$1 src=$2
	if [ ! -f "$STUDENT/$src" ]; then
		echo "$src is missing from the submission"
		return 1
	fi
	if ! (cd "$STUDENT" && timeout 60 make -s "bin/$prog" 2>&1); then
		echo "reproduce: make bin/$prog"
		return 1
	fi
}

# ---------------------------------------------------------------- data, plots, answers

# csv_files: the result files the kit's figures read, e.g. data/lab1.csv.
csv_files_of() {
	grep -ho "data/lab$1[A-Za-z0-9_-]*\.csv" "$KIT"/plot/lab"$1"-*.gp 2>/dev/null | sort -u
}

# png_valid plot/NAME.png: a real, non-empty PNG in the submission.
png_valid() {
	local name=$1 png="$SUB/$1"
	[ -f "$png" ] || { echo "$name is missing"; return 1; }
	[ "$(head -c 8 "$png" | od -An -tx1 | tr -d ' \n')" = 89504e470d0a1a0a ] ||
		{ echo "$name is not a PNG file"; return 1; }
	[ "$(head -c 16 "$png" | tail -c 4)" = IHDR ] || { echo "$name has no PNG header chunk"; return 1; }
	[ "$(stat -c %s "$png")" -gt 2000 ] || { echo "$name is too small to hold a figure"; return 1; }
}

plots_check() {
	local lab=$1 gp ok=0
	for gp in "$KIT"/plot/lab"$lab"-*.gp; do
		png_valid "plot/$(basename "${gp%.gp}").png" || ok=1
	done
	[ $ok -eq 0 ] || echo "reproduce: make lab$lab (it draws the figures)"
	return $ok
}

# kit_header NAME.csv: the header the kit's lab script gives it, from its
# line csv_open "$DATA/NAME.csv" "HEADER" (a literal string, which may go on
# over lines ending in a backslash).
kit_header() {
	sed -e ':a' -e '/\\$/{N;s/\\\n[[:space:]]*//;ba' -e '}' "$KIT"/labs/*/lab[0-9].sh |
		sed -n "s|^[[:space:]]*csv_open \"\\\$DATA/$1\" *\"\([^\"\$]*\)\"\$|\1|p"
}

# header_check CSV: the file exists and starts with the kit's header.
header_check() {
	local csv=$1 expected
	expected=$(kit_header "$(basename "$csv")")
	[ -f "$SUB/$csv" ] || { echo "$csv is missing; reproduce: make lab${csv//[!0-9]/}"; return 1; }
	[ "$(head -1 "$SUB/$csv")" = "$expected" ] ||
		{ echo "$csv: the header is not the kit's: $expected"; return 1; }
}

machine_check() {
	local key
	for key in date kernel cpu cores memory scratch_dir_fs scratch_dir_st_blksize compiler libc; do
		grep -q "^$key: ." "$SUB/data/machine.txt" 2>/dev/null ||
			{ echo "data/machine.txt lacks '$key:'; reproduce: make labs"; return 1; }
	done
}

# The handout's questions and their points, "Q1.1 2" a line, in order. A
# question is a list item starting "- **Q1.1" whose text, over one or more
# lines, gives its points as "(N points" or "(N pts".
rubric() {
	awk '/^- \*\*Q[0-9]+\.[0-9]+/ { match($0, /Q[0-9]+\.[0-9]+/); q = substr($0, RSTART, RLENGTH) }
		q && match($0, /\([0-9]+ (points|point|pts)/) {
			print q, substr($0, RSTART + 1, RLENGTH - 1) + 0; q = "" }' "$KIT/handout.md"
}
questions() {
	rubric | cut -d' ' -f1
}

# answers_check LAB: every question of the lab has a non-empty answer.
answers_check() {
	local lab=$1 q missing=()
	[ -f "$SUB/answers.md" ] || { echo "answers.md is missing"; return 1; }
	for q in $(questions | grep "^Q$lab\."); do
		awk -v q="$q" '
			$0 ~ "^## " q "[[:space:]]*$" { inside = 1; next }
			/^## / { inside = 0 }
			inside && NF { found = 1 }
			END { exit !found }' "$SUB/answers.md" || missing+=("$q")
	done
	[ ${#missing[@]} -eq 0 ] || { echo "no answer under '## ${missing[*]}' in answers.md"; return 1; }
}

# ---------------------------------------------------------------- report

json_string() {
	local s=$1
	s=${s//\\/\\\\}
	s=${s//\"/\\\"}
	s=${s//$'\t'/\\t}
	s=${s//$'\r'/\\r}
	s=${s//$'\n'/\\n}
	printf '"%s"' "$(printf '%s' "$s" | tr -d '\000-\010\013\014\016-\037')"
}

write_json() {
	local file=$1 total=$2 output=$3 i tmp="$1.tmp"
	{
		printf '{\n  "score": %s,\n  "output": %s,\n  "tests": [' "$total" "$(json_string "$output")"
		for i in "${!NAMES[@]}"; do
			[ "$i" -gt 0 ] && printf ','
			printf '\n    {"name": %s, "score": %s, "max_score": %s, "status": "%s", "output": %s, "visibility": "visible"}' \
				"$(json_string "${LABS_OF[$i]}: ${NAMES[$i]}")" "${SCORES[$i]}" "${MAXES[$i]}" \
				"$([ "${SCORES[$i]}" = "${MAXES[$i]}" ] && echo passed || echo failed)" \
				"$(json_string "${OUTPUTS[$i]}")"
		done
		printf '\n  ]\n}\n'
	} >"$tmp" && mv "$tmp" "$file"
}

report() {
	local lab total=0 max=0 i s m written
	echo
	for lab in $(printf '%s\n' "${LABS_OF[@]}" | uniq); do
		s=0 m=0
		for i in "${!NAMES[@]}"; do
			[ "${LABS_OF[$i]}" = "$lab" ] && s=$((s + SCORES[i])) m=$((m + MAXES[i]))
		done
		printf '%-8s %3d/%d\n' "$lab" "$s" "$m"
		total=$((total + s)) max=$((max + m))
	done
	written=$(rubric | awk '{ s += $2 } END { print s + 0 }')
	echo "Written answers ($(questions | wc -l) questions, $written points) are graded by hand with the rubric in handout.md."
	echo "Containment: $CONTAINMENT"
	echo "Score: $total/$max"
	FINISHED=1
	[ -z "$JSON_OUT" ] || write_json "$JSON_OUT" "$total" "Score: $total/$max. Containment: $CONTAINMENT"
}

# A results file is written even when the grader itself fails.
on_exit() {
	local status=$?
	if [ "$FINISHED" -eq 0 ] && [ -n "$JSON_OUT" ]; then
		NAMES=() SCORES=() MAXES=() OUTPUTS=() LABS_OF=()
		write_json "$JSON_OUT" 0 "The grader could not finish (exit status $status). Ask your instructor."
	fi
	if [ -n "$WORK" ]; then
		if [ "$KEEP" -eq 1 ]; then echo "kept $WORK"; else rm -rf "$WORK"; fi
	fi
}

# ---------------------------------------------------------------- batch

batch() {
	local dir=$1 jobs=$2 out=$3 sub name
	[ -d "$dir" ] || usage_error "--batch: $dir is not a directory"
	local subs=()
	for sub in "$dir"/*.tar.gz "$dir"/*/; do
		[ -e "$sub" ] && subs+=("${sub%/}")
	done
	[ ${#subs[@]} -gt 0 ] || die "$dir: no submissions (*.tar.gz or directories)"
	local labs=${LABS// /,}
	# How many gradings run at once, for each one's process limit.
	export GRADE_PARALLEL=$jobs
	printf '%s\0' "${subs[@]}" | xargs -0 -P "$jobs" -I{} bash -c '
		name=$(basename "$1" .tar.gz)
		"$0" ${3:+--labs "$3"} --json "$2/$name.json" "$1" >"$2/$name.txt" 2>&1
		echo "graded $name: $(tail -n 1 "$2/$name.txt")"' "$KIT/grade.sh" {} "$dir" "$labs"
	# The class CSV: a column per check, in the order of the first report.
	local tmp="$out.tmp" first
	first=$(basename "${subs[0]}" .tar.gz)
	{
		printf 'submission'
		grep -E ': (PASS|FAIL) ' "$dir/$first.txt" | sed 's/: \(PASS\|FAIL\) .*//' |
			while read -r title; do printf ',"%s"' "${title//\"/\"\"}"; done
		printf ',score,max_score\n'
		for sub in "${subs[@]}"; do
			name=$(basename "$sub" .tar.gz)
			printf '"%s"' "${name//\"/\"\"}"
			grep -E ': (PASS|FAIL) ' "$dir/$name.txt" | sed 's/.*: \(PASS\|FAIL\) \([0-9]*\)\/.*/\2/' |
				while read -r points; do printf ',%s' "$points"; done
			sed -n 's/^Score: \([0-9]*\)\/\([0-9]*\)$/,\1,\2/p' "$dir/$name.txt"
			grep -q '^Score: ' "$dir/$name.txt" || printf ',0,0\n'
		done
	} >"$tmp" && mv "$tmp" "$out"
	echo "wrote $out"
}

# ---------------------------------------------------------------- main

main() {
	local batch_dir="" jobs=2 out="" sub=""
	while [ $# -gt 0 ]; do
		case $1 in
		--json) [ $# -ge 2 ] || usage_error "--json needs a FILE"; JSON_OUT=$2; shift 2 ;;
		--keep) KEEP=1; shift ;;
		--list) LIST_ONLY=1; shift ;;
		--labs) [[ ${2:-} =~ ^[1-9](,[1-9])*$ ]] || usage_error "--labs: '${2:-}' is not a list like 1,2"; LABS=${2//,/ }; shift 2 ;;
		--batch) [ $# -ge 2 ] || usage_error "--batch needs a DIR"; batch_dir=$2; shift 2 ;;
		-j) [[ ${2:-} =~ ^[1-9][0-9]?$ ]] || usage_error "-j: '${2:-}' is not a count from 1 to 99"; jobs=$2; shift 2 ;;
		--out) [ $# -ge 2 ] || usage_error "--out needs a FILE"; out=$2; shift 2 ;;
		-h | --help) usage; exit 0 ;;
		-*) usage_error "unknown option '$1'" ;;
		*) [ -z "$sub" ] || usage_error "one SUBMISSION at a time (or --batch DIR)"; sub=$1; shift ;;
		esac
	done
	if [ -n "$batch_dir" ]; then
		batch "$batch_dir" "$jobs" "${out:-$batch_dir/class.csv}"
		return
	fi
	[ -n "$LABS" ] || LABS=$(cd "$KIT" && ls -d labs/[0-9]-* | sed 's|labs/\([0-9]\).*|\1|')
	if [ "$LIST_ONLY" -eq 1 ]; then
		grade_labs
		return
	fi
	case $JSON_OUT in "" | /*) ;; *) JSON_OUT="$PWD/$JSON_OUT" ;; esac
	trap on_exit EXIT

	USER_NAME=$(id -un)
	WORK=$(mktemp -d "${TMPDIR:-/tmp}/iolab-grade.XXXXXX") || die "cannot make a scratch directory"
	SUB="$WORK/submission" STUDENT="$WORK/student" RUN="$WORK/run" REFBIN="$WORK/refbin"
	mkdir -p "$RUN"
	if [ -z "$sub" ]; then
		# The kit grades itself with the reference answers, one file per lab.
		echo "Grading the kit itself: $KIT"
		mkdir -p "$SUB"
		cp -R "$KIT/labs" "$KIT/data" "$KIT/plot" "$SUB/"
		cat "$KIT"/grading/answers/lab*.md >"$SUB/answers.md"
	else
		echo "Grading $sub"
		unpack "$sub" "$SUB"
	fi

	# The kit's own programs are the reference, built from the kit's sources.
	make -s -C "$KIT" all >/dev/null || die "the kit itself does not build: run make in $KIT"
	build_student
	# A copy of the kit's programs that the sandbox can see, for timing.
	mkdir -p "$REFBIN" "$STUDENT/bin"
	cp "$KIT"/bin/* "$REFBIN/"
	setup_containment
	grade_labs
	report
}

# grade_labs: every check of every lab in $LABS, then the machine description.
grade_labs() {
	local lab src csv
	for lab in $LABS; do
		[ -d "$(echo "$KIT"/labs/"$lab"-*)" ] || die "there is no lab $lab"
		for src in $(kit_programs | grep "^labs/$lab-"); do
			check "lab$lab" 1 "build $(basename "$src" .c)" build_check "$(basename "$src" .c)" "$src"
		done
		if [ -f "$KIT/grading/lab$lab.sh" ]; then
			# shellcheck source=/dev/null
			source "$KIT/grading/lab$lab.sh"
			"grade_lab$lab"
		fi
		for csv in $(csv_files_of "$lab"); do
			check "lab$lab" 1 "$csv has the kit's header" header_check "$csv"
		done
		check "lab$lab" 2 "figures plot/lab$lab-*.png" plots_check "$lab"
		check "lab$lab" 1 "answers to Q$lab.x present" answers_check "$lab"
	done
	check "all" 1 "data/machine.txt describes the machine" machine_check
}

main "$@"
