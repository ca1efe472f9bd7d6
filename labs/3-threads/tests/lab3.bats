#!/usr/bin/env bats
# Lab 3 at SCALE=tiny: the lab script's CSVs, and the figures drawn from them.

load ../../../tests/helpers

setup_file() {
	# One lab run for every test in this file (it takes a few seconds).
	cd "$BATS_FILE_TMPDIR" || return 1
	needs_file fillcopy membw || return 0	# the lab runs them
	DATA="$BATS_FILE_TMPDIR/data" SCRATCH="$BATS_FILE_TMPDIR/s" SCALE=tiny \
		bash "$ROOT/labs/3-threads/lab3.sh" >"$BATS_FILE_TMPDIR/log" 2>&1
}

@test "lab3: the run reports each experiment, both CSVs and the tables of medians" {
	log="$BATS_FILE_TMPDIR/log"
	grep -q '^transparent huge pages: ' "$log"
	# per trial: xoshiro with 4k pages first touch and prefaulted, huge
	# pages; rand first touch and prefaulted (tiny and full scales)
	[ "$(grep -c '^trial [1-3]/3: 256K, rng \(xoshiro\|rand\), \(4k\|huge\) pages, ' "$log")" -eq 15 ]
	grep -q '^wrote .*/data/lab3.csv (135 rows)$' "$log"
	grep -q '^wrote .*/data/lab3-membw.csv (18 rows)$' "$log"
	# the passes, calibrated once
	grep -Eq '^passes over the 256K buffer, for the shortest phase to last about 0.005 s with 1 thread: fillcopy --prefault --passes [0-9]+ .*membw -p [0-9]+ ' "$log"
	[ -s "$BATS_FILE_TMPDIR/data/machine.txt" ]
	# the tables (common/table.py): a title, a header, then a row per group
	# with n and each value's median (min-max)
	grep -q '^Medians: fillcopy, 1, 2 and 3 threads (data/lab3.csv; wall_s/passes: seconds per pass over 256K)$' "$log"
	grep -Eq '^ +rng +pages +prefault +phase +threads +passes +n +wall_s/passes +cpu_s/passes +mib_s +faults$' "$log"
	num='[0-9.e+-]+( \([0-9.e+-]+-[0-9.e+-]+\))?'
	grep -Eq "^ +xoshiro +huge +0 +fill +2 +1 +3 +$num +$num +$num +$num\$" "$log"
	# the largest thread count (Q3.5, Q3.6) is in the table too
	grep -Eq "^ +xoshiro +4k +1 +copy +3 +[0-9]+ +3 +$num +$num +$num +0\$" "$log"
	grep -Eq '^ +rand +4k +1 +fill +1 +1 +3 ' "$log"
	grep -Eq "^ +copy +3 +[0-9]+ +3 +$num +$num\$" "$log"
	# how busy the machine was, and the predictions
	grep -q '^== The machine while Lab 3 ran (' "$log"
	grep -q '^== Your predictions (predictions.md, Lab 3) beside the measurements$' "$log"
}

# Every question is answered by what the lab prints (the lab page's table,
# question -> printed line): the rows each one cites, at 1, 2 and the
# largest thread count (3 at tiny scale).
@test "lab3: the lines each question cites are printed" {
	log="$BATS_FILE_TMPDIR/log"
	num='[0-9.e+-]+( \([0-9.e+-]+-[0-9.e+-]+\))?'
	row() { grep -Eq "^ +$1 +[0-9]+ +3 +$num +$num +$num +$num\$" "$log"; }
	for t in 1 2 3; do
		row "xoshiro +4k +1 +fill +$t"	# Q3.1, Q3.5, Q3.6
		row "xoshiro +4k +1 +copy +$t"	# Q3.5, Q3.6
		row "xoshiro +4k +0 +fill +$t"	# Q3.4
		row "xoshiro +4k +0 +copy +$t"	# Q3.4
		row "xoshiro +huge +0 +fill +$t"	# Q3.10
		row "xoshiro +huge +0 +copy +$t"	# Q3.10
		# Q3.5, Q3.6: membw's store and copy at the same thread counts
		grep -Eq "^ +store +$t +[0-9]+ +3 +$num +$num\$" "$log"
		grep -Eq "^ +copy +$t +[0-9]+ +3 +$num +$num\$" "$log"
		# Q3.8: the dump, by threads and passes
		grep -Eq "^ +$t +[0-9]+ +3 +$num +$num\$" "$log"
	done
	# Q3.1, Q3.2: rand() at 1 and 2 threads, time and CPU time per pass
	row "rand +4k +1 +fill +1"
	row "rand +4k +1 +fill +2"
	# Q3.10: the setting of transparent huge pages
	grep -q '^transparent huge pages: ' "$log"
	# how busy the machine was (Q3.2, Q3.5 ask to explain under load)
	grep -Eq '^   (BUSY|NOISY|SHORT TRIALS|quiet enough)' "$log"
}

