# shellcheck shell=bash
# lab.sh - sourced by every labs/N-topic/labN.sh. It only sets things up;
# the lab script runs the programs and collects their rows.
#
# Environment (all optional):
#   SCALE    tiny | quick | full   how big the experiments are (default quick)
#   BIN      where the programs are (default bin)
#   DATA     where results go (default data)
#   SCRATCH  where the experiments write their files (default scratch)
#   TRIALS   how many times each measurement is repeated (each lab has its
#            default; more trials narrow a busy machine's spread)
#   PREDICTIONS  the student's predictions (default predictions.md)
#
# A lab runs under `set -euo pipefail`: a command that fails, an unset
# variable, or any command of a pipeline that fails stops the lab. The last
# includes a writer killed by SIGPIPE because its reader stopped early
# (`yes | head -1` fails: yes is killed), so read all of a program's output or
# write `|| true` where an early stop is meant. The stop is named by
# lab_failed, below.
set -eEuo pipefail

# lab_failed LINE COMMAND: says where a lab stopped and why, on stderr, so
# that "make labN" never fails with no error above. Run by the ERR trap (the
# E of set -eE hands it to functions and subshells too), which bash runs for
# exactly the failures that stop the lab; inside $(...) it keeps quiet, and
# the line that holds the $(...) is named when it fails there.
lab_failed() {
	local status=$? pipe=("${PIPESTATUS[@]}") file=${BASH_SOURCE[1]#"$kit"/} code why=() text
	[ "$BASH_SUBSHELL" -eq 0 ] || return "$status"
	for code in "${pipe[@]}"; do
		if [ "$code" -gt 128 ]; then why+=("killed by SIG$(kill -l $((code - 128)))"); else why+=("exit status $code"); fi
	done
	if [ ${#why[@]} -eq 1 ]; then
		text="'$2' failed (${why[0]})"
	else	# a pipeline: BASH_COMMAND is its last command
		text=$(printf '%s, ' "${why[@]}")
		text="the pipeline that ends with '$2' failed (from left to right: ${text%, })"
	fi
	echo "$(basename "$0" .sh) stopped at line $1 of $file: $text" >&2
}
trap 'lab_failed "$LINENO" "$BASH_COMMAND"' ERR

# Paths given by the caller are relative to where the caller stands; the
# defaults are relative to the kit, where the lab runs.
kit=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
absolute() { case $1 in /*) echo "$1" ;; *) echo "$PWD/$1" ;; esac; }
BIN=$(absolute "${BIN:-$kit/bin}")
DATA=$(absolute "${DATA:-$kit/data}")
SCRATCH=$(absolute "${SCRATCH:-$kit/scratch}")
PREDICTIONS=${PREDICTIONS:+$(absolute "$PREDICTIONS")}
PREDICTIONS=${PREDICTIONS:-predictions.md}	# the default, relative to the kit
SCALE=${SCALE:-quick}
cd "$kit"
case $SCALE in
tiny | quick | full) ;;
*) echo "SCALE must be tiny, quick or full, not '$SCALE'" >&2; exit 2 ;;
esac
mkdir -p "$DATA" "$SCRATCH"

# The Python 3 that runs common/*.py, found once: a version manager's shim
# (pyenv) costs a fraction of a second on every call otherwise.
PYTHON=$(python3 -c 'import sys; print(sys.executable)')

# launch_path PATH: PATH as a command given to launch (or to a checker
# that splits its command line on white space) can hold it: launch splits
# each command on white space, no shell, so a path under the kit is given
# relative to it (the labs run from the kit, and so do the commands they
# start); one with white space left (SCRATCH="/mnt/c/My files") stops the
# lab, saying why. Use as  cmd_bin=$(launch_path "$BIN")
launch_path() {
	local path=${1#"$kit"/}
	if [[ $path == *[[:space:]]* ]]; then
		echo "$(basename "$0" .sh): launch splits each command on white space, and '$path' has some: use a folder without (SCRATCH=\$HOME/iolab-scratch, say)" >&2
		return 1
	fi
	echo "$path"
}

# median: the median of the numbers on stdin, one per line (the mean of
# the middle two when there is an even number of them): Python's
# statistics.median, the one common/table.py uses too.
median() {
	"$PYTHON" -c 'import statistics, sys; print(statistics.median(float(x) for x in sys.stdin.read().split()))'
}

# launch_wall N COMMAND: the elapsed seconds of N runs of COMMAND in a row,
# from launch's CSV (each run from its start to its exit), added up. The
# column is found by its name, wall_s: next to it are user_s and sys_s,
# CPU time, which is not what a stopwatch reads. COMMAND's own output shares
# launch's stdout; launch's rows are the ones whose first field is a number.
launch_wall() {
	"$BIN/launch" -r "$1" --csv "$2" |
		awk -F, '$1 == "trial" { for (i = 1; i <= NF; i++) if ($i == "wall_s") c = i } c && $1 ~ /^[0-9]+$/ { s += $c } END { print s }'
}

# repeats SECONDS_OF_10...: how many times to repeat (runs in a row, passes
# over a buffer) for the shortest of the things timed to last 1.5 s, from
# how long 10 of each took; at least 10.
repeats() {
	printf '%s\n' "$@" | sort -g | head -1 | awk '{ n = int(15 / $1) + 1; print n < 10 ? 10 : n }'
}

# by_scale TINY QUICK FULL: prints the value that goes with SCALE.
by_scale() {
	case $SCALE in
	tiny) echo "$1" ;;
	quick) echo "$2" ;;
	full) echo "$3" ;;
	esac
}

# Files to remove when the lab ends, however it ends. They are listed in a
# file rather than a variable so that scratch_file also works inside $(...).
LAB_CLEANUP="$SCRATCH/.lab-cleanup.$$"
remove_at_exit() {
	printf '%s\n' "$@" >>"$LAB_CLEANUP"
}
trap 'if [ -e "$LAB_CLEANUP" ]; then xargs -d "\n" rm -f <"$LAB_CLEANUP"; rm -f "$LAB_CLEANUP"; fi' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# scratch_file NAME: prints a path in SCRATCH that is removed when the lab ends.
scratch_file() {
	remove_at_exit "$SCRATCH/$1"
	echo "$SCRATCH/$1"
}

# Result files are built under a temporary name and renamed when complete,
# so an interrupted lab never leaves half a CSV behind.
#   csv_open FILE [AS];  csv_row FIELD,FIELD,...;  csv_commit
# FILE's header is its columns as the lab declares them, in order, in
# labs/N-topic/columns.csv (file,column,kind,unit,class; the grader and
# make class read the same rows); AS: the columns declared for another file
# (Lab 4's pool and thread-count runs are writers' rows). The header is
# also left in CSV_HEADER, for checking the header a program prints.
csv_open() {
	CSV=$1
	CSV_HEADER=$(declared "${2:-${1##*/}}") || exit 1
	CSV_TMP="$1.tmp"
	remove_at_exit "$CSV_TMP"
	echo "$CSV_HEADER" >"$CSV_TMP"
}
# declared FILE: the header of data/FILE as the lab's columns.csv declares it.
declared() {
	local header
	[ -f "$LAB_DIR/columns.csv" ] ||
		{ echo "$LAB_DIR/columns.csv is missing: it declares the columns of the lab's CSVs" >&2; return 1; }
	header=$(awk -F, -v f="$1" '$1 == f { printf "%s%s", sep, $2; sep = "," }' "$LAB_DIR/columns.csv")
	[ -n "$header" ] || { echo "$LAB_DIR/columns.csv declares no column of $1" >&2; return 1; }
	echo "$header"
}
# configuration FILE [SEP]: the columns that make one configuration of
# data/FILE (what a trial repeats), as the lab's trials.csv declares them
# (the grader and make class read the same row), joined by SEP (default ,).
configuration() {
	local config
	config=$(awk -F, -v f="$1" '$1 == f { print $2 }' "$LAB_DIR/trials.csv" 2>/dev/null)
	[ -n "$config" ] || { echo "$LAB_DIR/trials.csv declares no configuration of $1" >&2; return 1; }
	echo "${config// /${2:-,}}"
}
# csv_program PROG OUT EXPECTED: OUT, PROG's --csv output, must begin with
# the header EXPECTED, the columns of a declared header that PROG writes;
# else the lab stops, naming both.
csv_program() {
	[ "${2%%$'\n'*}" = "$3" ] && return 0
	echo "lab$LAB_N: $1 --csv printed the header ${2%%$'\n'*}; $LAB_DIR/columns.csv declares $3" >&2
	exit 1
}
csv_row() {
	echo "$1" >>"$CSV_TMP"
}
csv_commit() {
	mv "$CSV_TMP" "$CSV"
	echo "wrote $CSV ($(($(wc -l <"$CSV") - 1)) rows)"
}

# medians OUT CSV ARG...: the medians (min-max) that a figure draws,
# computed from CSV by common/table.py ARG... --out OUT: whole or not at
# all. The lab writes them, so that a figure script reads CSV files only.
medians() {
	local out=$1
	shift
	remove_at_exit "$out.tmp"
	"$PYTHON" common/table.py "$@" --out "$out"
	echo "wrote $out (medians for the figures)"
}

# The lab's number, from its script's name (labs/1-interleave/lab1.sh: 1),
# and its folder in the kit.
LAB_N=$(basename "$0" .sh)
LAB_N=${LAB_N#lab}
LAB_DIR=labs/$(basename "$(dirname "$0")")

# lab_begin TITLE PROGRAM...: checks that the lab's programs are built
# (else exit 4, naming what to build: make labs then runs the other labs),
# announces the lab, describes the machine it runs on, starts measuring
# how busy the machine is (common/load.py), and reminds the student to
# write their predictions first (never stops the lab).
lab_begin() {
	local title=$1 prog missing=()
	shift
	for prog in "$@"; do
		[ -x "$BIN/$prog" ] || missing+=("$prog")
	done
	if [ ${#missing[@]} -gt 0 ]; then
		echo "lab$LAB_N cannot run: ${missing[*]} not built (make builds them; its errors say what to fix)" >&2
		exit 4
	fi
	echo "== $title (SCALE=$SCALE, files in $SCRATCH)"
	keep_earlier_run
	bash common/machine.sh "$SCRATCH" "$DATA/machine.txt"
	"$PYTHON" common/predict.py remind "$PREDICTIONS" "$LAB_N"
	LAB_LOAD=$(scratch_file ".load.$$")
	"$PYTHON" common/load.py start "$LAB_LOAD" $$
}

# keep_earlier_run: copies the results of the lab's earlier run, if any,
# saying where in one line, so that a rerun never loses numbers a student
# may have quoted: into DATA/previous/labN-TIME/ (TIME: when that run wrote
# its newest file), its files as they were named. They are DATA/labN.csv
# and DATA/labN-* (Lab 6's logs too, but not lab6-real/, which make
# lab6-real writes), and, when DATA is the kit's, the figures drawn from
# them, plot/labN-*.png. A copy, not a move: the earlier files stay in
# data/ until this run replaces each whole (csv_commit), so a run stopped
# half way leaves them as they were.
keep_earlier_run() {
	local earlier=() file base dest n=1
	for file in "$DATA/lab$LAB_N.csv" "$DATA/lab$LAB_N"-*; do
		[ -e "$file" ] && [ "$file" != "$DATA/lab$LAB_N-real" ] && earlier+=("$file")
	done
	[ ${#earlier[@]} -gt 0 ] || return 0
	if [ "$DATA" = "$kit/data" ]; then
		for file in plot/lab"$LAB_N"-*.png; do
			[ -e "$file" ] && earlier+=("$file")
		done
	fi
	base="$DATA/previous/lab$LAB_N-$(date -r "$(ls -td "${earlier[@]}" | head -1)" +%Y-%m-%d-%H%M%S)"
	dest=$base
	while [ -e "$dest" ]; do dest=$base-$((++n)); done
	mkdir -p "$dest"
	cp -Rp "${earlier[@]}" "$dest"/
	echo "Lab $LAB_N's earlier results are copied to ${dest#"$kit"/}/ (this run replaces them here)"
}

# lab_end [--spread CSV:BY+BY:VALUE[:COL=V]]... [--needs-cores QN.M,...]
#         [-- KEY=MEASURED...]: the closing lines: how busy the machine was
# and whether the results are noise (also into data/labN-load.txt), naming
# the --needs-cores questions when it was busy (their lessons need the
# cores for the lab alone), then the student's predictions beside the
# measurements given as PN.M=TEXT.
lab_end() {
	local spreads=()
	while [ $# -gt 0 ] && [ "$1" != -- ]; do spreads+=("$1"); shift; done
	[ $# -eq 0 ] || shift
	echo
	"$PYTHON" common/load.py end "$LAB_LOAD" $$ "Lab $LAB_N" "$DATA/lab$LAB_N-load.txt" --scale "$SCALE" "${spreads[@]}"
	echo
	"$PYTHON" common/predict.py show "$PREDICTIONS" "$LAB_N" "$@"
}

# measured median|gcd CSV VALUE [COL=V[,V]]...: that statistic of VALUE
# over the matching rows.
measured() {
	"$PYTHON" common/predict.py "$@"
}
