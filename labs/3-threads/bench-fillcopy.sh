#!/usr/bin/env bash
# bench-fillcopy.sh - Lab 3's speed goals, each a ratio of medians of REPS
# (default 5) measurements of both sides, taken in turns in this run so
# that a busy spell hits both. Every measurement lasts a second or more:
# fillcopy and membw go --passes times over the buffer inside one timed
# phase, and the whole-process runs are summed over 3 runs in a row.
#   1. fill 16 MiB, 1 thread, prefaulted: the default generator (xoshiro)
#      at least 20x faster than --rng rand
#   2. prefaulted fill and copy of 64 MiB with 1 and with 2 threads, with
#      membw's store, copy and generator alone (-g) with as many threads:
#      the copy at least 0.8 of membw's copy MiB/s; the fill at least 0.8
#      of the slower of its two limits, membw's store and the generator
#      (the fill runs the generator and stores what it makes). The fill
#      against the store alone is printed too, with no goal: where the
#      generator is slower than memory, it cannot reach the store
#   3. the whole process, 255 MiB, 1 thread: the defaults with --pages huge
#      at least 5x faster than the source's settings (--rng rand --copy
#      bytes, 4 KiB pages faulted on first touch), timed by launch from
#      start to exit
# Ratios, not times: the machine may be shared. Exit status 1 if a goal
# is missed (after every goal has been measured).
source "$(dirname "$0")/../../common/lab.sh"
REPS=${REPS:-5}
for prog in fillcopy membw launch; do
	[ -x "$BIN/$prog" ] || { echo "$BIN/$prog is missing: run make first" >&2; exit 1; }
done

# fill_copy COLUMN ARGS...: "FILL COPY", one column (9 wall_s, 11 mib_s)
# of the fill and copy rows of fillcopy --csv ARGS.
fill_copy() {
	local column=$1
	shift
	"$BIN/fillcopy" -d "$SCRATCH" -f 1 --csv "$@" |
		awk -F, -v c="$column" '$8 == "fill" { f = $c } $8 == "copy" { k = $c } END { print f, k }'
}
# store_copy_gen COLUMN ARGS...: "STORE COPY GEN", one column (6 wall_s,
# 7 mib_s) of membw --csv -r 1 -g ARGS.
store_copy_gen() {
	local column=$1
	shift
	"$BIN/membw" --csv -r 1 -g "$@" |
		awk -F, -v c="$column" '$2 == "store" { s = $c } $2 == "copy" { k = $c } $2 == "gen" { g = $c }
			END { print s, k, g }'
}
# med NUMBER...: their median.
med() {
	printf '%s\n' "$@" | median
}

# report LABEL TOP BOTTOM GOAL: the ratio TOP / BOTTOM of two medians
# against the goal; a missed goal sets missed=1.
missed=0
report() {
	awk -v label="$1" -v t="$2" -v b="$3" -v goal="$4" 'BEGIN {
		r = t / b
		printf "  %-62s %6.3f  (goal >= %s) %s\n", label, r, goal, (r >= goal ? "met" : "MISSED")
		exit r < goal
	}' || missed=1
}

echo "== Lab 3 benchmark: medians of $REPS alternating measurements of 1 s or more, $(getconf _NPROCESSORS_ONLN) cores"

# 1. Time per byte of each generator.
read -r xs _ <<<"$(fill_copy 9 -s 16M --prefault --passes 10)"
read -r rs _ <<<"$(fill_copy 9 -s 16M --prefault --passes 1 --rng rand)"
px=$(repeats "$xs") pr=$(awk -v s="$rs" 'BEGIN { print int(1.5 / s) + 1 }')
xoshiro=() rand=()
for ((i = 0; i < REPS; i++)); do
	xoshiro+=("$(fill_copy 9 -s 16M --prefault --passes "$px" | awk -v p="$px" '{ print $1 / p }')")
	rand+=("$(fill_copy 9 -s 16M --prefault --passes "$pr" --rng rand | awk -v p="$pr" '{ print $1 / p }')")
done
report "fill 16 MiB, 1 thread: time per pass rand() / xoshiro" "$(med "${rand[@]}")" "$(med "${xoshiro[@]}")" 20

# 2. Against the ceiling, with as many threads.
for t in 1 2; do
	read -r f c <<<"$(fill_copy 9 -t "$t" -s 64M --prefault --passes 10)"
	pf=$(repeats "$f" "$c")
	read -r s m g <<<"$(store_copy_gen 6 -t "$t" -s 64M -p 10)"
	pm=$(repeats "$s" "$m" "$g")
	fill=() copy=() store=() memcpy=() gen=()
	for ((i = 0; i < REPS; i++)); do
		read -r f c <<<"$(fill_copy 11 -t "$t" -s 64M --prefault --passes "$pf")"
		read -r s m g <<<"$(store_copy_gen 7 -t "$t" -s 64M -p "$pm")"
		fill+=("$f") copy+=("$c") store+=("$s") memcpy+=("$m") gen+=("$g")
	done
	f=$(med "${fill[@]}") c=$(med "${copy[@]}") s=$(med "${store[@]}") m=$(med "${memcpy[@]}") g=$(med "${gen[@]}")
	# the fill's ceiling: the slower of the store and the generator
	ceiling=$(printf '%s\n' "$s" "$g" | sort -g | head -1)
	echo "  $t thread(s), median MiB/s: fill $f, membw store $s, generator alone $g; copy $c, membw copy $m"
	echo "  (fill / membw store: $(awk -v f="$f" -v s="$s" 'BEGIN { printf "%.3f", f / s }'); no goal: the generator may be the slower limit)"
	report "fill 64 MiB, $t thread(s), prefaulted: MiB/s / min(store, generator)" "$f" "$ceiling" 0.8
	report "copy 64 MiB, $t thread(s), prefaulted: MiB/s / membw copy" "$c" "$m" 0.8
done

# 3. The whole process against the source's settings; ours 3 runs in a row
# (each well under a second), the source's one (several seconds).
source_cmd="$BIN/fillcopy -s 255M -d $SCRATCH --rng rand --copy bytes"
ours_cmd="$BIN/fillcopy -s 255M -d $SCRATCH --pages huge"
small_cmd="$BIN/fillcopy -s 255M -d $SCRATCH"
theirs=() ours=() small=()
for ((i = 0; i < REPS; i++)); do
	theirs+=("$(launch_wall 1 "$source_cmd")")
	ours+=("$(launch_wall 3 "$ours_cmd" | awk '{ print $1 / 3 }')")
	small+=("$(launch_wall 3 "$small_cmd" | awk '{ print $1 / 3 }')")
done
t=$(med "${theirs[@]}") o=$(med "${ours[@]}") d=$(med "${small[@]}")
echo "  whole process, median s: source's settings $t, defaults $d, defaults with --pages huge $o"
echo "  (the defaults without --pages huge: $(awk -v t="$t" -v d="$d" 'BEGIN { printf "%.2f", t / d }') times faster than the source's settings; no goal)"
report "whole process 255 MiB, 1 thread: source's settings / --pages huge" "$t" "$o" 5
exit $missed
