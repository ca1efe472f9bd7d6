# lab.sh - sourced by every labs/N-topic/labN.sh. It only sets things up;
# the lab script runs the programs and collects their rows.
#
# Environment (all optional):
#   SCALE    tiny | quick | full   how big the experiments are (default quick)
#   BIN      where the programs are (default bin)
#   DATA     where results go (default data)
#   SCRATCH  where the experiments write their files (default scratch)
set -euo pipefail

cd "$(dirname "${BASH_SOURCE[0]}")/.."
BIN=${BIN:-bin}
DATA=${DATA:-data}
SCALE=${SCALE:-quick}
SCRATCH=${SCRATCH:-scratch}
case $SCALE in
tiny | quick | full) ;;
*) echo "SCALE must be tiny, quick or full, not '$SCALE'" >&2; exit 2 ;;
esac
mkdir -p "$DATA" "$SCRATCH"

# by_scale TINY QUICK FULL: prints the value that goes with SCALE.
by_scale() {
	case $SCALE in
	tiny) echo "$1" ;;
	quick) echo "$2" ;;
	full) echo "$3" ;;
	esac
}

# Result files are built under a temporary name and renamed when complete,
# so an interrupted lab never leaves half a CSV behind.
#   csv_open FILE HEADER;  csv_row FIELD,FIELD,...;  csv_commit
LAB_TMPFILES=()
csv_open() {
	CSV=$1
	CSV_TMP="$1.tmp"
	LAB_TMPFILES+=("$CSV_TMP")
	echo "$2" >"$CSV_TMP"
}
csv_row() {
	echo "$1" >>"$CSV_TMP"
}
csv_commit() {
	mv "$CSV_TMP" "$CSV"
	echo "wrote $CSV ($(($(wc -l <"$CSV") - 1)) rows)"
}

# scratch_file NAME: a path in SCRATCH that is removed when the lab ends.
scratch_file() {
	LAB_TMPFILES+=("$SCRATCH/$1")
	echo "$SCRATCH/$1"
}
trap 'rm -f "${LAB_TMPFILES[@]}"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# lab_begin TITLE: announces the lab and describes the machine it runs on.
lab_begin() {
	for prog in "${LAB_PROGRAMS[@]}"; do
		[ -x "$BIN/$prog" ] || { echo "$BIN/$prog is missing: run make first" >&2; exit 1; }
	done
	echo "== $1 (SCALE=$SCALE, files in $SCRATCH)"
	bash common/machine.sh "$SCRATCH" "$DATA/machine.txt"
}
