#!/usr/bin/env bash
# Lab 1: two writers, one file. How do their lines interleave, and when are
# lines lost? Runs writer A and writer B together with launch, then reads
# the file with runs. One row per experiment, trial and writer in
# data/lab1.csv.
source "$(dirname "$0")/../../common/lab.sh"

lab_begin "Lab 1: interleaving" writer launch runs

LINES=$(by_scale 2000 200000 1000000)	# per writer; the source wrote 1,000,000
TRIALS=$(by_scale 3 5 5)
BUFFERS="0 16 128 1024 8192 65536"	# -b values; 0 is unbuffered
file=$(scratch_file lab1.txt)

csv_open "$DATA/lab1.csv" "experiment,mode,buffer_bytes,trial,writer,lines_written,wall_s,user_s,sys_s,vol_cs,invol_cs,start_delay_s,lines_found,lost_lines,runs,median_run_lines,max_run_lines"

# experiment NAME MODE BUFFER: TRIALS runs of writers A and B started
# together; BUFFER is a -b value, or "" for stdio's default.
experiment() {
	local name=$1 mode=$2 buffer=$3 trial writer child timing summary times found
	local opts="-n $LINES -m $mode${buffer:+ -b $buffer}"

	for ((trial = 1; trial <= TRIALS; trial++)); do
		timing=$("$BIN/launch" --csv -f "$file" \
			"$BIN/writer -c A $opts $file" "$BIN/writer -c B $opts $file")
		summary=$("$BIN/runs" --summary-csv "$file")
		child=0
		for writer in A B; do
			child=$((child + 1))
			# launch --csv: trial,child,command,start_delay_s,wall_s,user_s,
			# sys_s,vol_cs,invol_cs,exit_status. Fields are counted from the
			# end, as the command may hold quoted commas.
			times=$(awk -F, -v child=$child 'NR > 1 && $2 == child {
				print $(NF-5) "," $(NF-4) "," $(NF-3) "," $(NF-2) "," $(NF-1) "," $(NF-6) }' <<<"$timing")
			# runs --summary-csv: char,lines,runs,min_run,median_run,max_run;
			# no row at all when every line of this writer was lost.
			found=$(awk -F, -v w=$writer 'NR > 1 && $1 == w { print $2 "," $3 "," $5 "," $6 }' <<<"$summary")
			found=${found:-0,0,0,0}
			csv_row "$name,$mode,$buffer,$trial,$writer,$LINES,$times,${found%%,*},$((LINES - ${found%%,*})),${found#*,}"
		done
		echo "  $name${buffer:+ -b $buffer}, trial $trial: $(tail -n 2 "$CSV_TMP" |
			awk -F, '{ printf "%s %.4f s, median run %s, lost %s  ", $5, $7, $16, $14 }')"
	done
}

experiment default append ""
for buffer in $BUFFERS; do
	experiment buffer append "$buffer"
done
experiment overwrite overwrite ""

csv_commit
