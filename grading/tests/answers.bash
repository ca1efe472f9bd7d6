# Helpers of the tests that hold the reference answers (grading/labN/answers.md)
# to the kit: grading/tests/answers.bats (every lab) and each lab's
# grading/labN/tests/answers-labN.bats. Loaded after tests/helpers.

# quick VAR FILE: the quick-scale value of "VAR=...$(by_scale TINY QUICK FULL)" in FILE
quick() {
	sed -n "s/^$1=.*by_scale \([^ ]*\) \([^ )]*\) [^ )]*).*/\2/p" "$2"
}

# answer FILE Q: the text of question Q's answer in FILE
answer() {
	awk -v q="## $2" '$0 == q { on = 1; next } /^## / { on = 0 } on' "$1"
}

# comma N: N with thousands separators, as the answers write it
comma() {
	python3 -c "import sys; print(f'{int(sys.argv[1]):,}')" "$1"
}

# quoted: the Python on stdin, with reference_run's helpers (answer, med,
# missing, reference, and number, the closing tables' format) imported, run
# on the kit; it fails naming what the answers do not quote.
quoted() {
	{ echo "from grading.tests.reference_run import answer, med, missing, number, reference"; cat; } |
		PYTHONPATH="$ROOT" python3 -B -
}
