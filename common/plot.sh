#!/usr/bin/env bash
# plot.sh SCRIPT.gp OUT.png - draws one figure with gnuplot.
# plot.sh --preview SCRIPT.gp - draws it as text in the terminal instead.
#
# The .gp scripts set no terminal, so the same script draws a PNG here and
# text for `make plot PREVIEW=1`, and may ask for a size: "# size: 960,820".
# They read files only, from the kit's folder, and run no program: a lab's
# results, the medians its script wrote for the figures (common/table.py
# --out) and data/machine.txt. A figure whose CSV files are not there yet
# (its lab has not run), or hold no row (its lab left the experiment out,
# as Lab 5 does where O_DIRECT is refused), is skipped with a note.
set -euo pipefail
preview=
if [ "${1-}" = --preview ]; then preview=1; shift; fi
gp=$1 png=${2-}
kit=$(cd "$(dirname "$0")/.." && pwd)

bash "$kit/common/deps.sh" gnuplot

for csv in $(grep -o "data/[A-Za-z0-9_./-]*\.csv" "$gp" | sort -u); do
	if [ ! -s "$csv" ]; then
		echo "skip ${png:-$gp}: no $csv yet (run its lab first)"
		exit 0
	fi
	if [ -z "$(sed -n 2p "$csv")" ]; then
		echo "skip ${png:-$gp}: $csv has no row (its lab left the experiment out, saying why)"
		exit 0
	fi
done

if [ -n "$preview" ]; then
	# Wide enough that the two panels of a multiplot keep their titles apart.
	# Text has no rotated labels: a panel's y label would be written across
	# its left neighbour, so multiplots lose theirs (the PNG keeps them).
	text=$(mktemp)
	trap 'rm -f "$text"' EXIT
	# Nor markup: 2^{%L} becomes 2^%L, st\\_blksize st_blksize.
	multi='s/^$//'
	if grep -q 'set multiplot' "$gp"; then multi='s/^\([[:space:]]*\)set ylabel .*/\1unset ylabel/'; fi
	sed -e "$multi" -e 's/\^{\([^}]*\)}/^\1/g' -e 's/\\\\_/_/g' "$gp" >"$text"
	gnuplot -e "set terminal dumb size 160,40 noenhanced" "$text"
	exit 0
fi
# A script may ask for another size with a line "# size: WIDTH,HEIGHT".
size=$(sed -n 's/^# size: \([0-9]*,[0-9]*\)$/\1/p' "$gp")
tmp="$png.tmp"
trap 'rm -f "$tmp"' EXIT
gnuplot -e "set terminal pngcairo size ${size:-960,600} font 'sans,10'; set output '$tmp'" "$gp"
# A script that sets its own terminal or output draws somewhere else.
[ -s "$tmp" ] || { echo "plot.sh: $gp drew nothing into $png: a figure script sets no terminal and no output (plot.sh sets them)" >&2; exit 1; }
mv "$tmp" "$png"
echo "drew $png"
