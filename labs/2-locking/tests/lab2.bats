#!/usr/bin/env bats
# Lab 2 end to end at SCALE=tiny: the CSV, the checks it records, the
# figures. The lab runs once for the whole file, in setup_file.

load ../../../tests/helpers

HEADER=experiment,lines_per_lock,flush,lock,sync,trial,writer,lines_written,wall_s,user_s,sys_s,vol_cs,invol_cs,start_delay_s,lock_wait_s,lock_held_s,lines_found,lost_lines,runs,median_run_lines,max_run_lines,runs_multiple_of_k,interleaved

setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	needs_file writer flock-writer lockbench launch runs || return 0	# the lab runs them
	status=0
	# the kit seen from a folder whose name has a space, as a student's may
	# be: launch splits its commands on white space
	ln -s "$ROOT" "my kit"
	# bounded: a lab whose writers wait forever fails instead of hanging
	BIN="$PWD/my kit/${BIN#"$ROOT"/}" DATA=data SCRATCH=s SCALE=tiny timeout 600 \
		bash "my kit/labs/2-locking/lab2.sh" >out 2>&1 || status=$?
	echo "$status" >status
}

setup() {
	skip_if_file_needs
	cd "$BATS_FILE_TMPDIR" || return 1
	[ "$(cat status)" -eq 0 ] || { cat out; return 1; }
	csv=data/lab2.csv
}

@test "lab2: data/lab2.csv has the header and a row per experiment, setting, trial and writer" {
	[ "$(head -1 $csv)" = "$HEADER" ]
	# tiny: plain 2 trials; sweep 5 K x 2 flush x 2 trials; lockstep 4 K x
	# 2 flush x 2 trials; locks 2 K x 4 kinds x 1 trial; sync 2 K x 3 modes
	# x 1 trial; two writers each
	[ "$(tail -n +2 $csv | wc -l)" -eq 104 ]
	[ "$(tail -n +2 $csv | cut -d, -f1-7 | sort -u | wc -l)" -eq 104 ]
	[ "$(tail -n +2 $csv | cut -d, -f1 | uniq | tr '\n' ' ')" = "plain sweep lockstep locks sync " ]
	[ "$(awk -F, '$1 == "sweep" { print $2 "," $3 }' $csv | sort -t, -k1,1n -k2,2n -u | tr '\n' ' ')" = \
		"1,0 1,1 10,0 10,1 100,0 100,1 1000,0 1000,1 10000,0 10000,1 " ]
	[ "$(awk -F, '$1 == "locks" { print $2 "," $4 }' $csv | sort -u | tr '\n' ' ')" = \
		"1,fcntl 1,flock 1,none 1,ofd 10000,fcntl 10000,flock 10000,none 10000,ofd " ]
	[ "$(awk -F, '$1 == "sync" { print $2 "," $5 }' $csv | sort -u | tr '\n' ' ')" = \
		"100,fdatasync 100,fsync 100,none 1000,fdatasync 1000,fsync 1000,none " ]
	[[ $(cat out) == *"wrote $BATS_FILE_TMPDIR/data/lab2.csv (104 rows)"* ]]
	# the medians its three figures draw, a file each, every row of its
	# experiments counted once
	m=data/lab2-runs-medians.csv
	[ "$(head -1 $m)" = "experiment,flush,lines_per_lock,n,median_run_lines_median,median_run_lines_min,median_run_lines_max,runs_multiple_of_k_count,interleaved_count" ]
	[ "$(tail -n +2 $m | cut -d, -f1-3 | head -n 3 | tr '\n' ' ')" = "lockstep,0,10 lockstep,0,100 lockstep,0,1000 " ]
	[ "$(awk -F, 'NR > 1 { n += $4 } END { print n }' $m)" -eq "$(grep -cE '^(sweep|lockstep),' $csv)" ]
	[ "$(awk -F, 'NR > 1 { n += $5 } END { print n }' data/lab2-locks-medians.csv)" -eq "$(grep -cE '^(locks|sync),' $csv)" ]
	[ "$(tail -n +2 data/lab2-time-medians.csv | cut -d, -f1,2 | tr '\n' ' ')" = "0,1 0,10 0,100 0,1000 0,10000 1,1 1,10 1,100 1,1000 1,10000 " ]
	# it ends with the table of medians
	[[ $(cat out) == *"lockstep    10000           0      flock  none       200000         4 "* ]]
}

# Every question is answered by what the lab prints (the lab page's table,
# question -> printed line): the table rows each one cites.
@test "lab2: the lines each question cites are printed" {
	num='[0-9.e+-]+( \([0-9.e+-]+-[0-9.e+-]+\))?'
	row() {	# EXPERIMENT K FLUSH LOCK SYNC LINES N
		grep -Eq "^  $1 +$2 +$3 +$4 +$5 +$6 +$7 +$num +$num +$num +$num +[0-9]+/$7 +[0-9]+/$7\$" out
	}
	grep -Eq '^  experiment +lines_per_lock +flush +lock +sync +lines_written +n +wall_s +lock_wait_s +vol_cs +median_run_lines +runs_multiple_of_k +interleaved$' out
	for k in 1 10 100 1000 10000; do	# Q2.1, Q2.2, Q2.6
		row sweep $k 1 flock none 10000 4
		row sweep $k 0 flock none 10000 4
	done
	for k in 10 100 1000; do		# Q2.4
		row lockstep $k 1 flock none 20000 4
		row lockstep $k 0 flock none 20000 4
	done
	for lock in none flock fcntl ofd; do	# Q2.5, Q2.7
		row locks 1 1 $lock none 10000 2
		row locks 10000 1 $lock none 200000 2
	done
	for k in 100 1000; do			# Q2.3
		for sync in none fdatasync fsync; do
			row sync $k 1 flock $sync 2000 2
		done
	done
	grep -Eq '^   (BUSY|NOISY|SHORT TRIALS|quiet enough)' out
	grep -q '^== Your predictions (predictions.md, Lab 2) beside the measurements$' out
	# each prediction beside a measurement, never beside the answer to a question
	grep -Eq '^  P2\.3 .*measured: sync rows, K = 100: fflush alone [0-9.e+-]+ s, fdatasync too [0-9.e+-]+ s \(Q2\.3 asks what each does\)$' out
}

