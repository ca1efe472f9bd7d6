#!/usr/bin/env bats
# Lab 1 end to end at SCALE=tiny: the CSV, machine.txt and the figures.

load ../../../tests/helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	needs writer launch runs	# the lab runs them
}

# The lab runs once for the whole file, in setup_file; each test reads its
# output (out), its CSV and machine.txt from there.
setup_file() {
	cd "$BATS_FILE_TMPDIR" || return 1
	status=0
	# the kit seen from a folder whose name has a space, as a student's may
	# be: launch splits its commands on white space
	ln -s "$ROOT" "my kit"
	# bounded: a lab whose writers wait forever fails instead of hanging
	BIN="$PWD/my kit/${BIN#"$ROOT"/}" DATA=data SCRATCH=s SCALE=tiny timeout 600 \
		bash "my kit/labs/1-interleave/lab1.sh" >out 2>&1 || status=$?
	echo "$status" >status
}

run_lab1() {
	cd "$BATS_FILE_TMPDIR" || return 1
	[ "$(cat status)" -eq 0 ] || { cat out; return 1; }
	output=$(cat out)
}

@test "lab1: writes data/lab1.csv with one row per experiment, trial and writer" {
	run_lab1
	csv=data/lab1.csv
	[ "$(head -1 $csv)" = "experiment,mode,buffer_bytes,trial,writer,lines_written,wall_s,user_s,sys_s,vol_cs,invol_cs,start_delay_s,lines_found,lost_lines,runs,median_run_lines,max_run_lines,run_unit_lines,interleaved" ]
	# default + 6 buffer sizes, 3 trials; overwrite, 5 trials; 2 writers
	[ "$(tail -n +2 $csv | wc -l)" -eq 52 ]
	[ "$(tail -n +2 $csv | cut -d, -f1,3 | sort -u | tr '\n' ' ')" = "buffer,0 buffer,1024 buffer,128 buffer,16 buffer,65536 buffer,8192 default, overwrite, " ]
	# every row has 19 fields and positive elapsed times
	awk -F, 'NR > 1 && (NF != 19 || $7 <= 0) { exit 1 }' $csv
	# the medians its figures draw: of the interleaved writer rows only (a
	# setting whose trials never interleaved has no row), sorted by
	# experiment and buffer (numbers as numbers); of every row for the times
	m=data/lab1-runs-medians.csv
	[ "$(head -1 $m)" = "experiment,buffer_bytes,n,median_run_lines_median,median_run_lines_min,median_run_lines_max,run_unit_lines_gcd" ]
	[ "$(grep '^buffer,' $m | cut -d, -f2)" = "$(grep '^buffer,' $m | cut -d, -f2 | sort -n)" ]
	[ "$(awk -F, 'NR > 1 { n += $3 } END { print n }' $m)" -eq "$(awk -F, '$2 == "append" && $19 == 1' $csv | wc -l)" ]
	[ "$(head -1 data/lab1-time-medians.csv | cut -d, -f1-4)" = "experiment,buffer_bytes,n,wall_s_median" ]
	[ "$(tail -n +2 data/lab1-time-medians.csv | cut -d, -f3 | tr '\n' ' ')" = "6 6 6 6 6 6 6 " ]
	# it ends with the tables of medians, the machine's load and the predictions
	[[ $output == *"== Runs (data/lab1.csv): median (min-max) over the n writer rows of each setting"* ]]
	[[ $output == *"== Times (data/lab1.csv): seconds per writer"* ]]
	[[ $output == *"overwrite                 overwrite  10 "* ]]
	[[ $output == *"== The machine while Lab 1 ran ("*" cores): other programs used "* ]]
	[[ $output == *"== Your predictions (predictions.md, Lab 1)"* ]]
	# no scratch file and no temporary CSV left behind
	[ -z "$(ls -A s)" ]
	[ ! -e data/lab1.csv.tmp ]
}

@test "lab1: append mode loses nothing; overwrite loses exactly one writer's worth" {
	run_lab1
	csv=data/lab1.csv
	awk -F, '$2 == "append" && ($13 != 20000 || $14 != 0) { exit 1 }' $csv
	# overwrite: both writers write 1000000 lines over the same 2000000
	# bytes, so the two writers together lose 1000000 lines in every trial
	[ "$(awk -F, '$2 == "overwrite" { lost[$4] += $14 } END { for (t in lost) print lost[t] }' $csv | sort -u)" = 1000000 ]
	# every line found belongs to a run: runs >= 1 wherever lines were found
	awk -F, 'NR > 1 && $13 > 0 && ($15 < 1 || $17 > $13) { exit 1 }' $csv
}

# The demonstration: lines lost without O_APPEND split between A and B.
# About 1 overwrite trial in 10 leaves one writer's lines only (it wrote
# last everywhere); the CSV must say so (interleaved = 0), and at least one
# of the 5 trials must show the split (all 5 failing: about 1 run in 10^5).
@test "lab1: overwrite splits the lost lines between A and B, or says the trial tested nothing" {
	run_lab1
	python3 - data/lab1.csv <<-'PY'
	import csv, sys
	rows = [r for r in csv.DictReader(open(sys.argv[1])) if r["mode"] == "overwrite"]
	trials = {}
	for r in rows:
	    trials.setdefault(r["trial"], []).append(r)
	split = 0
	for t, (a, b) in trials.items():
	    lost = (int(a["lost_lines"]), int(b["lost_lines"]))
	    both = all(n > 0 for n in lost)
	    assert a["interleaved"] == b["interleaved"] == str(int(both)), (t, lost)
	    split += both
	assert len(trials) == 5 and split >= 1, f"{split} of {len(trials)} trials split"
	PY
}

