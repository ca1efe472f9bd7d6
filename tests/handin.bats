#!/usr/bin/env bats
# make handin (common/handin.sh): which labs it packs, from LABS in the
# environment or on make's command line, and labs.txt, the list it writes
# into the handin for the grader. The labs are not run: each test packs a
# copy of the kit whose results, figures and answers are placeholder files.

load helpers

# kit: a copy of the kit in ./kit with every lab's results and figures
# (placeholders: handin only checks that they are there) and answers.md.
kit() {
	mkdir -p kit/data kit/plot kit/tests
	cp -R "$ROOT/Makefile" "$ROOT/common" "$ROOT/labs" kit/
	cp -R "$ROOT/tests/unit" kit/tests/
	cp "$ROOT"/plot/*.gp kit/plot/
	echo "cpu: placeholder" >kit/data/machine.txt
	local gp csv lab
	for gp in kit/plot/*.gp; do
		echo png >"${gp%.gp}.png"
		for csv in $(grep -o "data/lab[0-9][A-Za-z0-9_-]*\.csv" "$gp"); do
			echo "a,b" >"kit/$csv"
		done
	done
	for lab in $(ls -d kit/labs/[0-9]-* | sed 's|.*/\([0-9]\)-.*|\1|'); do
		printf '## Q%s.1\nan answer\n' "$lab" >>kit/answers.md
		printf 'scale: quick\nverdict: quiet\n' >"kit/data/lab$lab-load.txt"
	done
}

# packed: the files in kit/iolab-handin.tar.gz, one a line.
packed() {
	tar -tzf kit/iolab-handin.tar.gz
}

@test "handin: LABS=1,2 in the environment packs labs 1 and 2 and labs.txt holding 1,2" {
	kit
	LABS=1,2 run make -s -C kit handin
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *"wrote iolab-handin.tar.gz (labs 1,2, "* ]]
	[ "$(tar -xzOf kit/iolab-handin.tar.gz iolab-handin/labs.txt)" = "1,2" ]
	packed | grep -qx iolab-handin/labs/1-interleave/launch.c
	packed | grep -qx iolab-handin/labs/2-locking/lockbench.c
	! packed | grep -q '^iolab-handin/labs/[3-9]'
	! packed | grep -q '^iolab-handin/plot/lab[3-9]'
	packed | grep -qx iolab-handin/answers.md
	# labs.txt is written only into the tarball, not left in the kit
	[ ! -e kit/labs.txt ]
}

@test "handin: make handin LABS=2,1 on the command line works the same (the list sorted)" {
	kit
	run make -s -C kit handin LABS=2,1
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(tar -xzOf kit/iolab-handin.tar.gz iolab-handin/labs.txt)" = "1,2" ]
	! packed | grep -q '^iolab-handin/labs/3'
	# and the lab targets still run: LABS no longer names them
	run make -s -C kit -n lab1 LABS=2
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *"common/run-labs.sh plot-lab1 lab1"* ]]
}

@test "handin: without LABS, every lab, and labs.txt lists them all" {
	kit
	run env -u LABS make -s -C kit handin
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	all=$(cd kit && ls -d labs/[0-9]-* | sed 's|labs/\([0-9]\).*|\1|' | paste -sd, -)
	[[ $all =~ ^[1-9](,[1-9])+$ ]]	# two labs or more, from the tree
	[ "$(tar -xzOf kit/iolab-handin.tar.gz iolab-handin/labs.txt)" = "$all" ]
	# labs.txt is at the top of the one directory, and first
	[ "$(packed | head -1)" = iolab-handin/labs.txt ]
	[ -z "$(packed | grep -v '^iolab-handin/')" ]
}

@test "handin: a bad list or a lab that does not exist exits 2, naming it, and packs nothing" {
	kit
	all=$(cd kit && ls -d labs/[0-9]-* | sed 's|labs/\([0-9]\).*|\1|' | paste -sd, -)
	run make -s -C kit handin LABS=x
	[ "$status" -ne 0 ]
	[[ $output == *"handin: LABS='x' is not a list of lab numbers like 1,2 (labs: $all)"* ]]
	LABS=1,9 run bash kit/common/handin.sh
	[ "$status" -eq 2 ]
	[[ $output == "handin: LABS=1,9: there is no lab 9 (labs: $all)" ]]
	LABS="1, 2" run bash kit/common/handin.sh
	[ "$status" -eq 2 ]
	[ ! -e kit/iolab-handin.tar.gz ]
}