@test "lab2: every row is complete and plausible" {
	# 23 fields; positive elapsed time, at least the lock's own share; CPU
	# times and context switches not negative; lock times empty only for
	# flock-writer (plain), which does not measure them
	awk -F, 'NR > 1 && (NF != 23 || $9 <= 0 || $10 < 0 || $11 < 0 || $12 < 0 || $13 < 0 ||
		($1 == "plain") != ($15 == "") || ($15 != "" && ($15 < 0 || $16 < 0 || $15 + $16 > $9)) ||
		($7 != "A" && $7 != "B") || ($22 != 0 && $22 != 1) || ($23 != 0 && $23 != 1)) { print "bad row " NR ": " $0; bad = 1 }
		END { exit bad }' $csv
}

@test "lab2: no line is ever lost (O_APPEND), and runs add up" {
	awk -F, 'NR > 1 && ($17 != $8 || $18 != 0 || $19 < 1 || $21 > $17 || $20 > $21) {
		print "bad row " NR ": " $0; bad = 1 } END { exit bad }' $csv
}

@test "lab2: with a lock and fflush, every run is a multiple of K, in every trial" {
	[ "$(awk -F, 'NR > 1 && $3 == 1 && $4 != "none"' $csv | wc -l)" -eq 64 ]
	awk -F, 'NR > 1 && $3 == 1 && $4 != "none" && $22 != 1 { print "bad row " NR ": " $0; bad = 1 }
		END { exit bad }' $csv
	# a median run of a whole number of batches, too
	awk -F, 'NR > 1 && $3 == 1 && $4 != "none" && $20 % $2 != 0 && $20 * 2 % $2 != 0 { bad = 1 }
		END { exit bad }' $csv
}

# The demonstration: in lockstep every batch is contended, so the check
# tests something in every trial: with fflush every batch is kept whole,
# without it every trial breaks one (the writers meet before each batch,
# so stdio's buffer is written in the middle of the other writer's turn).
@test "lab2: lockstep: batches kept whole with fflush and broken without, in every trial" {
	[ "$(awk -F, '$1 == "lockstep"' $csv | wc -l)" -eq 32 ]
	awk -F, '$1 == "lockstep" && ($23 != 1 || $22 != $3) { print "bad row " NR ": " $0; bad = 1 }
		END { exit bad }' $csv
	# a trial that tested nothing says so in the progress, too
	! grep "^  lockstep .*NOT INTERLEAVED" out
}

@test "lab2: locks at K = 10000 run in lockstep: every trial interleaves" {
	[ "$(awk -F, '$1 == "locks" && $2 == 10000' $csv | wc -l)" -eq 8 ]
	awk -F, '$1 == "locks" && $2 == 10000 && ($23 != 1 || $8 != 200000) { print "bad row " NR ": " $0; bad = 1 }
		END { exit bad }' $csv
}

@test "lab2: the machine and the scratch directory: described, then left empty" {
	for key in date kernel cpu cores scratch_dir_fs scratch_dir_st_blksize; do
		grep -q "^$key: ." data/machine.txt
	done
	[ -z "$(ls -A s)" ]
	[ ! -e data/lab2.csv.tmp ]
}

@test "lab2: the published Raspberry Pi 4 table is complete" {
	ref="$ROOT/data/reference/lab2-rpi4.csv"
	[ "$(head -1 "$ref")" = "lines_per_lock,flush,writer,lines_written,wall_s" ]
	[ "$(tail -n +2 "$ref" | cut -d, -f1-3 | sort -u | wc -l)" -eq 20 ]
	grep -qx "1,1,A,1000000,30.95" "$ref"
	grep -qx "10000,0,B,1000000,0.11" "$ref"
	# its source is cited in the reference README
	grep -q "lab2-rpi4.csv" "$ROOT/data/reference/README.md"
}

@test "lab2: the three figures are drawn from the CSV as PNG files" {
	command -v gnuplot >/dev/null || skip "gnuplot is not installed"
	mkdir -p plot data/reference
	cp "$ROOT/data/reference/lab2-rpi4.csv" data/reference/
	for fig in lab2-time lab2-locks lab2-runs; do
		run bash "$ROOT/common/plot.sh" "$ROOT/plot/$fig.gp" plot/$fig.png
		[ "$status" -eq 0 ]
		[[ $output == "drew plot/$fig.png" ]]
		[ "$(head -c 8 plot/$fig.png | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]
		[ "$(stat -c %s plot/$fig.png)" -gt 10000 ]
	done
}

@test "lab2: stopped half way, it leaves no partial CSV and no scratch file" {
	mkdir -p stop/data
	echo "old results" >stop/data/lab2.csv
	DATA=stop/data SCRATCH=stop/s SCALE=quick bash "$ROOT/labs/2-locking/lab2.sh" >stop/out &
	# wait until the lab is under way, then stop it
	for i in $(seq 100); do grep -q trial stop/out && break; sleep 0.1; done
	kill -TERM $!
	status=0
	wait $! || status=$?
	[ "$status" -eq 143 ]
	[ "$(cat stop/data/lab2.csv)" = "old results" ]
	[ ! -e stop/data/lab2.csv.tmp ]
	[ -z "$(ls -A stop/s)" ]
}
