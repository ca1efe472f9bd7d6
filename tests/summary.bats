#!/usr/bin/env bats
# make labs / make labN never claim what they did not do: the summary ends
# with every lab that did not finish and every figure not drawn, each with
# the command that fixes it, and the exit status says so; python3 missing,
# they say so before any lab runs. deps.sh waits for another apt-get's
# locks instead of failing, and refuses a bats too old for the tests.

load helpers

# path_without CMD...: a directory of links to every command on PATH but
# CMDs, in $BATS_TEST_TMPDIR/path, where a test may add its own.
path_without() {
	local dirs=() dir i
	mkdir -p "$BATS_TEST_TMPDIR/path"
	IFS=: read -ra dirs <<<"$PATH"
	# the last directory first: the first one's commands win, as on PATH
	for ((i = ${#dirs[@]} - 1; i >= 0; i--)); do
		dir=${dirs[i]}
		[ -d "$dir" ] && ln -sf "$dir"/* "$BATS_TEST_TMPDIR/path/" 2>/dev/null
	done
	for dir in "$@"; do rm -f "$BATS_TEST_TMPDIR/path/$dir"; done
}

# kit: a copy of the kit's files the labs and summary need, in ./kit, with
# the programs already built (make test built them).
kit() {
	mkdir kit
	cp -Rp "$ROOT/Makefile" "$ROOT/common" "$ROOT/labs" "$ROOT/bin" "$ROOT/build" kit/
	mkdir -p kit/tests/unit
	cp -p "$ROOT/tests/unit/test-common.c" kit/tests/unit/
	mkdir kit/plot
	cp "$ROOT"/plot/*.gp kit/plot/
}

# lab1_results: data/ as Lab 1 leaves it (its figures' files, one row each)
lab1_results() {
	local f
	for f in lab1 lab1-runs-medians lab1-time-medians; do printf 'trial,wall_s\n1,0.5\n' >"data/$f.csv"; done
}

@test "deps.sh: waits while another apt-get holds a lock, then installs" {
	path_without gnuplot apt-get id
	# apt-get fails on the lists' lock twice, as when a new machine runs its
	# own updates, then works; id says root so that no sudo is needed.
	cat >"$BATS_TEST_TMPDIR/path/apt-get" <<-EOF
	#!/bin/bash
	echo "\$*" >>"$BATS_TEST_TMPDIR/calls"
	if [ \$(wc -l <"$BATS_TEST_TMPDIR/calls") -le 2 ]; then
		echo "E: Could not get lock /var/lib/apt/lists/lock. It is held by process 99 (apt-get)" >&2; exit 100
	fi
	EOF
	printf '#!/bin/sh\necho 0\n' >"$BATS_TEST_TMPDIR/path/id"
	chmod +x "$BATS_TEST_TMPDIR/path/apt-get" "$BATS_TEST_TMPDIR/path/id"
	run env -u IOLAB_NO_INSTALL PATH="$BATS_TEST_TMPDIR/path" bash "$ROOT/common/deps.sh" gnuplot
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == *"Waiting for another apt-get to finish"* ]]
	[ "$(cut -d' ' -f4- calls | tr '\n' '|')" = "update|update|update|install -y gnuplot-nox|" ]
	grep -q -- '-o DPkg::Lock::Timeout=300' calls
}

@test "deps.sh: an apt-get error that is not a lock is shown and fails at once" {
	path_without gnuplot apt-get id
	printf '#!/bin/sh\necho "$*" >>calls\necho "E: Unable to locate package gnuplot-nox" >&2\nexit 100\n' >"$BATS_TEST_TMPDIR/path/apt-get"
	printf '#!/bin/sh\necho 0\n' >"$BATS_TEST_TMPDIR/path/id"
	chmod +x "$BATS_TEST_TMPDIR/path/apt-get" "$BATS_TEST_TMPDIR/path/id"
	run env -u IOLAB_NO_INSTALL PATH="$BATS_TEST_TMPDIR/path" bash "$ROOT/common/deps.sh" gnuplot
	[ "$status" -eq 1 ]
	[[ $output == *"Unable to locate package gnuplot-nox"* ]]
	[ "$(wc -l <calls)" -eq 1 ]
}

@test "summary: figures not drawn and labs not finished are listed last, with the fix, exit 1" {
	kit
	path_without gnuplot
	mkdir data
	lab1_results
	run env PATH="$BATS_TEST_TMPDIR/path" DATA=data bash kit/common/summary.sh --failed " lab2" lab1 lab2
	echo "$output"
	[ "$status" -eq 1 ]
	# the last lines, in this order: the lab, then the figures and the command
	sed -n '/^== Not done/,$p' <<<"$output" >tail.txt
	[ "$(tail -n 1 <<<"$output")" = "  figures without their data yet (their lab did not write it, or left it out, saying why): plot/lab2-locks.png plot/lab2-runs.png plot/lab2-time.png" ]
	grep -q "Labs that did not finish: lab2" tail.txt
	grep -q "lab2 failed (its error is above); once it is fixed: make lab2" tail.txt
	grep -q "figures not drawn: plot/lab1-runs.png plot/lab1-time.png" tail.txt
	grep -qE "gnuplot is not installed. Fix: (sudo apt-get install gnuplot-nox|sudo dnf install gnuplot-minimal|brew install gnuplot) && make plot" tail.txt
	[[ $output != *"Next: open the figures"* ]]
}

@test "summary: every figure drawn and every lab finished: the next step, exit 0" {
	kit
	mkdir data
	lab1_results
	touch -d '1 hour ago' data/lab1*.csv kit/plot/*.gp
	touch kit/plot/lab1-runs.png kit/plot/lab1-time.png
	run env DATA=data bash kit/common/summary.sh lab1
	[ "$status" -eq 0 ]
	[[ $output == *"plot/lab1-runs.png"* && $output == *"data/lab1.csv"*"1 rows"* ]]
	[ "$(tail -n 1 <<<"$output")" = "Next: open the figures, then answer the questions on each lab's page (labs/N-topic/README.md)." ]
	# a result newer than its figure: the figure is out of date, not drawn
	touch -d '1 hour' data/lab1.csv
	run env DATA=data bash kit/common/summary.sh lab1
	[ "$status" -eq 1 ]
	[[ $output == *"figures not drawn: plot/lab1-runs.png plot/lab1-time.png"* ]]
}

@test "make lab1 without gnuplot: exits non-zero, the end of its output says what to install" {
	needs writer launch runs
	kit
	path_without gnuplot
	run env -u BIN PATH="$BATS_TEST_TMPDIR/path" IOLAB_NO_INSTALL=1 DATA="$PWD/data" \
		make -s --no-print-directory -C kit lab1 SCALE=tiny SCRATCH="$PWD/scratch"
	echo "$output"
	[ "$status" -ne 0 ]
	[ -s data/lab1.csv ]	# the lab itself ran
	[ ! -e kit/plot/lab1-runs.png ]
	[[ $(tail -n 4 <<<"$output") == *"figures not drawn: plot/lab1-runs.png plot/lab1-time.png"*"gnuplot is not installed. Fix: "*" && make plot"* ]]
	# deps.sh's "Missing: gnuplot" was said once, not once per figure
	[ "$(grep -c 'Missing: gnuplot' <<<"$output")" -eq 1 ]
}

@test "make labN without python3: says so, with the command that installs it, before any lab runs" {
	local lab
	lab=$(basename "$(ls "$ROOT"/labs/*/lab[0-9].sh | head -1)" .sh)	# the kit's first
	kit
	path_without python3
	run env -u BIN PATH="$BATS_TEST_TMPDIR/path" IOLAB_NO_INSTALL=1 DATA="$PWD/data" \
		make -s --no-print-directory -C kit "$lab" SCALE=tiny SCRATCH="$PWD/scratch"
	[ "$status" -ne 0 ]
	[[ ${lines[0]} == "Missing: python3. Install with one of:" ]]
	[[ $output == *"sudo apt-get install python3 "* ]]
	[[ $output != *"== Lab "* ]]
	[ ! -e "data/$lab.csv" ]
}

@test "deps.sh bats: a bats older than 1.4 (Ubuntu 22.04's 1.2.1) is refused, with the command that installs a newer one" {
	mkdir -p "$BATS_TEST_TMPDIR/old"
	printf '#!/bin/sh\necho "Bats 1.2.1"\n' >"$BATS_TEST_TMPDIR/old/bats"
	chmod +x "$BATS_TEST_TMPDIR/old/bats"
	run env PATH="$BATS_TEST_TMPDIR/old:$PATH" bash "$ROOT/common/deps.sh" bats python3
	[ "$status" -eq 1 ]
	[ "$output" = "bats 1.2.1 is older than 1.4, which the tests need. Fix: git clone --depth 1 https://github.com/bats-core/bats-core /tmp/bats-core && sudo /tmp/bats-core/install.sh /usr/local" ]
	printf '#!/bin/sh\necho "Bats 1.13.0"\n' >"$BATS_TEST_TMPDIR/old/bats"
	run env PATH="$BATS_TEST_TMPDIR/old:$PATH" bash "$ROOT/common/deps.sh" bats
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}
