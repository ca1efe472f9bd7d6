# helpers.bash - loaded by every test file.
# Programs come from $BIN (bin, or bin-asan/bin-tsan under make check);
# each test runs in its own empty directory, $BATS_TEST_TMPDIR.

# tests/helpers.bash is loaded from tests/, each lab's tests/ and the grader's:
# the kit is the folder above this file's.
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
case ${BIN:=bin} in /*) ;; *) BIN="$ROOT/$BIN" ;; esac
case ${UNIT:=build/test-common} in /*) ;; *) UNIT="$ROOT/$UNIT" ;; esac

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	skip_if_file_needs
}

# show_failed_run (every file's teardown): a test that failed shows the end
# of what its last `run` printed, where the reason often is ("PROG: not
# written yet: ..." in the students' kit), which an assertion on the status
# alone does not show.
# shellcheck disable=SC2154 # output is set by bats' run
show_failed_run() {
	[ -n "${BATS_TEST_COMPLETED:-}" ] || [ -z "${output:-}" ] || {
		echo "the last run printed (its end):"
		tail -n 3 <<<"$output" | sed 's/^/  /'
	}
}
teardown() {
	show_failed_run
}

# bwrap_starts [OPTION...]: bubblewrap is installed and starts a sandbox
# here (with those options, e.g. --unshare-all as the grader's), or says
# why in one line, bubblewrap's own message, and fails. Installed is not
# enough: in a chroot, in a container under Docker's default seccomp
# profile, or where unprivileged user namespaces are off (Ubuntu 24.04's
# AppArmor), it cannot make its namespaces. Use as
#   why=$(bwrap_starts) || skip "$why"
bwrap_starts() {
	local out
	command -v bwrap >/dev/null || { echo "bubblewrap is not installed"; return 1; }
	out=$(bwrap --dev-bind / / "$@" true 2>&1) || { echo "bubblewrap cannot start here: $out"; return 1; }
}

# lines CHAR N: prints N lines holding CHAR, the files the labs produce.
lines() {
	# One process, not a loop: bats traces every command a test runs, and
	# 67,584 printfs took it 40 s.
	yes -- "$1" | head -n "$2"
}

# usage_fails: the last `run` was a usage error: status 2, a message, the
# usage's synopsis and where the rest is, not every option (which would
# scroll the message away).
# shellcheck disable=SC2154 # status and output are set by bats' run
usage_fails() {
	[ "$status" -eq 2 ] || { echo "status $status, expected 2: $output"; return 1; }
	[[ $output == *"usage:"* ]] || { echo "no usage in: $output"; return 1; }
	[[ ${lines[-1]} == "see "*" --help for every option" ]] || { echo "no 'see --help' last: $output"; return 1; }
	! grep -qE '^ +-' <<<"$output" || { echo "the options listed, the whole usage: $output"; return 1; }
}

# unwritten PROG...: those of the PROGs still to be written, with their
# sources ("launch (labs/1-interleave/launch.c), runs (...)"); nothing when
# all are. A program is still to be written when its source calls
# not_written() and has no solution markers: in the students' kit, until
# they write it. In the kit itself, never.
unwritten() {
	local prog src todo=()
	for prog in "$@"; do
		src=$(echo "$ROOT"/labs/*/"$prog".c)
		if [ ! -e "$src" ]; then
			todo+=("$prog (not in this kit: its lab was left out)")
		elif grep -q 'not_written(' "$src" && ! grep -q 'BEGIN[[:space:]]SOLUTION' "$src"; then
			todo+=("$prog (${src#"$ROOT/"})")
		fi
	done
	(IFS=,; echo "${todo[*]}") | sed 's/,/, /g'
}

# needs PROG...: skips the test, saying why, while one of the PROGs is still
# to be written, so that a test never fails for a program other than the
# one it tests.
needs() {
	local todo
	todo=$(unwritten "$@")
	[ -z "$todo" ] || skip "needs $todo: still to be written"
}

# needs_file PROG...: needs for every test of a file, called in setup_file
# (where bats cannot skip): fails, leaving the reason for setup() to skip
# each test with, while one of the PROGs is still to be written. Use as
#   needs_file launch runs || return 0
needs_file() {
	local todo
	todo=$(unwritten "$@")
	[ -n "$todo" ] || return 0
	echo "needs $todo: still to be written" >"$BATS_FILE_TMPDIR/needs"
	return 1
}

# skip_if_file_needs: in setup(), skips when needs_file found a program
# still to be written.
skip_if_file_needs() {
	[ ! -s "$BATS_FILE_TMPDIR/needs" ] || skip "$(cat "$BATS_FILE_TMPDIR/needs")"
}
