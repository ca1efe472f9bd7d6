#!/usr/bin/env bats
# Lab 3 at SCALE=tiny: the lab script's CSVs, and the figures drawn from them.

load helpers

setup_file() {
	# One lab run for every test in this file (it takes a few seconds).
	cd "$BATS_FILE_TMPDIR" || return 1
	DATA="$BATS_FILE_TMPDIR/data" SCRATCH="$BATS_FILE_TMPDIR/s" SCALE=tiny \
		bash "$ROOT/labs/3-threads/lab3.sh" >"$BATS_FILE_TMPDIR/log" 2>&1
}

@test "lab3: the run reports each experiment and both CSVs" {
	log="$BATS_FILE_TMPDIR/log"
	[ "$(grep -c '^trial [1-3]/3: 256K, rng \(xoshiro\|rand\), ' "$log")" -eq 12 ]
	grep -q '^wrote .*/data/lab3.csv (108 rows)$' "$log"
	grep -q '^wrote .*/data/lab3-memcpy.csv (9 rows)$' "$log"
	[ -s "$BATS_FILE_TMPDIR/data/machine.txt" ]
}

@test "lab3: data/lab3.csv: trial then fillcopy's columns; every trial, thread count, generator and prefault, each phase once" {
	csv="$BATS_FILE_TMPDIR/data/lab3.csv"
	[ "$(head -1 "$csv")" = "trial,$("$BIN/fillcopy" -s 1K --csv | head -1)" ]
	# 3 trials x threads 1..3 x {xoshiro, rand} x prefault {0, 1} x 3 phases
	[ "$(tail -n +2 "$csv" | cut -d, -f1,2,5,7,9 | sort -u | wc -l)" -eq 108 ]
	[ "$(tail -n +2 "$csv" | cut -d, -f2 | sort -u | tr '\n' ' ')" = "1 2 3 " ]
	[ "$(tail -n +2 "$csv" | cut -d, -f5 | sort -u | tr '\n' ' ')" = "rand xoshiro " ]
	[ "$(tail -n +2 "$csv" | cut -d, -f9 | sort -u | tr '\n' ' ')" = "copy dump fill " ]
	# 256 KiB, 10 files, memcpy, no fsync; positive times and MiB/s
	[ -z "$(tail -n +2 "$csv" | awk -F, 'NF != 13 || $3 != 262144 || $4 != 10 ||
		$6 != "memcpy" || $8 != 0 || !($10 > 0 && $12 > 0)')" ]
}

@test "lab3: data/lab3-memcpy.csv: 3 trials of 3 plain copies of 256 KiB" {
	csv="$BATS_FILE_TMPDIR/data/lab3-memcpy.csv"
	[ "$(head -1 "$csv")" = "trial,bytes,rep,wall_s,mib_s" ]
	[ "$(tail -n +2 "$csv" | cut -d, -f1-3 | tr '\n' ' ')" = \
		"1,262144,1 1,262144,2 1,262144,3 2,262144,1 2,262144,2 2,262144,3 3,262144,1 3,262144,2 3,262144,3 " ]
}

@test "lab3: no dump file and no temporary CSV left behind" {
	[ -z "$(ls -A "$BATS_FILE_TMPDIR/s")" ]
	[ "$(ls "$BATS_FILE_TMPDIR/data")" = "$(printf 'lab3-memcpy.csv\nlab3.csv\nmachine.txt')" ]
}

@test "lab3: the three figures draw from the lab's CSVs without a warning" {
	command -v gnuplot >/dev/null || skip "gnuplot is not installed"
	mkdir -p data/reference
	cp "$BATS_FILE_TMPDIR"/data/* data/
	cp "$ROOT/data/reference/lab3-i5.csv" data/reference/
	for fig in time speedup reference; do
		run gnuplot -e "set terminal dumb size 120,40" "$ROOT/plot/lab3-$fig.gp"
		[ "$status" -eq 0 ]
		[[ $output != *arning* && $output != *rror* ]]
		[[ $output == *"Lab 3:"* ]]
	done
}

@test "lab3: an unknown SCALE is refused" {
	run env SCALE=huge DATA="$BATS_TEST_TMPDIR/d" SCRATCH="$BATS_TEST_TMPDIR/s" \
		bash "$ROOT/labs/3-threads/lab3.sh"
	[ "$status" -eq 2 ]
	[ ! -e "$BATS_TEST_TMPDIR/d/lab3.csv" ]
}
