#!/usr/bin/env bash
# lab3.sh - Lab 3: threads on memory and files (fill, copy, dump).
#
# fillcopy with 1 to 8 threads (up to 2 x cores on bigger machines), the
# xoshiro and rand() generators, with and without --prefault, 3 trials,
# taken in turns so that a slow spell of the machine spreads over all of
# them. Then membw, a plain memcpy() of prefaulted buffers: the ceiling
# for the copy phase.
#   data/lab3.csv          trial, then fillcopy's --csv columns (a row per phase)
#   data/lab3-memcpy.csv   trial, then membw's --csv columns (a row per copy)
source "$(dirname "$0")/../../common/lab.sh"
lab_begin "Lab 3: threads on memory and files (fill, copy, dump)" fillcopy membw

size=$(by_scale 256K 64M 255M)
max_threads=$(by_scale 3 8 8)
cores=$(getconf _NPROCESSORS_ONLN)
if [ "$SCALE" != tiny ] && [ $((2 * cores)) -gt "$max_threads" ]; then
	max_threads=$((2 * cores))
fi
trials=3

csv_open "$DATA/lab3.csv" \
	"trial,threads,bytes,files,rng,copy,prefault,fsync,phase,wall_s,cpu_s,mib_s,faults"
for trial in $(seq "$trials"); do
	for prefault in "" --prefault; do
		for rng in xoshiro rand; do
			echo "trial $trial/$trials: $size, rng $rng, ${prefault:-first-touch faults}, threads 1..$max_threads"
			for threads in $(seq "$max_threads"); do
				rows=$("$BIN/fillcopy" -t "$threads" -s "$size" -d "$SCRATCH" \
					--rng "$rng" $prefault --csv | tail -n +2)
				for row in $rows; do
					csv_row "$trial,$row"
				done
			done
		done
	done
done
csv_commit

echo "plain memcpy of $size, prefaulted, 3 trials of 3 copies"
csv_open "$DATA/lab3-memcpy.csv" "trial,bytes,rep,wall_s,mib_s"
for trial in $(seq "$trials"); do
	rows=$("$BIN/membw" -s "$size" -r 3 --csv | tail -n +2)
	for row in $rows; do
		csv_row "$trial,$row"
	done
done
csv_commit
