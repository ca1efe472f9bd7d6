#!/usr/bin/env bats
# datagen: the threaded and the sequential (-z) modes write byte-identical
# files, the same seed gives the same files, the records add up, failures
# leave no half files. Uses only "$BIN/datagen", so that make check can run
# this file under ThreadSanitizer.

load ../../../tests/helpers

FILES="students.txt contacts.txt exams.txt grades.txt"

# same DIR1 DIR2: the four files are identical in both directories.
same() {
	local f
	for f in $FILES; do cmp "$1/$f" "$2/$f" || return 1; done
}

@test "threaded and -z write byte-identical files, whatever the buffer size" {
	# 1000 = 3 x 300 + 100: the last round is shorter; 5000 > 1000: one round.
	for b in 1 300 1000 5000; do
		mkdir "t$b" "z$b"
		"$BIN/datagen" -s 1000 -e 3 -b "$b" -d "t$b" >/dev/null
		"$BIN/datagen" -s 1000 -e 3 -b "$b" -d "z$b" -z >/dev/null
		same "t$b" "z$b"
	done
	# The buffer size changes when the files are written, not what they hold.
	same t1 z5000
}

@test "the same seed gives the same files, run after run; another seed does not" {
	mkdir a b c d
	"$BIN/datagen" -s 500 -d a >/dev/null
	"$BIN/datagen" -s 500 -d b --seed 1 >/dev/null
	"$BIN/datagen" -s 500 -d c --seed 1 -z >/dev/null
	"$BIN/datagen" -s 500 -d d --seed 2 >/dev/null
	same a b
	same a c
	! cmp -s a/students.txt d/students.txt
	! cmp -s a/exams.txt d/exams.txt
}

@test "the four files hold RECORDS students, RECORDS x EXAMS exams, consistent grades" {
	"$BIN/datagen" -s 700 -e 4 -b 64 >/dev/null
	[ "$(wc -l <students.txt)" -eq 700 ]
	[ "$(wc -l <contacts.txt)" -eq 700 ]
	[ "$(wc -l <exams.txt)" -eq 2800 ]
	[ "$(wc -l <grades.txt)" -eq 700 ]
	# Students are numbered 000001.. in order, five fields each.
	awk -F';' 'NF != 5 || $1 != sprintf("%06d", NR) { exit 1 }' students.txt
	# Every grade line: passed = the exams with 30 points or more, 5 credits each.
	awk -F';' 'NR == FNR { if ($4 >= 30) passed[$1]++; next }
		   $2 != passed[$1] + 0 || $3 != 5 * $2 { bad++ } END { exit bad > 0 }' \
		exams.txt grades.txt
	[ ! -e students.txt.tmp ]
	# No exams: every student has passed none.
	mkdir none
	"$BIN/datagen" -s 10 -e 0 -d none >/dev/null
	[ ! -s none/exams.txt ]
	[ "$(cut -d';' -f2-4 none/grades.txt | sort -u)" = "0;0;0.00" ]
}

@test "--csv: a header and one row; bytes is the size of the four files" {
	run "$BIN/datagen" -s 300 -e 2 -b 100 -z --csv
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "mode,records,exams_per_record,buffer_records,seed,bytes,wall_s,cpu_s,fill_s,write_s" ]
	[[ ${lines[1]} == "sequential,300,2,100,1,$(cat $FILES | wc -c),"* ]]
	run "$BIN/datagen" -s 300 -e 2 -b 100 --csv
	[[ ${lines[1]} == "threaded,300,2,100,1,"* ]]
	IFS=, read -r -a f <<<"${lines[1]}"
	[ "${#f[@]}" -eq 10 ]
	# fill and write are parts of the elapsed time.
	awk -v w="${f[6]}" -v fi="${f[8]}" -v wr="${f[9]}" 'BEGIN { exit !(fi > 0 && wr > 0 && fi + wr <= w) }'
}

@test "a file that cannot be written: its path, exit 1, no .tmp left, old output kept" {
	run "$BIN/datagen" -s 10 -d missing
	[ "$status" -eq 1 ]
	[ "$output" = "datagen: missing/students.txt.tmp: No such file or directory" ]
	# grades.txt.tmp is a directory: the other three were created, then removed.
	mkdir d d/grades.txt.tmp
	echo old >d/students.txt
	for z in "" -z; do
		run "$BIN/datagen" -s 10 -d d $z
		[ "$status" -eq 1 ]
		[ "$output" = "datagen: d/grades.txt.tmp: Is a directory" ]
		[ "$(ls d | tr '\n' ' ')" = "grades.txt.tmp students.txt " ]
		[ "$(cat d/students.txt)" = old ]
	done
	# A write that fails (the disk is full), in a writer thread or in main.
	mkdir full
	for z in "" -z; do
		ln -s /dev/full full/exams.txt.tmp
		run "$BIN/datagen" -s 2000 -b 100 -d full $z
		[ "$status" -eq 1 ]
		[ "$output" = "datagen: full/exams.txt.tmp: No space left on device" ]
		[ -z "$(ls -A full)" ]
	done
}

@test "bad arguments: exit 2 with the usage" {
	for args in "-s 0" "-s x" "-e 1001" "-e -1" "-b 0" "--seed" "--seed -1" \
		"--seed 18446744073709551616" "--bogus" "extra"; do
		run "$BIN/datagen" $args
		usage_fails || { echo "args: $args"; false; }
	done
	[ -z "$(ls -A)" ]
	run "$BIN/datagen" -h
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "usage: datagen "* ]]
}