@test "handin: each lab's scale and load verdict go in; a tiny or BUSY run is named, a lab without them refused" {
	kit
	printf 'scale: tiny\nverdict: quiet\n' >kit/data/lab1-load.txt
	printf 'scale: full\nseconds: 9\nverdict: busy noisy\n' >kit/data/lab2-load.txt
	run make -s -C kit handin LABS=1,2,3
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(tar -xzOf kit/iolab-handin.tar.gz iolab-handin/data/lab1-load.txt)" = "$(printf 'scale: tiny\nverdict: quiet')" ]
	packed | grep -qx iolab-handin/data/lab3-load.txt
	[ "$(grep -c '^handin: Lab' <<<"$output")" -eq 2 ]
	[[ $output == *"handin: Lab 1 was run at SCALE=tiny (the tests' size): the grader refuses its data; run make lab1 (SCALE=quick, the default) and make handin again"* ]]
	[[ $output == *"handin: Lab 2 ran on a BUSY machine (data/lab2-load.txt): the class results leave it out;"* ]]
	# a run from before the kit wrote the scale: named; no file: refused
	printf 'verdict: quiet\n' >kit/data/lab3-load.txt
	run make -s -C kit handin LABS=3
	[ "$status" -eq 0 ]
	[[ $output == *"handin: data/lab3-load.txt names no scale (written by an older kit): the grader refuses its data"* ]]
	rm kit/data/lab3-load.txt
	run make -s -C kit handin LABS=3
	[ "$status" -ne 0 ]
	[[ $output == *"missing:"*"  data/lab3-load.txt"* ]]
}

@test "handin: a missing piece of a lab handed in is named; one of a lab not handed in is not" {
	kit
	rm kit/data/lab3.csv
	LABS=1 run bash kit/common/handin.sh
	[ "$status" -eq 0 ]
	[ "$(tar -xzOf kit/iolab-handin.tar.gz iolab-handin/labs.txt)" = 1 ]
	rm kit/iolab-handin.tar.gz
	LABS=1,3 run bash kit/common/handin.sh
	[ "$status" -eq 1 ]
	[[ $output == *"handin: not packed; missing:"*"data/lab3.csv"* ]]
	[ ! -e kit/iolab-handin.tar.gz ]
}

@test "handin: the headings students write are answers, for make handin and the grader alike" {
	kit
	# every way of writing Lab 1's headings, one per question its page asks; Lab 2 none
	questions=$(grep -o '^- \*\*Q1\.[0-9]*\*\*' kit/labs/1-interleave/README.md | tr -d '* -' | sort -u -t. -k2n)
	[ "$(wc -l <<<"$questions")" -ge 6 ]
	forms=('## %s' '## %s:' '## %s (a title)' '## %s — a title' '##%s' '## %s. Why' '### %s' '# %s')
	i=0
	: >kit/answers.md
	for q in $questions; do
		# shellcheck disable=SC2059 # the forms are formats
		printf "${forms[i % ${#forms[@]}]}\nan answer\n\n" "$q" >>kit/answers.md
		i=$((i + 1))
	done
	LABS=1 run bash kit/common/handin.sh
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output != *warning* && $output != *"no answer"* ]]
	# the grader's parser, the same module, finds every one of them
	run python3 -I -B -c 'import sys; sys.path.insert(0, sys.argv[1]); import answers
print(" ".join(sorted(answers.answered(open(sys.argv[2]).read()))))' "$ROOT/common" kit/answers.md
	[ "$output" = "$(echo $questions)" ]
	[ -d "$ROOT/grading" ] || return 0	# the students' kit has no grader to compare with
	[ "$(python3 -I -B -c 'import sys; sys.path.insert(0, sys.argv[1]); from grading import standard; print(standard.answers.__file__)' "$ROOT")" = "$ROOT/common/answers.py" ]
	# a question left empty, a Q1.10 that is not Q1.1: handin warns, naming them
	printf '## Q1.1\n\n## Q1.10\nnot Q1.1\n' >kit/answers.md
	LABS=1 run bash kit/common/handin.sh
	[ "$status" -eq 0 ]
	[[ $output == *"handin: answers.md: Lab 1: no answer under '## Q1.1', '## Q1.2'"* ]]
	# no answer at all to a lab handed in: refused
	LABS=1,2 run bash kit/common/handin.sh
	[ "$status" -eq 1 ]
	[[ $output == *"answers.md: no answer to any question of Lab 2"* ]]
}

