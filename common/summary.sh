#!/usr/bin/env bash
# summary.sh - what `make labs` produced: results, figures, the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
DATA=${DATA:-data}
echo
echo "== Summary"
for csv in "$DATA"/lab*.csv; do
	[ -e "$csv" ] || continue
	printf '  %-22s %6d rows\n' "$csv" $(($(wc -l <"$csv") - 1))
done
for png in plot/lab*.png; do
	if [ -e "$png" ]; then printf "  %s\n" "$png"; fi
done
if [ -e "$DATA/machine.txt" ]; then sed "s/^/  /" "$DATA/machine.txt"; fi
echo "Next: open the figures, then answer the questions in handout.md."
