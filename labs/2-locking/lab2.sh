#!/usr/bin/env bash
# lab2.sh - Lab 2: locking and flushing. Writers A and B, started together by
# launch, append to one file, taking a lock around every batch of K lines;
# after every trial, runs checks the file. One row per experiment, trial and
# writer in data/lab2.csv:
#   plain  flock-writer -k 1000, the source's part 2
#   sweep  lockbench, K = 1 .. 10000, with and without fflush (part 3)
#   lockstep  lockbench --lockstep, K = 10 .. 10000, with and without fflush:
#          the writers meet before every batch, so every batch is contended
#   locks  lockbench with each kind of lock (and none), at K = 1 and 10000
#          (in lockstep at 10000)
#   sync   lockbench --sync none|fdatasync|fsync at a few K (fewer lines)
# Within a trial the configurations run one after the other, so that a busy
# moment of the machine spreads over all of them instead of one.
source "$(dirname "$0")/../../common/lab.sh"

lab_begin "Lab 2: locking and flushing" flock-writer lockbench launch runs

LINES=$(by_scale 10000 100000 1000000)	# per writer; the source wrote 1,000,000
asked=${TRIALS:-}
TRIALS=${TRIALS:-$(by_scale 2 5 5)}	# plain, sweep, lockstep; the source ran 5
LOCK_TRIALS=${asked:-$(by_scale 1 3 5)}	# locks and sync (TRIALS=N: N of these too)
SWEEP_K="1 10 100 1000 10000"		# the source's batch sizes
LOCK_K="1 10000"	# 1: the lock calls dominate; 10000: a batch needs several write(2)s
SYNC_LINES=$(by_scale 2000 20000 100000)	# every sync waits for the disk
SYNC_K=$(by_scale "100 1000" "100 1000 10000" "100 1000 10000")
# lockstep: writers meet before every batch (lockbench --lockstep), so that
# every batch is contended; enough lines for 20 batches and 10 stdio buffers
# (also for the locks experiment at K = 10000).
STEP_K="10 100 1000 10000"
step_lines() { echo $(($1 * 20 > 20000 ? $1 * 20 : 20000)); }
file=$(scratch_file lab2.txt)
out=$(scratch_file lab2-launch.csv)
summary=$(scratch_file lab2-runs.csv)
# the writers' command lines, which launch splits on white space
cmd_bin=$(launch_path "$BIN") cmd_file=$(launch_path "$file")

csv_open "$DATA/lab2.csv"

# trial EXPERIMENT K FLUSH LOCK SYNC TRIAL LINES PROGRAM [OPTION...]:
# writers A and B run PROGRAM -n LINES -k K OPTION... on the file together;
# then runs checks the file, and each writer gets a row (common/trial.py
# joins launch's, the program's and runs' columns by name).
trial() {
	local name=$1 k=$2 flush=$3 lock=$4 sync=$5 t=$6 lines=$7 prog=$8
	shift 8
	local opts="-n $lines -k $k${*:+ $*}" check multiple

	"$BIN/launch" --csv -f "$file" \
		"$cmd_bin/$prog -c A $opts $cmd_file" "$cmd_bin/$prog -c B $opts $cmd_file" >"$out"
	# runs exits 1 when a run is not a multiple of K, and also when it cannot
	# read the file: only the first is a result.
	if check=$("$BIN/runs" --summary-csv --multiple "$k" "$file" 2>&1); then
		multiple=1
	elif [[ $check == *"is not a multiple of $k" ]]; then
		multiple=0
	else
		echo "$check" >&2
		exit 1
	fi
	grep -v '^runs: ' <<<"$check" >"$summary"
	echo -n "  $name k=$k flush=$flush lock=$lock sync=$sync${*:+ ($*)}, trial $t: runs multiple of k: $([ $multiple = 1 ] && echo yes || echo NO); "
	"$PYTHON" common/trial.py --launch "$out" --runs "$summary" --csv "$CSV_TMP" \
		--lines "$lines" --set "experiment=$name" --set "lines_per_lock=$k" \
		--set "flush=$flush" --set "lock=$lock" --set "sync=$sync" --set "trial=$t" \
		--set "runs_multiple_of_k=$multiple"
}

echo "plain: flock-writer, $LINES lines per writer, 1000 per lock, $TRIALS trials"
for ((t = 1; t <= TRIALS; t++)); do
	trial plain 1000 1 flock none $t "$LINES" flock-writer
done

