#!/usr/bin/env bash
# bench-fillcopy.sh - Lab 3's performance goals, each a ratio against a
# reference measured in the same run: medians of REPS (default 5) runs of
# the two sides, taken in turns so that a busy spell hits both.
#   1. fill, 1 thread: the default generator (xoshiro) at least 20x faster
#      than --rng rand
#   2. fill 255 MiB, xoshiro: 2 threads at least 1.7x faster than 1 (with 2 cores)
#   3. copy, 1 thread, --prefault: at least 90% of membw's plain memcpy()
# Ratios, not times: the machine may be shared. Exit status 1 if a goal
# is missed (after every goal has been measured).
source "$(dirname "$0")/../../common/lab.sh"
REPS=${REPS:-5}
for prog in fillcopy membw; do
	[ -x "$BIN/$prog" ] || { echo "$BIN/$prog is missing: run make first" >&2; exit 1; }
done

# field PHASE COLUMN ARGS...: runs fillcopy --csv ARGS and prints one column
# (9 wall_s, 11 mib_s) of the row of PHASE.
field() {
	local phase=$1 column=$2
	shift 2
	"$BIN/fillcopy" -d "$SCRATCH" --csv "$@" |
		awk -F, -v phase="$phase" -v c="$column" '$8 == phase { print $c }'
}

# report LABEL NUMERATORS DENOMINATORS GOAL: the ratio of the two medians;
# a missed goal sets missed=1.
missed=0
report() {
	local top bottom
	top=$(printf '%s\n' $2 | median)	# unquoted: one number per word
	bottom=$(printf '%s\n' $3 | median)
	awk -v label="$1" -v t="$top" -v b="$bottom" -v goal="$4" 'BEGIN {
		r = t / b
		printf "  %-50s %6.2f  (goal >= %s) %s\n", label, r, goal, (r >= goal ? "MET" : "MISSED")
		exit r < goal
	}' || missed=1
}

echo "== Lab 3 benchmark: medians of $REPS alternating runs, $(getconf _NPROCESSORS_ONLN) cores"

xoshiro="" rand=""
for ((i = 0; i < REPS; i++)); do
	xoshiro+=" $(field fill 9 -s 16M --prefault)"
	rand+=" $(field fill 9 -s 16M --prefault --rng rand)"
done
report "fill 16 MiB, 1 thread: time rand() / xoshiro" "$rand" "$xoshiro" 20

# The source's 255 MiB: the longer the fill, the smaller the part of a
# thread that wakes late from the barrier (a millisecond or more on a
# virtual machine whose other CPU sleeps).
one="" two=""
for ((i = 0; i < REPS; i++)); do
	one+=" $(field fill 9 -s 255M --prefault -t 1)"
	two+=" $(field fill 9 -s 255M --prefault -t 2)"
done
report "fill 255 MiB, xoshiro: time 1 thread / 2 threads" "$one" "$two" 1.7

copy="" plain=""
for ((i = 0; i < REPS; i++)); do
	copy+=" $(field copy 11 -s 64M --prefault -t 1)"
	plain+=" $("$BIN/membw" -s 64M -r 1 --csv | tail -n +2 | cut -d, -f4)"
done
report "copy 64 MiB, 1 thread: MiB/s fillcopy / membw" "$copy" "$plain" 0.9
exit $missed
