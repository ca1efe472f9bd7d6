#!/usr/bin/env bash
# bench-runs.sh: is runs fast enough? Goal: on a cached 40 MB file, no slower
# than twice `wc -l` on the same file. Both are timed by launch (monotonic
# clock, fork to exit), alternately, REPS times, each measurement enough runs
# in a row to last 1.5 s (one run takes milliseconds: start-up and the
# clock's grain would weigh on a single one); the ratio of the medians is
# what counts, as both ran under the same conditions.
source "$(dirname "$0")/../../common/lab.sh"

REPS=5
file=$(scratch_file bench-runs.txt)

# 20,000,000 lines from two writers, interleaved as in the lab
"$BIN/launch" -f "$file" "$BIN/writer -c A -n 10000000 $file" "$BIN/writer -c B -n 10000000 $file" >/dev/null
cat "$file" >/dev/null	# into the page cache

# Runs in a row for 1.5 s of the faster command, from 10 runs of each.
wc10=$(launch_wall 10 "wc -l $file")
runs10=$(launch_wall 10 "$BIN/runs -q $file")
n=$(repeats "$wc10" "$runs10")
echo "== bench: runs -q versus wc -l on a cached 40 MB file, medians of $REPS alternating measurements of $n runs"

wc_times=() runs_times=()
for ((i = 0; i < REPS; i++)); do
	wc_times+=("$(launch_wall "$n" "wc -l $file")")
	runs_times+=("$(launch_wall "$n" "$BIN/runs -q $file")")
done
wc_median=$(printf '%s\n' "${wc_times[@]}" | median)
runs_median=$(printf '%s\n' "${runs_times[@]}" | median)

awk -v w="$wc_median" -v r="$runs_median" -v n="$n" 'BEGIN {
	ratio = r / w
	printf "wc -l   median %.2f ms a run\nruns -q median %.2f ms a run\nratio runs/wc: %.2f (goal: at most 2.00) %s\n",
		w / n * 1000, r / n * 1000, ratio, ratio <= 2 ? "MET" : "MISSED"
	exit ratio > 2
}'