echo "sweep: lockbench, $LINES lines per writer, K = $SWEEP_K, flush and not, $TRIALS trials"
for ((t = 1; t <= TRIALS; t++)); do
	for k in $SWEEP_K; do
		trial sweep "$k" 1 flock none $t "$LINES" lockbench --csv
		trial sweep "$k" 0 flock none $t "$LINES" lockbench --csv --no-flush
	done
done

echo "lockstep: lockbench --lockstep, K = $STEP_K, flush and not, $TRIALS trials"
for ((t = 1; t <= TRIALS; t++)); do
	for k in $STEP_K; do
		trial lockstep "$k" 1 flock none $t "$(step_lines "$k")" lockbench --csv --lockstep
		trial lockstep "$k" 0 flock none $t "$(step_lines "$k")" lockbench --csv --lockstep --no-flush
	done
done

echo "locks: lockbench, K = $LOCK_K ($LINES lines per writer at K = 1, in lockstep at 10000), each kind of lock, $LOCK_TRIALS trials"
for ((t = 1; t <= LOCK_TRIALS; t++)); do
	for k in $LOCK_K; do
		for lock in none flock fcntl ofd; do
			# K = 1 times the locks; at K = 10000 lockstep makes the
			# writers' batches meet, to see which locks keep them whole.
			if [ "$k" = 1 ]; then
				trial locks "$k" 1 $lock none $t "$LINES" lockbench --csv --lock $lock
			else
				trial locks "$k" 1 $lock none $t "$(step_lines "$k")" lockbench --csv --lock $lock --lockstep
			fi
		done
	done
done

echo "sync: lockbench, $SYNC_LINES lines per writer, K = $SYNC_K, flock, $LOCK_TRIALS trials"
for ((t = 1; t <= LOCK_TRIALS; t++)); do
	for k in $SYNC_K; do
		for sync in none fdatasync fsync; do
			trial sync "$k" 1 flock $sync $t "$SYNC_LINES" lockbench --csv --sync $sync
		done
	done
done

csv_commit
# What the figures draw, one file each: lab2-locks.png (the locks and sync
# experiments), lab2-runs.png (sweep and lockstep), lab2-time.png (sweep).
medians "$DATA/lab2-locks-medians.csv" "$DATA/lab2.csv" --by experiment,sync,lock,lines_per_lock \
	--values wall_s --count runs_multiple_of_k,interleaved --where experiment=locks,sync
medians "$DATA/lab2-runs-medians.csv" "$DATA/lab2.csv" --by experiment,flush,lines_per_lock \
	--values median_run_lines --count runs_multiple_of_k,interleaved --where experiment=sweep,lockstep
medians "$DATA/lab2-time-medians.csv" "$DATA/lab2.csv" --by flush,lines_per_lock,lines_written \
	--values wall_s --where experiment=sweep
echo
# Times in seconds per writer for its lines_written lines, as measured.
"$PYTHON" common/table.py "$DATA/lab2.csv" --by experiment,lines_per_lock,flush,lock,sync,lines_written \
	--values wall_s,lock_wait_s,vol_cs,median_run_lines --count runs_multiple_of_k,interleaved \
	--title "== Lab 2 (data/lab2.csv): per writer, median (min-max) over the n writer rows; wall_s for lines_written lines"
# Q2.5: two writers with no lock break each other's batches only when
# they run at once; with the cores taken, each writes its batch in its own
# time slice and the batches stay whole (4 of 6 rows, measured beside
# other programs using 1.6 of 2 cores).
lab_end --needs-cores Q2.5 --spread "$DATA/lab2.csv:experiment+lines_per_lock+flush+lock+sync:wall_s" -- \
	"P2.1=$(measured median "$DATA/lab2.csv" wall_s experiment=sweep lines_per_lock=1 flush=1) s for $LINES lines" \
	"P2.2=$(measured median "$DATA/lab2.csv" wall_s experiment=sweep lines_per_lock=10000 flush=1) s for $LINES lines" \
	"P2.3=sync rows, K = 100: fflush alone $(measured median "$DATA/lab2.csv" wall_s experiment=sync lines_per_lock=100 sync=none) s, fdatasync too $(measured median "$DATA/lab2.csv" wall_s experiment=sync lines_per_lock=100 sync=fdatasync) s (Q2.3 asks what each does)" \
	"P2.4=$(measured median "$DATA/lab2.csv" wall_s experiment=sync lines_per_lock=100 sync=fsync) s for $SYNC_LINES lines (none: $(measured median "$DATA/lab2.csv" wall_s experiment=sync lines_per_lock=100 sync=none) s)"
