#!/usr/bin/env bats
# Lab 3's reference answers (grading/lab3/answers.md) quote the page faults
# that the lab's buffer implies: held to the lab script's size.

load ../../../tests/helpers
load ../../tests/answers

@test "answers-lab3: Lab 3 quotes the faults the lab's buffer implies" {
	lab="$ROOT/labs/3-threads/lab3.sh" ans="$ROOT/grading/lab3/answers.md"
	size=$(quick size "$lab")
	[ "${size%M}" != "$size" ]	# in MiB
	mib=${size%M}
	q=$(answer "$ans" Q3.10)
	[[ $q == *"$mib MiB / 4 KiB = $(comma $((mib * 256))) faults"* ]]
	[[ $q == *"$mib MiB / 2 MiB = $((mib / 2)) with huge pages"* ]]
	[[ $(answer "$ans" Q3.4) == *"$(comma $((mib * 256))) in the copy of $mib MiB, 256 per MiB"* ]]
}
