#!/usr/bin/env bats
# How the kit builds: the flags every build keeps whatever CFLAGS says, a
# CC with arguments, and a program that does not build stopping only the
# labs that run it.

load helpers

# kit: a copy of what `make all` builds from, in ./kit.
kit() {
	mkdir -p kit/tests
	cp -R "$ROOT/Makefile" "$ROOT/common" "$ROOT/labs" kit/
	cp -R "$ROOT/tests/unit" kit/tests/
}

@test "CFLAGS=-O0 replaces -O2 only: -Werror, -std=c11 and -pthread stay; EXTRA_CFLAGS adds" {
	kit
	# a warning (an unused static variable) that -Werror makes an error, in
	# the one program every kit has: common/'s unit tests
	echo 'static int never_used;' >>kit/tests/unit/test-common.c
	run make -s -C kit build/test-common CFLAGS=-O0 EXTRA_CFLAGS=-DEXTRA_SEEN
	[ "$status" -ne 0 ]
	[[ $output == *"never_used"*"-Werror"* ]]
	[ ! -e kit/build/test-common ]
	run make -n -B -C kit build/test-common CFLAGS=-O0 EXTRA_CFLAGS=-DEXTRA_SEEN
	[ "$status" -eq 0 ]
	line=$(grep -- '-o build/test-common' <<<"$output")
	for flag in -std=c11 -Werror -pthread -O0 -DEXTRA_SEEN; do
		[[ " $line " == *" $flag "* ]] || { echo "no $flag in: $line"; return 1; }
	done
	[[ " $line " != *" -O2 "* ]]
}

@test "CC with arguments (CC='env cc', as 'ccache gcc'): liburing is found, by deps.sh and by make's probe" {
	printf '#include <liburing.h>\n' | cc -E -x c - >/dev/null 2>&1 || skip "liburing-dev is not installed"
	kit
	run env CC="env cc" IOLAB_NO_INSTALL=1 bash kit/common/deps.sh liburing
	[ "$status" -eq 0 ]
	[ -z "$output" ]
	# build/uring: the Makefile's answer to "link with liburing?"
	run env IOLAB_NO_INSTALL=1 make -C kit CC="env cc" build/uring
	[ "$status" -eq 0 ]
	[[ $output != *"without io_uring"* ]]
	[ "$(cat kit/build/uring)" = yes ]
}

@test "make labs: a program that does not build stops only the labs that run it; the summary names its source" {
	# a kit of two labs, each with a program, the second's broken
	mkdir -p kit/tests kit/labs/1-good kit/labs/2-bad kit/plot
	cp -R "$ROOT/Makefile" "$ROOT/common" kit/
	cp -R "$ROOT/tests/unit" kit/tests/
	printf 'int main(void) { return 0; }\n' >kit/labs/1-good/good.c
	printf 'int main(void) { return undeclared; }\n' >kit/labs/2-bad/bad.c
	for lab in 1:good 2:bad; do
		printf 'source common/lab.sh\nlab_begin "Lab %s" %s\necho "lab %s ran"\nlab_end\n' \
			"${lab%:*}" "${lab#*:}" "${lab%:*}" >"kit/labs/${lab%:*}-${lab#*:}/lab${lab%:*}.sh"
	done
	run env -u BIN IOLAB_NO_INSTALL=1 SCALE=tiny make -C kit labs
	[ "$status" -ne 0 ]
	[[ $output == *"labs/2-bad/bad.c"*"undeclared"* ]]	# the compiler's error
	[[ $output == *"lab2 cannot run: bad not built"* ]]
	[[ $output == *"== Lab 1 "*"lab 1 ran"* ]]
	[[ $output != *"lab 2 ran"* ]]
	[ -x kit/bin/good ]
	[[ $output == *"Labs that did not finish: lab2"* ]]
	[[ $output == *"lab2 did not start: a program it runs did not build (the compiler's errors are above). Fix: labs/2-bad/bad.c, then: make lab2"* ]]
}

@test "make on a system that is not Linux: one sentence saying what to use instead, and nothing built" {
	kit
	mkdir fake
	printf '#!/bin/sh\necho Darwin\n' >fake/uname
	chmod +x fake/uname
	run env PATH="$PWD/fake:$PATH" make -s --no-print-directory -C kit all
	[ "$status" -eq 2 ]
	[ "$(grep -c . <<<"$output")" -eq 1 ]
	[[ $output == *"Makefile:"*": *** iolab's labs need Linux, and this is Darwin: on Windows use WSL2 (with the kit in the Linux home, not under /mnt/c), on macOS a Linux virtual machine or the kit's dev container (.devcontainer/), as README.md's \"Not on Linux?\" says.  Stop." ]]
	[ ! -e kit/bin ]
	# Linux itself goes on (make -n: what it would build)
	run make -C kit -n all
	[ "$status" -eq 0 ]
}
