#!/usr/bin/env bash
# plot.sh SCRIPT.gp OUT.png - draws one figure with gnuplot.
#
# The .gp scripts set no terminal, so the same script draws a PNG here and
# text in the terminal for `make plot PREVIEW=1`. A figure whose data files
# are not there yet (its lab has not run) is skipped with a note.
set -euo pipefail
gp=$1 png=$2

bash "$(dirname "$0")/deps.sh" gnuplot

for csv in $(grep -o "data/[A-Za-z0-9_./-]*\.csv" "$gp" | sort -u); do
	if [ ! -s "$csv" ]; then
		echo "skip $png: no $csv yet (run its lab first)"
		exit 0
	fi
done

tmp="$png.tmp"
trap 'rm -f "$tmp"' EXIT
gnuplot -e "set terminal pngcairo size 960,600 font 'sans,10'; set output '$tmp'" "$gp"
mv "$tmp" "$png"
echo "drew $png"