@test "lab3: data/lab3.csv: trial then fillcopy's columns; every trial, thread count and configuration, each phase once" {
	csv="$BATS_FILE_TMPDIR/data/lab3.csv"
	[ "$(head -1 "$csv")" = "trial,$("$BIN/fillcopy" -s 1K --csv | head -1)" ]
	# 3 trials x threads 1..3 x {xoshiro 4k, xoshiro 4k prefaulted, xoshiro
	# huge, rand 4k, rand 4k prefaulted} x 3 phases
	[ "$(tail -n +2 "$csv" | cut -d, -f1,2,5,7,9,14 | sort -u | wc -l)" -eq 135 ]
	[ "$(tail -n +2 "$csv" | cut -d, -f5,7,14 | sort -u | tr '\n' ' ')" = \
		"rand,0,4k rand,1,4k xoshiro,0,4k xoshiro,0,huge xoshiro,1,4k " ]
	[ "$(tail -n +2 "$csv" | cut -d, -f2 | sort -u | tr '\n' ' ')" = "1 2 3 " ]
	[ "$(tail -n +2 "$csv" | cut -d, -f9 | sort -u | tr '\n' ' ')" = "copy dump fill " ]
	# 256 KiB, 10 files, memcpy, no fsync; 1 pass, except the prefaulted
	# xoshiro runs with 4 KiB pages: more, the same in all; positive times and MiB/s
	[ -z "$(tail -n +2 "$csv" | awk -F, 'NF != 15 || $3 != 262144 || $4 != 10 ||
		$6 != "memcpy" || $8 != 0 || !($10 > 0 && $12 > 0) ||
		($5 == "xoshiro" && $7 == 1 && $14 == "4k" ? $15 < 2 : $15 != 1)')" ]
	[ "$(awk -F, '$5 == "xoshiro" && $7 == 1 && $14 == "4k" { print $15 }' "$csv" | sort -u | wc -l)" -eq 1 ]
}

@test "lab3: data/lab3-membw.csv: 3 trials at each thread count of a store and a copy of 256 KiB, several passes" {
	csv="$BATS_FILE_TMPDIR/data/lab3-membw.csv"
	[ "$(head -1 "$csv")" = "trial,$("$BIN/membw" -s 1K -r 1 --csv | head -1)" ]
	[ "$(tail -n +2 "$csv" | cut -d, -f1-6 | sort -u | wc -l)" -eq 18 ]
	[ "$(tail -n +2 "$csv" | cut -d, -f1,2 | sort -u | tr '\n' ' ')" = "1,1 1,2 1,3 2,1 2,2 2,3 3,1 3,2 3,3 " ]
	[ -z "$(tail -n +2 "$csv" | awk -F, 'NF != 8 || $4 != 262144 || $5 < 2 || $3 !~ /^(store|copy)$/ || !($7 > 0 && $8 > 0)')" ]
	[ "$(tail -n +2 "$csv" | cut -d, -f5 | sort -u | wc -l)" -eq 1 ]
}

@test "lab3: no dump file and no temporary CSV left behind" {
	[ -z "$(ls -A "$BATS_FILE_TMPDIR/s")" ]
	[ "$(ls "$BATS_FILE_TMPDIR/data")" = "$(printf 'lab3-load.txt\nlab3-membw.csv\nlab3.csv\nmachine.txt')" ]
}

@test "lab3: the five figures draw from the lab's CSVs without a warning" {
	command -v gnuplot >/dev/null || skip "gnuplot is not installed"
	mkdir -p data/reference
	cp "$BATS_FILE_TMPDIR"/data/* data/
	cp "$ROOT/data/reference/lab3-i5.csv" data/reference/
	for fig in time speedup reference faults ceiling; do
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
