#!/usr/bin/env bash
# real.sh - Lab 6, step 7 (make lab6-real): programs you already have,
# saving something, recorded by bin/fsrecord and their crash states
# checked by bin/crashstates with each program's own checker:
#   sqlite3, one INSERT, rollback journal (journal_mode=DELETE) and WAL
#     (exclusive locking: the shared-memory index is a shared mapping the
#     recorder refuses): PRAGMA integrity_check and the rows
#     (real/sqlite-check.sh);
#   git add and commit of one file, as shipped and with core.fsync=all
#     (git 2.36 or later): git fsck, and the commit there once git ended
#     (real/git-check.sh);
#   a Python save of a JSON document, naive (open "w", dump) and atomic
#     (temporary file, fsync, os.replace, fsync of the directory): the
#     document parses and is one generation whole (real/pysave.py).
# Printed per program and model (MODELS, default posix,ext4-ordered): the
# calls, the states, the broken ones and the shortest way to one (the
# call at fault and the checker's reason); the logs and the full reports
# in data/lab6-real/. A program missing here is left out, in one line.
#   MODELS      crashstates' --model (default posix,ext4-ordered)
#   MAX_STATES  crashstates' --max-states, per model (default 2000)
#   ONLY        a space-separated list of the studies to run (default all)
source "$(dirname "$0")/../../common/lab.sh"
for prog in fsrecord crashstates; do
	[ -x "$BIN/$prog" ] || { echo "lab6-real cannot run: $prog not built (make builds it)" >&2; exit 4; }
done
bash common/deps.sh strace >&2 || exit 1	# the recorder's tracer

MODELS=${MODELS:-posix,ext4-ordered}
MAX_STATES=${MAX_STATES:-2000}
OUT=$DATA/lab6-real
REAL=$PWD/labs/6-fsync/real
mkdir -p "$OUT"
# git reads no configuration of yours (hooks, signing, a template): the
# same repository on every machine, for the recording and the checker
export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_NOSYSTEM=1 GIT_AUTHOR_DATE=2014-10-06T12:00:00 \
	GIT_COMMITTER_DATE=2014-10-06T12:00:00

# What each study does before the recording, in its own directory.
before_sqlite_rollback() { sqlite3 db 'PRAGMA journal_mode=DELETE; CREATE TABLE t(x); INSERT INTO t VALUES(1);'; }
before_sqlite_wal() { sqlite3 db 'PRAGMA journal_mode=WAL; CREATE TABLE t(x); INSERT INTO t VALUES(1);'; }
before_git() {
	git init -q -b main . && git config user.name student && git config user.email student@example.org
	echo one >a && git add a && git commit -q -m one && echo two >b
}
before_python() { python3 "$REAL/pysave.py" --naive -g 1 doc.json; }

# summary NAME REPORT: per model, the counts and the shortest way to a
# broken state (the first call whose change was lost, or the crash
# point's call, then the checker's reason).
summary() {
	local line way="" lost="" model="" calls
	while IFS= read -r line; do
		if [[ $line =~ ^crashstates:\ .*,\ model\ ([^:]+):\ ([0-9]+)\ calls,\ [0-9]+\ crash\ points,\ ([0-9]+)\ states\ built,\ ([0-9]+)\ broken(.*)$ ]]; then
			model=${BASH_REMATCH[1]} calls=${BASH_REMATCH[2]}
			printf '  %-30s %-21s %4s calls %6s states %6s broken%s\n' "$1" "$model" "$calls" \
				"${BASH_REMATCH[3]}" "${BASH_REMATCH[4]}" "${BASH_REMATCH[5]/, every state the model allows/}"
		elif [[ $line == "the shortest way to a broken state: "* ]]; then
			printf '  %-30s %-21s %s\n' "" "" "${line#the shortest way to a broken state: }"
		elif [[ $line =~ ^\ +[0-9]+\.\  ]]; then
			way=$line
			[[ -n $lost || $line != *LOST* ]] || lost=$line
		elif [[ $line == "  then: "* ]]; then
			way=${lost:-$way} lost=""
			printf '  %-30s %-21s %s\n  %-30s %-21s %s\n' "" "" "${way#"${way%%[! ]*}"}" "" "" "${line#  }"
		fi
	done <"$2"
}

# wanted NAME: the study is one of ONLY's (or ONLY is not set).
wanted() {
	[ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]
}

# study NAME PROGRAM CHECK BEFORE COMMAND...: COMMAND recorded in a new
# directory where BEFORE ran, its states checked by CHECK (a command line
# for crashstates, run in each state's directory).
study() (
	local name=$1 program=$2 check=$3 before=$4
	shift 4
	wanted "$name" || exit 0
	if ! command -v "$program" >/dev/null; then
		printf '  %-30s left out: %s is not installed here\n' "$name" "$program"
		exit 0
	fi
	dir=$(mktemp -d "$SCRATCH/lab6-real.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	cd "$dir" || exit 1
	"$before" >/dev/null
	"$BIN/fsrecord" -o "$OUT/$name.log" -- "$@" >/dev/null || exit 1
	"$BIN/crashstates" --model "$MODELS" --max-states "$MAX_STATES" --scratch "$SCRATCH" \
		--check "$check" "$OUT/$name.log" >"$OUT/$name.txt" || exit 1
	summary "$name" "$OUT/$name.txt"
)

q() { printf '%q' "$1"; }	# a path, quoted for crashstates' command line
echo "== Lab 6, real programs: their crash states under $MODELS (reports in $OUT)"
status=0
study sqlite-rollback sqlite3 "sh $(q "$REAL/sqlite-check.sh") 2" before_sqlite_rollback \
	sqlite3 db 'INSERT INTO t VALUES(2);' || status=1
study sqlite-wal sqlite3 "sh $(q "$REAL/sqlite-check.sh") 2" before_sqlite_wal \
	sqlite3 db 'PRAGMA locking_mode=EXCLUSIVE; INSERT INTO t VALUES(2);' || status=1
study git git "sh $(q "$REAL/git-check.sh") two" before_git \
	sh -c 'git add b && git commit -q -m two' || status=1
# without git, study says so; a git without core.fsync, this
if ! command -v git >/dev/null || { git -c core.fsync=all -c core.fsyncMethod=fsync version >/dev/null 2>&1 &&
	printf '2.36\n%s\n' "$(git version 2>/dev/null | cut -d' ' -f3)" | sort -V -C; }; then
	study git-fsync git "sh $(q "$REAL/git-check.sh") two" before_git \
		sh -c 'git -c core.fsync=all -c core.fsyncMethod=fsync add b &&
			git -c core.fsync=all -c core.fsyncMethod=fsync commit -q -m two' || status=1
elif wanted git-fsync; then
	printf '  %-30s left out: git is older than 2.36, which has no core.fsync\n' git-fsync
fi
study python-naive python3 "python3 $(q "$REAL/pysave.py") --verify -g 2 doc.json" before_python \
	python3 "$REAL/pysave.py" --naive -g 2 doc.json || status=1
study python-atomic python3 "python3 $(q "$REAL/pysave.py") --verify -g 2 doc.json" before_python \
	python3 "$REAL/pysave.py" --atomic -g 2 doc.json || status=1
exit $status
