# grading.bash - loaded by the grader's tests (grade*.bats): a reference
# submission to grade, and from it the broken copies each test makes.

# reference_kit LAB...: in the current directory, kit/ becomes a student's
# kit with these labs run at SCALE=tiny, their figures drawn and the
# reference answers in answers.md; kit/iolab-handin.tar.gz is what
# make handin packs for those labs, and unpacked/iolab-handin/ its contents.
reference_kit() {
	local lab
	mkdir -p kit/data unpacked
	cp -R "$ROOT/Makefile" "$ROOT/common" "$ROOT/labs" "$ROOT/plot" kit/
	cp -R "$ROOT/data/reference" kit/data/	# some figures overlay the sources' tables
	rm -f kit/plot/*.png
	for lab in "$@"; do
		DATA=kit/data SCRATCH=kit/scratch SCALE=tiny bash "$ROOT"/labs/"$lab"-*/lab"$lab".sh >/dev/null || return 1
		(cd kit && for gp in plot/lab"$lab"-*.gp; do bash common/plot.sh "$gp" "${gp%.gp}.png"; done) >/dev/null || return 1
	done
	cat "$ROOT"/grading/answers/lab*.md >kit/answers.md
	(cd kit && LABS=$(IFS=,; echo "$*") bash common/handin.sh) >handin.log || return 1
	tar -xzf kit/iolab-handin.tar.gz -C unpacked
}
