#!/usr/bin/env bash
# lab3.sh - Lab 3: threads on memory and files (fill, copy, dump).
#
# fillcopy with 1 to 2 x cores threads (at least 3; at full scale at least
# 8), 3 trials (TRIALS=N), taken in turns so that a slow spell of the
# machine spreads over all of them:
#   - xoshiro with the first-touch page faults timed, with --prefault, and
#     with --pages huge (faults timed, 2 MiB per fault where allowed, after
#     an untimed huge-page run that has the host back the memory);
#   - rand(), prefaulted and not, at every thread count at full scale; at
#     quick scale prefaulted at 1 and 2 threads only (a second per run).
# In each trial, right after the prefaulted xoshiro runs, membw: the
# machine's store and copy bandwidth with prefaulted buffers at each thread
# count, the ceiling for the fill and the copy.
# A prefaulted xoshiro fill, copy and dump, and membw, go over the buffer
# several times in one timed phase (--passes, calibrated at the start with
# one thread), so that each lasts long enough to time at 2 threads too: one
# pass over 64 MiB takes a few ms, less than the scheduler's time slice,
# and a busy machine's hiccup would be the whole measurement. The phases
# with page faults inside the timing, and rand(), last long enough in one.
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
trials=${TRIALS:-3}
mapfile -t all < <(seq "$max_threads")
if [ "$SCALE" = quick ]; then
	rand_threads=(1 2) rand_prefault=(--prefault)
else
	rand_threads=("${all[@]}") rand_prefault=(first-touch --prefault)
fi
# passes_for TARGET SECONDS...: passes for the shortest of the phases timed
# at SECONDS for 10 passes to last TARGET seconds (at least 1).
passes_for() {
	printf '%s\n' "${@:2}" | sort -g | head -1 | awk -v t="$1" '{ n = int(10 * t / $1) + 1; print n }'
}
target=$(by_scale 0.005 0.25 0.3)	# seconds of the shortest phase, 1 thread
read -r fill_s copy_s < <("$BIN/fillcopy" -s "$size" -d "$SCRATCH" --prefault --passes 10 --csv |
	awk -F, '$8 == "fill" { f = $9 } $8 == "copy" { c = $9 } END { print f, c }')
passes=$(passes_for "$target" "$fill_s" "$copy_s")
read -r store_s mcopy_s < <("$BIN/membw" -s "$size" -r 1 -p 10 --csv |
	awk -F, '$2 == "store" { s = $6 } $2 == "copy" { c = $6 } END { print s, c }')
membw_passes=$(passes_for "$target" "$store_s" "$mcopy_s")
echo "passes over the $size buffer, for the shortest phase to last about $target s with 1 thread:" \
	"fillcopy --prefault --passes $passes (10 passes: fill $fill_s s, copy $copy_s s)," \
	"membw -p $membw_passes (10 passes: store $store_s s, copy $mcopy_s s)"
echo "transparent huge pages: $(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null ||
	{ [ -d /sys/kernel/mm ] && echo "not in this kernel"; } ||
	echo "unknown (/sys is not mounted here: a chroot?)")"

# run_fillcopy RNG PAGES PREFAULT THREADS...: one run per thread count, its
# rows into the CSV. Each thread count is printed when its run is done.
run_fillcopy() {
	local rng=$1 pages=$2 prefault=$3 threads row out options=()
	shift 3
	printf '%s' "trial $trial/$trials: $size, rng $rng, $pages pages, ${prefault/first-touch/first-touch faults}, threads"
	# prefaulted xoshiro: $passes passes (rand() lasts long enough in one)
	[ "$prefault" != --prefault ] || options=(--prefault)
	[ "$prefault" != --prefault ] || [ "$rng" != xoshiro ] || [ "$pages" != 4k ] || options+=(--passes "$passes")
	for threads in "$@"; do
		# fillcopy failing stops the lab with its status (3: a part not
		# written yet), after ending the progress line
		out=$("$BIN/fillcopy" -t "$threads" -s "$size" -d "$SCRATCH" --rng "$rng" \
			--pages "$pages" "${options[@]}" --csv) || { status=$?; echo; exit "$status"; }
		csv_program fillcopy "$out" "${CSV_HEADER#trial,}"
		for row in $(tail -n +2 <<<"$out"); do
			csv_row "$trial,$row"
		done
		printf ' %s' "$threads"
	done
	echo
}

