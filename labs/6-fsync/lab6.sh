#!/usr/bin/env bash
# lab6.sh - Lab 6: what fsync buys. Each of bin/saver's strategies saves a
# document of RECORDS records over the one before, once under the recorder
# (bin/fsrecord: strace underneath); bin/crashstates builds every state a
# crash during or after that save could leave, under each persistence
# model, and counts the broken ones, into data/lab6-states.csv (the logs: data/lab6-logs/). Then
# the cost: each strategy saves again and again on SCRATCH for MS
# milliseconds, TRIALS trials (default 3), into data/lab6-cost.csv. Tables, how
# busy the machine was and the predictions (predictions.md) end the lab.
source "$(dirname "$0")/../../common/lab.sh"
lab_begin "Lab 6: what fsync buys" saver fsrecord crashstates
bash common/deps.sh strace >&2 || exit 1	# the recorder's tracer

STRATEGIES="inplace fflush rename fsync-rename safe log"
MODELS=posix,ext4-noauto_da_alloc,ext4-ordered
RECORDS=$(by_scale 20 200 1000)	# 64 bytes each: 1, 4 and 16 blocks of 4 KiB
MS=$(by_scale 50 1000 3000)	# each cost trial saves for this long
TRIALS=${TRIALS:-3}	# cost trials per strategy

# The crash states: the save of generation 2 over generation 1, recorded
# in a directory of its own, checked by saver --verify.
csv_open "$DATA/lab6-states.csv"
mkdir -p "$DATA/lab6-logs"
# record STRATEGY: generation 1 saved, generation 2 saved under the
# recorder, in a directory of their own, removed however the save ends.
record() (
	dir=$(mktemp -d "$SCRATCH/lab6-crash.XXXXXX")
	trap 'rm -rf "$dir"' EXIT
	trap 'exit 130' INT
	trap 'exit 143' TERM
	cd "$dir" || exit 1
	"$BIN/saver" -s "$1" -n "$RECORDS" -g 1 doc.kv
	"$BIN/fsrecord" -o "$DATA/lab6-logs/$1.log" -- "$BIN/saver" -s "$1" -n "$RECORDS" -g 2 doc.kv
)
for s in $STRATEGIES; do
	record "$s"
	printf '  %-13s' "$s"
	out=$("$BIN/crashstates" --csv --model "$MODELS" --scratch "$SCRATCH" \
		--check "$(printf %q "$BIN/saver") --verify -s $s -n $RECORDS -g 2 doc.kv" "$DATA/lab6-logs/$s.log")
	csv_program crashstates "$out" "${CSV_HEADER#strategy,records,}"
	while IFS= read -r row; do
		csv_row "$s,$RECORDS,$row"
		IFS=, read -r model _ _ states broken _ <<<"$row"
		printf ' %s %s/%s' "$model" "$broken" "$states"
	done < <(tail -n +2 <<<"$out")
	echo " broken"
done
csv_commit

csv_open "$DATA/lab6-cost.csv"
file=$(scratch_file lab6.kv)
remove_at_exit "$file.tmp"
for s in $STRATEGIES; do
	printf '  %-13s' "$s"
	for trial in $(seq "$TRIALS"); do
		rm -f "$file"
		# saver's row is the CSV's without trial, which goes in after strategy
		row=$("$BIN/saver" -s "$s" -n "$RECORDS" --ms "$MS" --csv "$file")
		csv_program saver "$row" "${CSV_HEADER/,trial,/,}"
		row=${row#*$'\n'}
		csv_row "$s,$trial,${row#*,}"
		printf ' %s us' "${row##*,}"
	done
	echo
done
rm -f "$file"
csv_commit
"$PYTHON" common/table.py "$DATA/lab6-states.csv" --title "== Lab 6: broken states of all built, per model (data/lab6-states.csv)" \
	--by strategy,model --value broken,states,first_broken_after_call
"$PYTHON" common/table.py "$DATA/lab6-cost.csv" --title "== Lab 6: time per save, $RECORDS records (data/lab6-cost.csv)" \
	--by strategy --value us_per_save,saves
lab_end --spread "$DATA/lab6-cost.csv:strategy:us_per_save" -- \
	"P6.1=$(measured median "$DATA/lab6-states.csv" broken strategy=rename model=ext4-noauto_da_alloc) broken states" \
	"P6.2=$(measured median "$DATA/lab6-cost.csv" us_per_save strategy=safe) us" \
	"P6.3=$(measured median "$DATA/lab6-cost.csv" us_per_save strategy=inplace) us"
