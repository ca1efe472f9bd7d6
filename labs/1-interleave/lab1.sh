#!/usr/bin/env bash
# Lab 1: two writers, one file. How do their lines interleave, and when are
# lines lost? Runs writer A and writer B together with launch, then reads
# the file with runs. One row per experiment, trial and writer in
# data/lab1.csv; a table of medians at the end.
source "$(dirname "$0")/../../common/lab.sh"

lab_begin "Lab 1: interleaving" writer launch runs

# Lines per writer; the source wrote 1,000,000. At quick scale 500,000: a
# writer with the default buffer makes 245 write(2)s, enough for the two
# writers to overlap and leave many runs (at 200,000, 98 writes took a
# writer less than a time slice, and most trials left one or two runs).
# At tiny scale (the tests) 20,000: unbuffered writers still take tens of
# milliseconds, so a busy machine's pauses cannot make them look faster
# than buffered ones.
LINES=$(by_scale 20000 500000 1000000)
TRIALS=${TRIALS:-$(by_scale 3 5 5)}
# Overwrite: the source's million lines at every scale (about 25 ms a
# writer), so that the writers overlap across several of the scheduler's
# time slices even on a busy machine, and 5 trials: 1 trial in 10 or so
# still ends with one writer's lines only (it wrote last everywhere), and
# says so in the CSV (interleaved = 0).
OW_LINES=1000000
OW_TRIALS=$((TRIALS > 5 ? TRIALS : 5))
BUFFERS="0 16 128 1024 8192 65536"	# -b values; 0 is unbuffered
file=$(scratch_file lab1.txt)
out=$(scratch_file lab1-launch.csv)
summary=$(scratch_file lab1-runs.csv)
run_list=$(scratch_file lab1-run-list.csv)
# the writers' command lines, which launch splits on white space
cmd_bin=$(launch_path "$BIN") cmd_file=$(launch_path "$file")

csv_open "$DATA/lab1.csv"

# experiment NAME MODE BUFFER LINES TRIALS [WRITER OPTION...]: TRIALS runs
# of writers A and B started together; BUFFER is a -b value, or "" for
# stdio's default.
experiment() {
	local name=$1 mode=$2 buffer=$3 lines=$4 trials=$5 trial overwrite=
	shift 5
	[ "$mode" = append ] || overwrite=--overwrite
	local opts="-n $lines -m $mode${buffer:+ -b $buffer}${*:+ $*}"

	for ((trial = 1; trial <= trials; trial++)); do
		"$BIN/launch" --csv -f "$file" \
			"$cmd_bin/writer -c A $opts $cmd_file" "$cmd_bin/writer -c B $opts $cmd_file" >"$out"
		"$BIN/runs" --summary-csv "$file" >"$summary"
		"$BIN/runs" --csv "$file" >"$run_list"
		echo -n "  $name${buffer:+ -b $buffer}, trial $trial: "
		"$PYTHON" common/trial.py --launch "$out" --runs "$summary" --run-list "$run_list" --csv "$CSV_TMP" \
			--lines "$lines" ${overwrite:+"$overwrite"} \
			--set "experiment=$name" --set "mode=$mode" \
			--set "buffer_bytes=$buffer" --set "trial=$trial"
	done
}

# --together: the writers start their first line at the same moment (after
# exec and open, at launch's second barrier). Without it, exec gives one a
# head start of up to a few milliseconds, as long as a whole quick run.
experiment default append "" "$LINES" "$TRIALS" --together
for buffer in $BUFFERS; do
	experiment buffer append "$buffer" "$LINES" "$TRIALS" --together
done
experiment overwrite overwrite "" "$OW_LINES" "$OW_TRIALS" --together

csv_commit
# What the figures draw: lab1-runs.png, the interleaved trials only (the
# others tested nothing); lab1-time.png, every trial.
medians "$DATA/lab1-runs-medians.csv" "$DATA/lab1.csv" --by experiment,buffer_bytes \
	--values median_run_lines --gcd run_unit_lines --where mode=append --where interleaved=1
medians "$DATA/lab1-time-medians.csv" "$DATA/lab1.csv" --by experiment,buffer_bytes \
	--values wall_s,sys_s,user_s --where mode=append
echo
# The runs (Q1.1, Q1.2, Q1.4): gcd(run_unit_lines) is the largest number of
# lines that every run of the setting is a multiple of (its writers' last
# runs left out): what one write(2) carried, even where the scheduler let
# a writer make many writes in a row and the median run is many buffers.
# One row per configuration (labs/1-interleave/trials.csv: experiment,
# buffer_bytes, mode).
config=$(configuration lab1.csv) || exit 1
"$PYTHON" common/table.py "$DATA/lab1.csv" --by "$config" \
	--values median_run_lines,max_run_lines,lost_lines --gcd run_unit_lines --count interleaved \
	--title "== Runs (data/lab1.csv): median (min-max) over the n writer rows of each setting"
# The times (Q1.2, Q1.3, Q1.6), per writer, for its lines_written lines.
"$PYTHON" common/table.py "$DATA/lab1.csv" --by "$config,lines_written" \
	--values wall_s,user_s,sys_s,start_delay_s \
	--title "== Times (data/lab1.csv): seconds per writer, median (min-max)"
lab_end --spread "$DATA/lab1.csv:$(configuration lab1.csv +):wall_s:mode=append" -- \
	"P1.1=gcd(run_unit_lines) $(measured gcd "$DATA/lab1.csv" run_unit_lines experiment=default) lines (st_blksize $(sed -n 's/^scratch_dir_st_blksize: //p' "$DATA/machine.txt") bytes)" \
	"P1.2=$(measured median "$DATA/lab1.csv" wall_s experiment=buffer buffer_bytes=0) s for $LINES lines" \
	"P1.3=$(measured median "$DATA/lab1.csv" wall_s experiment=default) s for $LINES lines" \
	"P1.4=$(measured median "$DATA/lab1.csv" lost_lines mode=overwrite) lines, the median over the overwrite trials"
