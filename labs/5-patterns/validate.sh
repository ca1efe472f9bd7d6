#!/usr/bin/env bash
# validate.sh - checks bin/iopattern against fio (`make validate`): installs
# fio and strace when it can, then runs validate.py, which says how. RUNS=N:
# runs per tool and job (default 5). Exit status 1 when a goal is missed.
source "$(dirname "$0")/../../common/lab.sh"
# One at a time in a scratch directory: two would share validate.dat.
exec 9>>"$SCRATCH/validate.lock"
flock -n 9 || { echo "validate: another make validate is running in $SCRATCH" >&2; exit 1; }
bash common/deps.sh fio strace
[ -x "$BIN/iopattern" ] || { echo "$BIN/iopattern is missing: run make first" >&2; exit 1; }
rm -f "$SCRATCH/validate.dat"	# left by a killed run: iopattern refuses an existing file
remove_at_exit "$SCRATCH/validate.dat"
BIN=$BIN SCRATCH=$SCRATCH SCALE=$SCALE python3 labs/5-patterns/validate.py
