#!/usr/bin/env bats
# Every command of every lab page runs as printed, as a student who is not
# root would type it, in a copy of the kit of their own, at SCALE=tiny.
#
# The pages' convention is tests/page-commands.sh's, which turns a page
# into the script run here. Commands in the prose (`make validate`, which
# runs for minutes) are not run. CI runs the pages once, as its student
# (.ci/as-student), and leaves this file out.

load helpers

page_commands() { bash "$ROOT/tests/page-commands.sh" "$1"; }

# as_student COMMAND...: runs COMMAND as the student: this user, or, when
# the tests run as root, the user nobody (with a home of its own), in a
# student's environment: none of the test harness's variables (its BIN
# names the kit's programs, not the student's copy's; as root, a folder
# nobody may not enter), root's PATH left for the system's.
as_student() {
	if [ "$(id -u)" -eq 0 ]; then
		runuser -u nobody -- env -i HOME="$STUDENT_HOME" PATH=/usr/local/bin:/usr/bin:/bin LANG=C.UTF-8 "$@"
	else
		env -i HOME="$STUDENT_HOME" PATH="$PATH" LANG=C.UTF-8 "$@"
	fi
}

setup_file() {
	# the student's copy of the kit: the files git knows (in a kit that is
	# not a clone, every file but the build's and the runs': of data/, only
	# the kit's data/reference), owned by the student, in a folder the
	# student can reach (bats' own is root's, 0700)
	export STUDENT_TOP
	STUDENT_TOP=$(mktemp -d "${TMPDIR:-/tmp}/iolab-pages.XXXXXX")
	export STUDENT_HOME=$STUDENT_TOP/home KIT=$STUDENT_TOP/kit
	mkdir -p "$KIT" "$STUDENT_HOME"
	(
		cd "$ROOT" || exit 1
		{ git ls-files 2>/dev/null || find . \( -name bin -o -name build -o -name scratch -o -name dist -o -name .git \
			-o \( -path './data/*' ! -path './data/reference*' \) \) -prune -o -type f -print; } |
			tar -cf - -T - | tar -xf - -C "$KIT"
		# the programs as built here, their times kept, so that the page's
		# `make` finds them up to date rather than build the kit again
		# (CI's time: make test has just built them from these sources)
		cp -Rp bin build "$KIT"/ 2>/dev/null || true
	)
	# but not the Python tools' wrappers, which name this kit's path
	grep -lF "$ROOT/" "$KIT"/bin/* 2>/dev/null | xargs -r rm -f
	mkdir -p "$KIT/data"
	[ "$(id -u)" -ne 0 ] || chown -R nobody: "$STUDENT_TOP"
	chmod 755 "$STUDENT_TOP"
}

teardown_file() {
	rm -rf "$STUDENT_TOP"
}

# run_page N: runs lab N's page's commands in the student's kit.
run_page() {
	local page
	page=$(cd "$ROOT" && echo labs/"$1"-*/README.md)
	page_commands "$ROOT/$page" >"$BATS_TEST_TMPDIR/script" || return 1
	sed -i "s|$ROOT/||" "$BATS_TEST_TMPDIR/script"
	chmod 644 "$BATS_TEST_TMPDIR/script"
	cp "$BATS_TEST_TMPDIR/script" "$STUDENT_TOP/lab$1.sh"
	# bounded: a command that waits forever fails instead of hanging
	# the smallest sizes: SCALE for the labs, MAX_STATES for make lab6-real
	run as_student env -C "$KIT" SCALE=tiny MAX_STATES=100 timeout 900 bash "$STUDENT_TOP/lab$1.sh"
	[ "$status" -eq 0 ] || { echo "$output" | tail -20; return 1; }
}

