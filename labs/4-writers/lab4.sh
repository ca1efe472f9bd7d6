#!/usr/bin/env bash
# lab4.sh - Lab 4: parallel file writers.
#
#   1. pwriters: FILES files written with each thread strategy, with and
#      without fsync, TRIALS times          -> data/lab4-writers.csv
#   2. datagen: threaded versus -z, RUNS runs each, alternating
#                                           -> data/lab4-datagen.csv
#   3. the pool's size: pool:K for K = 1 to 32, with fsync, TRIALS times
#                                           -> data/lab4-pool.csv
#   4. what a thread costs: empty files, no fsync, seq against a thread
#      per file, TRIALS times               -> data/lab4-threads.csv
#   5. tables of medians of all four, the numbers the questions ask for
#
# Within a trial the configurations run one after the other, so a burst of
# activity from another program on the machine hits one trial of several
# strategies rather than every trial of one.
source "$(dirname "$0")/../../common/lab.sh"
lab_begin "Lab 4: parallel file writers" pwriters datagen

counts=$(by_scale "5 10" "5 10 50 100 500" "5 10 50 100 500 1000")
size=$(by_scale 20K 256K 4M)	# bytes per file; the source wrote 80 MiB
batch=16K			# bytes per write(2), as in the source
trials=${TRIALS:-$(by_scale 3 3 3)}
strategies="seq per-file io-thread pool"
records=$(by_scale 2000 50000 50000)	# datagen -s; the source: -s 50000 -e 10 -b 500
runs=$(by_scale 3 20 20)
pools=$(by_scale "1 2 4" "1 2 4 8 16 32" "1 2 4 8 16 32")	# pool:K, of pool_files files
pool_files=$(by_scale 20 100 100)
empty_files=$(by_scale 100 1000 1000)	# files of 0 bytes: nothing but threads and files

# collect TRIAL CMD...: runs CMD --csv and adds its row, with the trial
# number in front, to the open CSV; the program's header must be the CSV's
# without "trial,".
collect() {
	local trial=$1 out
	shift
	out=$("$@" --csv)
	csv_program "${1##*/}" "$out" "${CSV_HEADER#trial,}"
	csv_row "$trial,${out#*$'\n'}"
}

csv_open "$DATA/lab4-writers.csv"
for ((t = 1; t <= trials; t++)); do
	for files in $counts; do
		echo "pwriters: trial $t/$trials, $files files of $size, 4 strategies, fsync and not"
		for fsync in 1 0; do
			for s in $strategies; do
				opts=(-F "$files" -S "$size" -B "$batch" --strategy "$s" -d "$SCRATCH")
				if [ "$fsync" = 0 ]; then opts+=(--no-fsync); fi
				collect "$t" "$BIN/pwriters" "${opts[@]}"
			done
		done
	done
done
csv_commit
# What the two writers' figures draw, by fsync, strategy and file count.
medians "$DATA/lab4-writers-medians.csv" "$DATA/lab4-writers.csv" --by fsync,strategy,files \
	--values mib_s,cpu_mib_s

# datagen's four output files, removed when the lab ends.
for f in students contacts exams grades; do scratch_file "$f.txt" >/dev/null; done
csv_open "$DATA/lab4-datagen.csv"
echo "datagen: $runs runs threaded and $runs with -z, alternating (-s $records -e 10 -b 500)"
for ((r = 1; r <= runs; r++)); do
	collect "$r" "$BIN/datagen" -s "$records" -e 10 -b 500 -d "$SCRATCH"
	collect "$r" "$BIN/datagen" -s "$records" -e 10 -b 500 -d "$SCRATCH" -z
done
csv_commit

# Steps 3 and 4 of the lab's page, the lab's way: a pool of K writers with
# fsync, and the cost of a thread per file with nothing to write.
csv_open "$DATA/lab4-pool.csv" lab4-writers.csv
echo "pwriters: the pool's size, pool:K for K = $pools, $pool_files files of $size with fsync, $trials times"
for ((t = 1; t <= trials; t++)); do
	for k in $pools; do
		collect "$t" "$BIN/pwriters" -F "$pool_files" -S "$size" -B "$batch" --strategy "pool:$k" -d "$SCRATCH"
	done
done
csv_commit
csv_open "$DATA/lab4-threads.csv" lab4-writers.csv
echo "pwriters: what a thread costs, $empty_files empty files without fsync, seq, per-file and pool, $trials times"
for ((t = 1; t <= trials; t++)); do
	for s in seq per-file pool; do
		collect "$t" "$BIN/pwriters" -F "$empty_files" -S 0 --no-fsync --strategy "$s" -d "$SCRATCH"
	done
done
csv_commit

echo
"$PYTHON" common/table.py "$DATA/lab4-writers.csv" --by fsync,files,strategy \
	--values wall_s,cpu_s,mib_s,cpu_mib_s \
	--title "== pwriters: median (min-max) over the trials (fsync 1: every file fsync'd)"
echo
"$PYTHON" common/table.py "$DATA/lab4-datagen.csv" --by mode \
	--values wall_s,cpu_s,fill_s,write_s \
	--title "== datagen: median (min-max) over the runs"
echo
"$PYTHON" common/table.py "$DATA/lab4-pool.csv" --by threads --values mib_s,wall_s \
	--title "== the pool's size (Q4.5): pool:K, $pool_files files with fsync, median (min-max) over the trials"
echo
"$PYTHON" common/table.py "$DATA/lab4-threads.csv" --by strategy,threads --values wall_s,cpu_s \
	--title "== what a thread costs (Q4.4): $empty_files empty files, no fsync, median (min-max) over the trials"
top=${counts##* }	# the largest file count (500 at quick scale)
# Q4.2: without fsync a run is CPU work, which waits for a core on a busy
# machine (far from memory speed). Q4.7: datagen -z never sleeps, so it
# waits its turn behind the other programs, where the threaded main thread
# sleeps every round and runs as soon as it wakes: threaded wins, and -z's
# fill_s exceeds its whole run's cpu_s.
lab_end --needs-cores Q4.2,Q4.7 --spread "$DATA/lab4-writers.csv:fsync+files+strategy:wall_s" -- \
	"P4.1=$(measured median "$DATA/lab4-writers.csv" wall_s strategy=per-file files="$top" fsync=1) s ($top files)" \
	"P4.2=$(measured median "$DATA/lab4-writers.csv" cpu_s strategy=per-file files="$top" fsync=1) s ($top files)" \
	"P4.3=$(measured median "$DATA/lab4-writers.csv" wall_s strategy=seq files="$top" fsync=1) s ($top files)"
