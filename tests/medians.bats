#!/usr/bin/env bats
# common/medians.py: the table of medians that ends a lab.

load helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	printf '%s\n' "trial,threads,phase,wall_s,faults" \
		"1,1,fill,0.5,10" "1,1,copy,2,0" "1,2,fill,0.25,10" \
		"2,1,fill,0.7,12" "2,1,copy,4,0" "2,2,fill,0.35,10" \
		"3,1,fill,0.1,11" "3,1,copy,3,2" "3,2,fill,0.3,9" "4,1,copy,1,1" >r.csv
}

@test "medians.py: a row per group, in the order of first appearance, with n and the median of each value" {
	run python3 "$ROOT/common/medians.py" r.csv --by threads,phase --value wall_s,faults --title "T"
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "T" ]
	[ "$(printf '%s\n' "${lines[@]:1}" | tr -s ' ')" = "$(printf '%s\n' \
		" threads phase n median wall_s median faults" \
		" 1 fill 3 0.5 11" \
		" 1 copy 4 2.5 0.5" \
		" 2 fill 3 0.3 10")" ]
}

@test "medians.py: --where keeps the rows whose column is one of the values, repeatable" {
	run python3 "$ROOT/common/medians.py" r.csv --by phase --value wall_s --where threads=1 --where trial=1,3
	[ "$status" -eq 0 ]
	[ "$(printf '%s\n' "${lines[@]}" | tr -s ' ')" = "$(printf '%s\n' \
		" phase n median wall_s" " fill 2 0.3" " copy 2 2.5")" ]
}

@test "medians.py: a missing file or column, or a value that is not a number, is an error naming it" {
	run python3 "$ROOT/common/medians.py" nowhere.csv --by a --value b
	[ "$status" -eq 1 ]
	[ "$output" = "medians.py: nowhere.csv: No such file or directory" ]
	run python3 "$ROOT/common/medians.py" r.csv --by threads --value seconds
	[ "$status" -eq 1 ]
	[ "$output" = "medians.py: r.csv: no column seconds" ]
	run python3 "$ROOT/common/medians.py" r.csv --by threads --value phase
	[ "$status" -eq 1 ]
	[ "$output" = "medians.py: r.csv: a value of phase is not a number" ]
	run python3 "$ROOT/common/medians.py" r.csv --by threads --value wall_s --where threads
	[ "$status" -eq 2 ]
}

@test "medians.py: a product of columns over a number, computed row by row before the median" {
	printf '%s\n' "kind,iops,lat_us" "a,1000,2000" "a,3000,1000" "a,2000,4000" "b,10,100" >p.csv
	run python3 "$ROOT/common/medians.py" p.csv --by kind --value 'iops*lat_us/1e6,iops'
	[ "$status" -eq 0 ]
	# rows of a: 2, 3 and 8 in flight: the median is 3 (the product of the medians would be 4)
	[ "${lines[1]}" = "     a  3                       3         2000" ]
	[ "${lines[2]}" = "     b  1                   0.001           10" ]
	run python3 "$ROOT/common/medians.py" p.csv --by kind --value 'iops*lat_us/x'
	[ "$status" -eq 2 ]
	run python3 "$ROOT/common/medians.py" p.csv --by kind --value 'iops*seconds'
	[ "$status" -eq 1 ]
	[ "$output" = "medians.py: p.csv: no column seconds" ]
}