@test "the pages' commands: every block is sh or text, and the sh blocks parse into whole commands" {
	for page in "$ROOT"/labs/*/README.md; do
		# a bare ``` opening a block says nothing of what it holds
		! awk '/^ *```/ { if (!inb && $0 !~ /```(sh|text) *$/) { print FILENAME ":" NR ": a block opens without sh or text"; bad = 1 } inb = !inb } END { exit bad }' "$page"
		script=$(page_commands "$page")
		# every page but a lab's without steps has commands
		[ "$(grep -c '^s=\$?' <<<"$script")" -gt 0 ]
	done
	# the script stops at a failing command, naming the page's line
	printf '# page\n\n```sh\ntrue\nfor x in a b; do\n  false\ndone\necho never\n```\n' >page.md
	run bash -c "$(page_commands page.md)"
	[ "$status" -eq 1 ]
	[ "$output" = "page.md:5: exit 1: for x in a b; do" ]
	# the student's copy holds the kit's reference data, which the figures
	# draw (in a kit that is not a git clone too, as in a chroot without git)
	for ref in "$ROOT"/data/reference/*; do
		cmp "$ref" "$KIT/data/reference/${ref##*/}"
	done
	# what a page needs and this system lacks is named (its test skips)
	printf '```sh\nmake lab9\nfor x in a; do\n  no-such-tool-here $x\ndone\n```\n' >tool.md
	run page_lacks tool.md
	[ "$status" -eq 1 ]
	[ "$output" = "no-such-tool-here is not installed" ]
	printf '```sh\nmake lab9\ncat /sys/no/such/file\n```\n' >sys.md
	run page_lacks sys.md
	[ "$status" -eq 1 ]
	[ "$output" = "there is no /sys/no/such/file here (no /sys mounted, as in a chroot)" ]
	printf '```sh\nmake lab9\nbin/launch -n 2 | sort\n```\n' >ok.md
	run page_lacks ok.md
	[ "$status" -eq 0 ]
	[ -z "$output" ]
}

# page_lacks PAGE: says what PAGE's commands need that this system lacks,
# and fails, or succeeds when it lacks nothing: a command that starts a line
# and is not installed (less, in a minimal Debian or a container), or a
# file under /sys (a chroot mounts none).
page_lacks() {
	local word file
	for word in $(bash "$ROOT/tests/page-commands.sh" "$1" | sed -n 's/^[[:space:]]*\([a-z][a-z0-9._-]*\)\( .*\)\{0,1\}$/\1/p' | sort -u); do
		[ -n "$(type -t "$word")" ] || { echo "$word is not installed"; return 1; }
	done
	for file in $(grep -o '/sys/[A-Za-z0-9_/.-]*' "$1" | sort -u); do
		[ -e "$file" ] || { echo "there is no $file here (no /sys mounted, as in a chroot)"; return 1; }
	done
}

# page_test N: Lab N's page, run as printed; skipped where the kit has no
# Lab N (a starter for fewer labs), where this system lacks a command or a
# file it reads (page_lacks), or while a C program the page runs (its lab
# script's, or a bin/PROG of its commands) is still to be written.
page_test() {
	local dir prog progs=() why
	dir=$(cd "$ROOT" && ls -d labs/"$1"-* 2>/dev/null) || skip "this kit has no Lab $1"
	why=$(page_lacks "$ROOT/$dir/README.md") || skip "the page's commands need what this system lacks: $why"
	for prog in $( { sed -n 's/^lab_begin "[^"]*" //p' "$ROOT/$dir/lab$1.sh"
		grep -o 'bin/[a-z][a-z-]*' "$ROOT/$dir/README.md" | cut -c5-; } | tr ' ' '\n' | sort -u); do
		[ ! -e "$(echo "$ROOT"/labs/*/"$prog".c)" ] || progs+=("$prog")
	done
	needs "${progs[@]}"
	run_page "$1"
}

@test "Lab 1's page: every command runs as printed" {
	page_test 1
}

@test "Lab 2's page: every command runs as printed" {
	page_test 2
}

@test "Lab 3's page: every command runs as printed" {
	page_test 3
}

@test "Lab 4's page: every command runs as printed" {
	page_test 4
}

@test "Lab 5's page: every command runs as printed" {
	page_test 5
}

@test "Lab 6's page: every command runs as printed" {
	page_test 6
}
