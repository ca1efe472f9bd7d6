#!/usr/bin/env bats
# Lab 4 at SCALE=tiny: both CSVs complete, one row per trial, nothing left
# in the scratch directory.

load ../../../tests/helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	needs pwriters datagen	# the lab runs them
}

@test "lab4 (tiny): writers and datagen CSVs, every configuration, scratch left empty" {
	run env DATA="$BATS_TEST_TMPDIR/data" SCRATCH="$BATS_TEST_TMPDIR/s" SCALE=tiny \
		bash "$ROOT/labs/4-writers/lab4.sh"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *"wrote $BATS_TEST_TMPDIR/data/lab4-writers.csv (48 rows)"* ]]
	w=data/lab4-writers.csv d=data/lab4-datagen.csv
	[ "$(head -1 $w)" = "trial,strategy,threads,files,bytes_per_file,batch_bytes,fsync,append,wall_s,cpu_s,mib_s,cpu_mib_s" ]
	# tiny: 3 trials x 2 file counts x 2 fsync settings x 4 strategies.
	[ "$(tail -n +2 $w | wc -l)" -eq 48 ]
	[ "$(tail -n +2 $w | cut -d, -f1,2,4,7 | sort -u | wc -l)" -eq 48 ]
	[ "$(tail -n +2 $w | cut -d, -f2 | sort -u | tr '\n' ' ')" = "io-thread per-file pool seq " ]
	# Every row: 12 fields, positive times and rates; per-file has a thread per file.
	awk -F, 'NR > 1 && (NF != 12 || $9 <= 0 || $10 <= 0 || $11 <= 0 || $12 <= 0 ||
		($2 == "per-file" && $3 != $4)) { exit 1 }' $w
	# the medians both writers' figures draw: 3 trials in each of 2 x 4 x 2 rows
	m=data/lab4-writers-medians.csv
	[ "$(head -1 $m)" = "fsync,strategy,files,n,mib_s_median,mib_s_min,mib_s_max,cpu_mib_s_median,cpu_mib_s_min,cpu_mib_s_max" ]
	[ "$(tail -n +2 $m | cut -d, -f1-4 | head -n 4 | tr '\n' ' ')" = "0,io-thread,5,3 0,io-thread,10,3 0,per-file,5,3 0,per-file,10,3 " ]
	[ "$(tail -n +2 $m | cut -d, -f4 | sort -u)" = 3 ]
	[ "$(head -1 $d)" = "trial,mode,records,exams_per_record,buffer_records,seed,bytes,wall_s,cpu_s,fill_s,write_s" ]
	# tiny: 3 runs of each mode, alternating, the same bytes every time.
	[ "$(tail -n +2 $d | cut -d, -f1,2 | tr '\n' ' ')" = "1,threaded 1,sequential 2,threaded 2,sequential 3,threaded 3,sequential " ]
	[ "$(tail -n +2 $d | cut -d, -f7 | sort -u | wc -l)" -eq 1 ]
	# Steps 3 and 4, the lab's way: pool:1, 2 and 4 with fsync; seq, per-file
	# and pool (a writer per core) on empty files without; 3 trials each, as
	# pwriters --csv writes them.
	p=data/lab4-pool.csv e=data/lab4-threads.csv
	[ "$(head -1 $p)" = "$(head -1 $w)" ] && [ "$(head -1 $e)" = "$(head -1 $w)" ]
	[ "$(tail -n +2 $p | cut -d, -f1-4,7 | tr '\n' ' ')" = "$(for t in 1 2 3; do for k in 1 2 4; do
		printf '%s ' "$t,pool,$k,20,1"; done; done)" ]
	[ "$(tail -n +2 $e | cut -d, -f1-5,7 | tr '\n' ' ')" = "$(for t in 1 2 3; do
		printf '%s ' "$t,seq,1,100,0,0" "$t,per-file,100,100,0,0" "$t,pool,$(getconf _NPROCESSORS_ONLN),100,0,0"; done)" ]
	[ -s data/machine.txt ]
	[ -z "$(ls -A s)" ]
	[ -z "$(ls data | grep tmp)" ]
	# Every question is answered by what the lab prints (the lab page's
	# table, question -> printed line): each strategy at the largest file
	# count (10 at tiny scale), with fsync and without (Q4.1-Q4.3), and
	# datagen's two modes (Q4.7); then the load and the predictions.
	num='[0-9.e+-]+( \([0-9.e+-]+-[0-9.e+-]+\))?'
	for fsync in 0 1; do
		for st in seq per-file io-thread pool; do
			grep -Eq "^  $fsync +10 +$st +3 +$num +$num +$num +$num\$" <<<"$output"
		done
	done
	for mode in threaded sequential; do
		grep -Eq "^  $mode +3 +$num +$num +$num +$num\$" <<<"$output"
	done
	# the pool's size (Q4.5) and what a thread costs (Q4.4)
	for k in 1 2 4; do grep -Eq "^  $k +3 +$num +$num\$" <<<"$output"; done
	grep -Eq "^  seq +1 +3 +$num +$num\$" <<<"$output"
	grep -Eq "^  per-file +100 +3 +$num +$num\$" <<<"$output"
	grep -Eq '^   (BUSY|NOISY|SHORT TRIALS|quiet enough)' <<<"$output"
	grep -Eq '^  P4.1 .*measured: [0-9.e+-]+ s \(10 files\)$' <<<"$output"
}
