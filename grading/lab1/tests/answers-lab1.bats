#!/usr/bin/env bats
# Lab 1's reference answers (grading/lab1/answers.md) quote numbers that
# follow from the lab script: held to it, so that the lab's sizes cannot
# change under answers that quote the old ones (as Q1.3 and Q1.4 once did).

load ../../../tests/helpers
load ../../tests/answers

@test "answers-lab1: Lab 1 quotes the lab's lines per writer, write counts and losses" {
	lab="$ROOT/labs/1-interleave/lab1.sh" ans="$ROOT/grading/lab1/answers.md"
	lines=$(quick LINES "$lab")
	[ -n "$lines" ]
	ow=$(sed -n 's/^OW_LINES=\([0-9]*\)$/\1/p' "$lab")
	[ -n "$ow" ]
	# Q1.3: one write(2) per line unbuffered; 2-byte lines in 4096-byte
	# buffers with the default (st_blksize 4096 in the reference machine)
	q=$(answer "$ans" Q1.3)
	[[ $q == *"$(comma "$lines") calls"* ]]
	[[ $q == *"$(comma $((2 * lines))) bytes / 4096 = $(((2 * lines + 4095) / 4096)) calls"* ]]
	# Q1.4: the two writers lose one writer's worth together
	[[ $(answer "$ans" Q1.4) == *"lose $(comma "$ow") lines together"* ]]
	[[ $(answer "$ans" Q1.4) == *"$(comma $((2 * ow))) bytes = $(comma "$ow") lines"* ]]
	# Q1.1: the run unit of a 4096-byte buffer of 2-byte lines
	[[ $(answer "$ans" Q1.1) == *"2048 lines"* ]]
}
