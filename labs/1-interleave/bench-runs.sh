#!/usr/bin/env bash
# bench-runs.sh: is runs fast enough? Goal: on a cached 40 MB file, no slower
# than twice `wc -l` on the same file. Both are timed by launch (monotonic
# clock, fork to exit), alternately, REPS times; the ratio of the medians is
# what counts, as both ran under the same conditions.
source "$(dirname "$0")/../../common/lab.sh"

REPS=11
file=$(scratch_file bench-runs.txt)
echo "== bench: runs -q versus wc -l on a cached 40 MB file, medians of $REPS alternating runs"

# 20,000,000 lines from two writers, interleaved as in the lab
"$BIN/launch" -f "$file" "$BIN/writer -c A -n 10000000 $file" "$BIN/writer -c B -n 10000000 $file" >/dev/null
cat "$file" >/dev/null	# into the page cache

# wall_s of one run of a command, from launch's CSV row "1,1,...". The
# command's own output goes to the same place: the row is found by its start.
wall() {
	"$BIN/launch" --csv "$@" | awk -F, '/^1,1,/ { print $(NF-5) }'
}

wc_times=() runs_times=()
for ((i = 0; i < REPS; i++)); do
	wc_times+=("$(wall "wc -l $file")")
	runs_times+=("$(wall "$BIN/runs -q $file")")
done
wc_median=$(printf '%s\n' "${wc_times[@]}" | median)
runs_median=$(printf '%s\n' "${runs_times[@]}" | median)

awk -v w="$wc_median" -v r="$runs_median" 'BEGIN {
	ratio = r / w
	printf "wc -l   median %.2f ms\nruns -q median %.2f ms\nratio runs/wc: %.2f (goal: at most 2.00) %s\n",
		w * 1000, r * 1000, ratio, ratio <= 2 ? "MET" : "MISSED"
	exit ratio > 2
}'