# run_membw: membw at every thread count, its rows (with the trial number)
# into membw_rows, for data/lab3-membw.csv once data/lab3.csv is done.
membw_rows=$(scratch_file lab3-membw-rows)
membw_header=$(declared lab3-membw.csv) || exit 1
run_membw() {
	local threads row out
	printf '%s' "trial $trial/$trials: membw, a store and a copy of $size, $membw_passes passes each, prefaulted, threads"
	for threads in "${all[@]}"; do
		out=$("$BIN/membw" -t "$threads" -s "$size" -r 1 -p "$membw_passes" --csv)
		csv_program membw "$out" "${membw_header#trial,}"
		for row in $(tail -n +2 <<<"$out"); do
			echo "$trial,$row" >>"$membw_rows"
		done
		printf ' %s' "$threads"
	done
	echo
}

csv_open "$DATA/lab3.csv"
: >"$membw_rows"
for trial in $(seq "$trials"); do
	run_fillcopy xoshiro 4k first-touch "${all[@]}"
	# the ceiling right after the prefaulted fill and copy it is the
	# ceiling of: a busy spell of the machine hits both sides of the ratio
	run_fillcopy xoshiro 4k --prefault "${all[@]}"
	run_membw
	# An untimed huge-page run first. On a virtual machine whose balloon
	# reports free memory to the host, a free 2 MiB block the guest has not
	# used for a few seconds is given back, and the first huge fault on it
	# waits for the host to find the memory again: measured on the kit's VM,
	# 10 to 25 times the CPU of the same faults a second later. Without this
	# run only the first thread count (1) paid it, and huge pages looked
	# slower than 4 KiB ones there. The timed runs follow right after, on
	# the blocks this one has just freed.
	"$BIN/fillcopy" -t "$max_threads" -s "$size" -d "$SCRATCH" --pages huge >/dev/null 2>&1 || true
	run_fillcopy xoshiro huge first-touch "${all[@]}"
	for prefault in "${rand_prefault[@]}"; do
		run_fillcopy rand 4k "$prefault" "${rand_threads[@]}"
	done
done
csv_commit

csv_open "$DATA/lab3-membw.csv"
while IFS= read -r row; do
	csv_row "$row"
done <"$membw_rows"
csv_commit

echo
# wall_s/passes: the time of one pass over the buffer, comparable between
# the runs of one pass and of several.
"$PYTHON" common/table.py "$DATA/lab3.csv" \
	--title "Medians: fillcopy, 1, 2 and $max_threads threads (data/lab3.csv; wall_s/passes: seconds per pass over $size)" \
	--where threads=1,2,"$max_threads" --where phase=fill,copy --by rng,pages,prefault,phase,threads,passes \
	--values wall_s/passes,cpu_s/passes,mib_s,faults
"$PYTHON" common/table.py "$DATA/lab3.csv" \
	--title "Medians: the dump, xoshiro, prefaulted (wall_s/passes: seconds per pass over the files)" \
	--where rng=xoshiro --where prefault=1 --where phase=dump --by threads,passes --values wall_s/passes,mib_s
"$PYTHON" common/table.py "$DATA/lab3-membw.csv" --title "Medians: membw, the ceiling (data/lab3-membw.csv)" \
	--by op,threads,passes --values wall_s/passes,mib_s
# Q3.2, Q3.5, Q3.6: on a busy machine more threads get more time slices
# against the other programs, so they look faster where idle cores would
# show no gain (rand(), beyond the cores), and the copy falls short of a
# ceiling measured at another moment.
lab_end --needs-cores Q3.2,Q3.5,Q3.6 --spread "$DATA/lab3.csv:rng+pages+prefault+phase+threads:mib_s" -- \
	"P3.1=$(measured median "$DATA/lab3.csv" mib_s rng=xoshiro pages=4k prefault=1 phase=copy threads=2) MiB/s" \
	"P3.2=$(measured median "$DATA/lab3.csv" mib_s rng=xoshiro pages=4k prefault=1 phase=copy threads=1) MiB/s" \
	"P3.3=$(measured median "$DATA/lab3.csv" wall_s rng=rand prefault=1 phase=fill threads=2) s" \
	"P3.4=$(measured median "$DATA/lab3.csv" wall_s rng=rand prefault=1 phase=fill threads=1) s"
