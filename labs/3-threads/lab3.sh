#!/usr/bin/env bash
# lab3.sh - Lab 3: threads on memory and files (fill, copy, dump).
#
# fillcopy with 1 to 2 x cores threads (at least 3; at full scale at least
# 8), 3 trials, taken in turns so that a slow spell of the machine spreads
# over all of them:
#   - xoshiro with the first-touch page faults timed, with --prefault, and
#     with --pages huge (faults timed, 2 MiB per fault where allowed);
#   - rand(), prefaulted and not, at every thread count at full scale; at
#     quick scale prefaulted at 1 and 2 threads only (a second per run).
# Then membw, the machine's store and copy bandwidth with prefaulted
# buffers at each thread count: the ceiling for the fill and the copy.
#   data/lab3.csv         trial, then fillcopy's --csv columns (a row per phase)
#   data/lab3-membw.csv   trial, then membw's --csv columns (a row per store, per copy)
# It ends with a table of the medians the questions ask for.
source "$(dirname "$0")/../../common/lab.sh"
lab_begin "Lab 3: threads on memory and files (fill, copy, dump)" fillcopy membw

size=$(by_scale 256K 64M 255M)
cores=$(getconf _NPROCESSORS_ONLN)
max_threads=$((2 * cores))
min_threads=$(by_scale 3 3 8)
[ "$max_threads" -ge "$min_threads" ] || max_threads=$min_threads
[ "$SCALE" != tiny ] || max_threads=3
trials=3
mapfile -t all < <(seq "$max_threads")
if [ "$SCALE" = quick ]; then
	rand_threads=(1 2) rand_prefault=(--prefault)
else
	rand_threads=("${all[@]}") rand_prefault=(first-touch --prefault)
fi
echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null || echo "not in this kernel")"

# run_fillcopy RNG PAGES PREFAULT THREADS...: one run per thread count, its
# rows into the CSV. Each thread count is printed when its run is done.
run_fillcopy() {
	local rng=$1 pages=$2 prefault=$3 threads row out options=()
	shift 3
	printf '%s' "trial $trial/$trials: $size, rng $rng, $pages pages, ${prefault/first-touch/first-touch faults}, threads"
	[ "$prefault" != --prefault ] || options=(--prefault)
	for threads in "$@"; do
		# fillcopy failing stops the lab with its status (3: a part not
		# written yet), after ending the progress line
		out=$("$BIN/fillcopy" -t "$threads" -s "$size" -d "$SCRATCH" --rng "$rng" \
			--pages "$pages" "${options[@]}" --csv) || { status=$?; echo; exit "$status"; }
		for row in $(tail -n +2 <<<"$out"); do
			csv_row "$trial,$row"
		done
		printf ' %s' "$threads"
	done
	echo
}

csv_open "$DATA/lab3.csv" \
	"trial,threads,bytes,files,rng,copy,prefault,fsync,phase,wall_s,cpu_s,mib_s,faults,pages,passes"
for trial in $(seq "$trials"); do
	run_fillcopy xoshiro 4k first-touch "${all[@]}"
	run_fillcopy xoshiro 4k --prefault "${all[@]}"
	run_fillcopy xoshiro huge first-touch "${all[@]}"
	for prefault in "${rand_prefault[@]}"; do
		run_fillcopy rand 4k "$prefault" "${rand_threads[@]}"
	done
done
csv_commit

csv_open "$DATA/lab3-membw.csv" "trial,threads,op,bytes,passes,rep,wall_s,mib_s"
for trial in $(seq "$trials"); do
	printf '%s' "trial $trial/$trials: membw, 3 stores and 3 copies of $size, prefaulted, threads"
	for threads in "${all[@]}"; do
		for row in $("$BIN/membw" -t "$threads" -s "$size" -r 3 --csv | tail -n +2); do
			csv_row "$trial,$row"
		done
		printf ' %s' "$threads"
	done
	echo
done
csv_commit

echo
"$PYTHON" common/table.py "$DATA/lab3.csv" --title "Medians: fillcopy, 1 and 2 threads (data/lab3.csv)" \
	--where threads=1,2 --where phase=fill,copy --by rng,pages,prefault,phase,threads --values wall_s,mib_s,faults
"$PYTHON" common/table.py "$DATA/lab3.csv" --title "Medians: the dump, xoshiro, prefaulted" \
	--where rng=xoshiro --where prefault=1 --where phase=dump --by threads --values wall_s,mib_s
"$PYTHON" common/table.py "$DATA/lab3-membw.csv" --title "Medians: membw, the ceiling (data/lab3-membw.csv)" \
	--by op,threads --values wall_s,mib_s