@test "handin: a question of any lab without an answer, or with too few words, is named, as the grader counts it" {
	kit
	# the questions every lab's page asks, read here without the parser:
	# list items opening with the bold number, with or without a title after it
	asked=$(cat kit/labs/[0-9]-*/README.md | grep -oE '^- \*\*Q[0-9]+\.[0-9]+' | sed 's/^- \*\*//')
	labs=$(cd kit && ls -d labs/[0-9]-* | sed 's|labs/\([0-9]\).*|\1|')
	: >kit/answers.md
	for lab in $labs; do
		qs=$(grep "^Q$lab\." <<<"$asked")
		[ "$(wc -l <<<"$qs")" -ge 6 ] || { echo "Lab $lab asks: $qs"; false; }
		last=$(tail -n 1 <<<"$qs")
		for q in $qs; do
			# the last question: no heading in odd labs, three words in even ones
			if [ "$q" = "$last" ]; then
				[ $((lab % 2)) -eq 1 ] || printf '## %s\nthree words only\n\n' "$q" >>kit/answers.md
			else
				printf '## %s\nan answer of ten words, with numbers from my data.\n\n' "$q" >>kit/answers.md
			fi
		done
	done
	run bash kit/common/handin.sh
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	named=0
	for lab in $labs; do
		last=$(grep "^Q$lab\." <<<"$asked" | tail -n 1)
		if [ $((lab % 2)) -eq 1 ]; then
			[[ $output == *"handin: answers.md: Lab $lab: no answer under '## $last'"$'\n'* ]] || { echo "$output"; false; }
		else
			[[ $output == *"handin: answers.md: Lab $lab: fewer than 8 words, not an answer to the grader: $last"$'\n'* ]] ||
				{ echo "$output"; false; }
		fi
		named=$((named + 1))
	done
	# one line per lab, naming that question only
	[ "$(grep -c '^handin: answers.md: Lab ' <<<"$output")" -eq "$named" ]
	[ "$named" -ge 6 ]
	[ -d "$ROOT/grading" ] || return 0	# the students' kit has no grader to compare with
	# the grader's answers check, on the same file: the same questions fail
	run python3 -I -B - "$ROOT" kit/answers.md $labs <<-'PY'
	import sys
	sys.path.insert(0, sys.argv[1])
	from grading import discover, gradelib, standard
	class G:
	    def file(self, name):
	        return open(sys.argv[2], "rb").read()
	checks, modules = discover.load([int(n) for n in sys.argv[3:]])
	for lab, module in sorted(modules.items()):
	    try:
	        standard.answers_check(module.QUESTIONS)(G())
	        print(lab, "PASS")
	    except gradelib.Fail as e:
	        print(lab, e.args[0])
	PY
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	for lab in $labs; do
		last=$(grep "^Q$lab\." <<<"$asked" | tail -n 1)
		if [ $((lab % 2)) -eq 1 ]; then
			grep -qx "$lab no answer under '## $last' in answers.md" <<<"$output" || { echo "$output"; false; }
		else
			grep -qx "$lab answers.md: the answer to $last is not an answer: fewer than 8 words" <<<"$output" ||
				{ echo "$output"; false; }
		fi
	done
}

@test "handin: a lab folder without its page (README.md, '# Lab N:') is refused, naming it" {
	kit
	rm kit/labs/2-locking/README.md
	LABS=1 run bash kit/common/handin.sh
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	LABS=1,2 run bash kit/common/handin.sh
	[ "$status" -eq 1 ]
	[ "$output" = "handin: labs/2-locking has no page README.md opening '# Lab 2:'" ]
}

@test "handin: the student's own header files go in, and the grader builds with them" {
	[ -e "$ROOT/grade.sh" ] || skip "the grader is not in the students' kit"
	[ "$(id -u)" -eq 0 ] || why=$(bwrap_starts --unshare-all) ||
		skip "the grader runs students' code only as root or in bubblewrap: not root, and $why"
	kit
	# writer.c takes a constant from a header of the student's own
	printf '#define MY_EXIT_OK 0\n' >kit/labs/1-interleave/myhelper.h
	sed -i 's|^#include "iolab.h"|&\n#include "myhelper.h"|; s|^\treturn 0;$|\treturn MY_EXIT_OK;|' kit/labs/1-interleave/writer.c
	grep -q MY_EXIT_OK kit/labs/1-interleave/writer.c
	LABS=1 run bash kit/common/handin.sh
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	packed | grep -qx iolab-handin/labs/1-interleave/myhelper.h
	run "$ROOT/grade.sh" --labs 1 --only "build writer" kit/iolab-handin.tar.gz
	echo "$output"
	[[ $output == *"lab1: build writer: PASS"* ]]
}
