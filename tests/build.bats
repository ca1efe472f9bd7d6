#!/usr/bin/env bats
# How the kit builds: the flags every build keeps whatever CFLAGS says, and
# a CC with arguments.

load helpers

# kit: a copy of what `make all` builds from, in ./kit.
kit() {
	mkdir -p kit/tests
	cp -R "$ROOT/Makefile" "$ROOT/common" "$ROOT/labs" kit/
	cp -R "$ROOT/tests/unit" kit/tests/
}

@test "CFLAGS=-O0 replaces -O2 only: -Werror, -std=c11 and -pthread stay; EXTRA_CFLAGS adds" {
	kit
	# a warning (an unused static variable) that -Werror makes an error
	echo 'static int never_used;' >>kit/labs/1-interleave/writer.c
	run make -s -C kit bin/writer CFLAGS=-O0 EXTRA_CFLAGS=-DEXTRA_SEEN
	[ "$status" -ne 0 ]
	[[ $output == *"never_used"*"-Werror"* ]]
	[ ! -e kit/bin/writer ]
	run make -n -B -C kit bin/writer CFLAGS=-O0 EXTRA_CFLAGS=-DEXTRA_SEEN
	[ "$status" -eq 0 ]
	line=$(grep -- '-o bin/writer' <<<"$output")
	for flag in -std=c11 -Werror -pthread -O0 -DEXTRA_SEEN; do
		[[ " $line " == *" $flag "* ]] || { echo "no $flag in: $line"; return 1; }
	done
	[[ " $line " != *" -O2 "* ]]
}

@test "CC with arguments (CC='env cc', as 'ccache gcc'): liburing is found, iopattern uses it" {
	printf '#include <liburing.h>\n' | cc -E -x c - >/dev/null 2>&1 || skip "liburing-dev is not installed"
	kit
	run env IOLAB_NO_INSTALL=1 make -C kit CC="env cc" bin/iopattern
	[ "$status" -eq 0 ]
	[[ $output != *"without io_uring"* ]]
	[[ $output != *"liburing"*"install"* ]]
	[ "$(cat kit/build/uring)" = yes ]
	nm -D kit/bin/iopattern | grep -q io_uring
}
