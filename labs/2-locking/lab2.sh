#!/usr/bin/env bash
# lab2.sh - Lab 2: locking and flushing. Writers A and B, started together by
# launch, append to one file, taking a lock around every batch of K lines;
# after every trial, runs checks the file. One row per experiment, trial and
# writer in data/lab2.csv:
#   plain  flock-writer -k 1000, the source's part 2
#   sweep  lockbench, K = 1 .. 10000, with and without fflush (part 3)
#   locks  lockbench with each kind of lock (and none), at K = 1 and 10000
#   sync   lockbench --sync none|fdatasync|fsync at a few K (fewer lines)
# Within a trial the configurations run one after the other, so that a busy
# moment of the machine spreads over all of them instead of one.
source "$(dirname "$0")/../../common/lab.sh"

lab_begin "Lab 2: locking and flushing" flock-writer lockbench launch runs

LINES=$(by_scale 10000 200000 1000000)	# per writer; the source wrote 1,000,000
TRIALS=$(by_scale 2 5 5)		# plain and sweep; the source ran 5
LOCK_TRIALS=$(by_scale 1 3 5)		# locks and sync
SWEEP_K="1 10 100 1000 10000"		# the source's batch sizes
LOCK_K="1 10000"	# 1: the lock calls dominate; 10000: a batch needs several write(2)s
SYNC_LINES=$(by_scale 2000 20000 100000)	# every sync waits for the disk
SYNC_K=$(by_scale "100 1000" "100 1000 10000" "100 1000 10000")
file=$(scratch_file lab2.txt)

csv_open "$DATA/lab2.csv" "experiment,lines_per_lock,flush,lock,sync,trial,writer,lines_written,wall_s,user_s,sys_s,vol_cs,invol_cs,start_delay_s,lock_wait_s,lock_held_s,lines_found,lost_lines,runs,median_run_lines,max_run_lines,runs_multiple_of_k"

# trial EXPERIMENT K FLUSH LOCK SYNC TRIAL LINES PROGRAM [OPTION...]:
# writers A and B run PROGRAM -n LINES -k K OPTION... on the file together;
# then runs checks the file, and each writer gets a row.
trial() {
	local name=$1 k=$2 flush=$3 lock=$4 sync=$5 t=$6 lines=$7 prog=$8
	shift 8
	local opts="-n $lines -k $k${*:+ $*}" out check multiple rows row_a row_b progress

	out=$("$BIN/launch" --csv -f "$file" \
		"$BIN/$prog -c A $opts $file" "$BIN/$prog -c B $opts $file")
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
	# A row per writer, then a line of progress, from
	#  - launch's rows: trial,child,command,start_delay_s,wall_s,user_s,sys_s,
	#    vol_cs,invol_cs,exit_status, counted from the end (the command may
	#    hold commas); child 1 is A, child 2 is B;
	#  - lockbench's own rows, printed in the same stream:
	#    char,lines,...,lock_wait_s,lock_held_s (flock-writer prints none);
	#  - runs' summary, after the "--": char,lines,runs,min_run,median_run,
	#    max_run, with no row for a writer whose every line was lost.
	rows=$(printf '%s\n--\n%s\n' "$out" "$check" | awk -F, -v lines="$lines" \
		-v conf="$name,$k,$flush,$lock,$sync,$t" -v multiple="$multiple" '
		/^--$/ { in_runs = 1; next }
		!in_runs && /^[0-9]+,[12],/ {
			times[substr("AB", $2, 1)] = $(NF-5) "," $(NF-4) "," $(NF-3) "," \
				$(NF-2) "," $(NF-1) "," $(NF-6) }
		!in_runs && ($1 == "A" || $1 == "B") { waits[$1] = $(NF-1) "," $NF }
		in_runs && ($1 == "A" || $1 == "B") { found[$1] = $2; runs[$1] = $3 "," $5 "," $6 }
		END {
			for (i = 1; i <= 2; i++) {
				w = substr("AB", i, 1)
				printf "%s,%s,%d,%s,%s,%d,%d,%s,%d\n", conf, w, lines, times[w],
					(w in waits) ? waits[w] : ",", found[w], lines - found[w],
					(w in runs) ? runs[w] : "0,0,0", multiple
				split(times[w], f, ","); split(runs[w], r, ",")
				progress = progress sprintf("%s %.3f s, median run %s; ", w, f[1], r[2])
			}
			print progress "runs multiple of k: " (multiple ? "yes" : "NO")
		}')
	{ read -r row_a; read -r row_b; read -r progress; } <<<"$rows"
	csv_row "$row_a"
	csv_row "$row_b"
	echo "  $name k=$k flush=$flush lock=$lock sync=$sync, trial $t: $progress"
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

echo "locks: lockbench, $LINES lines per writer, K = $LOCK_K, each kind of lock, $LOCK_TRIALS trials"
for ((t = 1; t <= LOCK_TRIALS; t++)); do
	for k in $LOCK_K; do
		for lock in none flock fcntl ofd; do
			trial locks "$k" 1 $lock none $t "$LINES" lockbench --csv --lock $lock
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
