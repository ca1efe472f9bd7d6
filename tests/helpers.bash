# helpers.bash - loaded by every test file.
# Programs come from $BIN (bin, or bin-asan/bin-tsan under make check);
# each test runs in its own empty directory, $BATS_TEST_TMPDIR.

ROOT=$(cd "$BATS_TEST_DIRNAME/.." && pwd)
case ${BIN:=bin} in /*) ;; *) BIN="$ROOT/$BIN" ;; esac
case ${UNIT:=build/test-common} in /*) ;; *) UNIT="$ROOT/$UNIT" ;; esac

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
}

# lines CHAR N: prints N lines holding CHAR, the files the labs produce.
lines() {
	local i
	for ((i = 0; i < $2; i++)); do printf '%s\n' "$1"; done
}

# usage_fails: the last `run` was a usage error: status 2, a message, the usage.
# shellcheck disable=SC2154 # status and output are set by bats' run
usage_fails() {
	[ "$status" -eq 2 ] || { echo "status $status, expected 2: $output"; return 1; }
	[[ $output == *"usage:"* ]] || { echo "no usage in: $output"; return 1; }
}