# The run unit: every run (a writer's last left out) is a whole number of
# writes, so with a buffer of B bytes (2-byte lines, 128 bytes and up: below
# that glibc writes the overflowing line apart) the unit is a multiple of
# B / 2, and the table's gcd of the units is printed beside the medians.
@test "lab1: run_unit_lines is a whole number of buffers, and its gcd is in the table" {
	run_lab1
	# exit 3: no writer of -b 128 and up interleaved in this run (at tiny
	# scale the scheduler may run each writer whole), nothing to check
	local checked=0
	python3 - data/lab1.csv <<-'PY' || checked=$?
	import csv, sys
	seen = 0
	for r in csv.DictReader(open(sys.argv[1])):
	    if r["mode"] == "append" and r["buffer_bytes"] not in ("", "0", "16") and r["run_unit_lines"]:
	        assert int(r["run_unit_lines"]) % (int(r["buffer_bytes"]) // 2) == 0, r
	        seen += 1
	sys.exit(0 if seen else 3)
	PY
	[ "$checked" -eq 0 ] || [ "$checked" -eq 3 ]
	[[ $output == *"gcd(run_unit_lines)"* ]]
	grep -q '^other_programs_cores: [0-9.]*$' data/lab1-load.txt
	# the scale it ran at, which make handin carries to the grader
	[ "$(head -1 data/lab1-load.txt)" = "scale: tiny" ]
	grep -Eq '^verdict: (quiet|busy|noisy|short|busy noisy|busy short)$' data/lab1-load.txt
	[ "$checked" -eq 0 ] || skip "no writer of -b 128 and up interleaved at tiny scale in this run: no run unit to check"
}

# Every question is answered by what the lab prints (the lab page's table,
# question -> printed line): the rows and columns each one cites.
@test "lab1: the lines each question cites are printed" {
	run_lab1
	num='[0-9.e+-]+( \([0-9.e+-]+-[0-9.e+-]+\))?'
	# Q1.1, Q1.2, Q1.4: the Runs table's header, its default row with the
	# run unit, st_blksize beside the unit in the predictions' lines
	grep -Eq '^  experiment +buffer_bytes +mode +n +median_run_lines +max_run_lines +lost_lines +interleaved +gcd\(run_unit_lines\)$' out
	grep -Eq "^  default +append +6 +$num +$num +0 +[0-9]+/6 +([0-9]+|-)\$" out
	grep -Eq '^  P1.1 .*measured: gcd\(run_unit_lines\) ([0-9]+|-) lines \(st_blksize [0-9]+ bytes\)$' out
	# Q1.2, Q1.3, Q1.6: the Times table: the default and unbuffered rows,
	# their lines_written, wall_s, sys_s and start_delay_s
	grep -Eq '^  experiment +buffer_bytes +mode +lines_written +n +wall_s +user_s +sys_s +start_delay_s$' out
	grep -Eq "^  default +append +20000 +6 +$num +$num +$num +$num\$" out
	grep -Eq "^  buffer +0 +append +20000 +6 +$num +$num +$num +$num\$" out
	# Q1.4: each writer's loss in each overwrite trial
	for t in 1 2 3 4 5; do
		grep -Eq "^  overwrite, trial $t: A [0-9.]+ s, median run [0-9]+, run unit [0-9-]+, lost [0-9]+; B [0-9.]+ s, median run [0-9]+, run unit [0-9-]+, lost [0-9]+" out
	done
	# the noise verdict and the predictions
	grep -Eq '^   (BUSY|NOISY|SHORT TRIALS|quiet enough)' out
}

@test "lab1: data/machine.txt describes the machine and the scratch file system" {
	run_lab1
	for key in date kernel cpu cores memory scratch_dir_fs scratch_dir_st_blksize compiler libc; do
		grep -q "^$key: ." data/machine.txt
	done
	[ "$(sed -n 's/^scratch_dir_st_blksize: //p' data/machine.txt)" -gt 0 ]
}

@test "lab1: the figures are drawn from the CSV as PNG files" {
	command -v gnuplot >/dev/null || skip "gnuplot is not installed"
	run_lab1
	mkdir -p plot
	for fig in lab1-runs lab1-time; do
		bash "$ROOT/common/plot.sh" "$ROOT/plot/$fig.gp" plot/$fig.png
		[ "$(head -c 8 plot/$fig.png | od -An -tx1 | tr -d ' ')" = 89504e470d0a1a0a ]
		[ "$(stat -c %s plot/$fig.png)" -gt 10000 ]
	done
}

@test "lab1: an unknown SCALE is refused before anything runs" {
	SCALE=huge DATA=data SCRATCH=s run bash "$ROOT/labs/1-interleave/lab1.sh"
	[ "$status" -eq 2 ]
	[[ $output == *"SCALE must be tiny, quick or full, not 'huge'"* ]]
	[ ! -e data/lab1.csv ]
}

@test "lab1: stopped half way, it leaves no partial CSV and no scratch file" {
	mkdir data
	echo "old results" >data/lab1.csv
	DATA=data SCRATCH=s SCALE=quick bash "$ROOT/labs/1-interleave/lab1.sh" >out &
	# wait until the lab is under way, then stop it
	for i in $(seq 100); do grep -q trial out && break; sleep 0.1; done
	kill -TERM $!
	status=0
	wait $! || status=$?
	[ "$status" -eq 143 ]
	[ "$(cat data/lab1.csv)" = "old results" ]
	[ ! -e data/lab1.csv.tmp ]
	[ -z "$(ls -A s)" ]
}
