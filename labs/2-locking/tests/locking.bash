# locking.bash - loaded by the tests of Lab 2's writers: a lock holder,
# two writers released together behind it, and a look at /proc/locks.

teardown() {
	if [ -n "${holder:-}" ]; then kill "$holder" 2>/dev/null || true; fi
	show_failed_run
}

# hold KIND: a lockbench that writes "H" under a KIND lock, then keeps the
# lock 10 s (the test ends it sooner). Returns once "H" is in f: from then
# on the lock is held; fails at once if the holder exits first (as a lockbench
# still to be written does, its message on stderr).
hold() {
	"$BIN/lockbench" -c H -n 1 -k 1 --lock "$1" --hold-ms 10000 f >/dev/null &
	holder=$!
	for _ in $(seq 200); do
		[ -s f ] && return 0
		kill -0 "$holder" 2>/dev/null || return 1
		sleep 0.05
	done
	return 1
}

# together KIND PROGRAM OPTION...: writers A and B (PROGRAM -c A|B OPTION...)
# on a fresh file f, released together: a holder takes the KIND lock first,
# both writers queue behind it (as /proc/locks shows), then the holder ends
# and its line is removed from f. Again, up to 20 times, until A's and B's
# lines interleave (more than 2 runs): one writer after the other proves
# nothing. flock is unfair: the writer that unlocks usually takes the lock
# again before the woken one runs, so with few batches a try can fail.
together() {
	local kind=$1 prog=$2 inode a b
	shift 2
	for _ in $(seq 20); do
		rm -f f
		hold "$kind" || { echo "the $kind holder never wrote its line" >&2; return 1; }
		inode=$(stat -c %i f)
		"$BIN/$prog" -c A "$@" f >/dev/null &
		a=$!
		"$BIN/$prog" -c B "$@" f >/dev/null &
		b=$!
		for _ in $(seq 100); do
			[ "$(grep -c -- "-> .*:$inode " /proc/locks)" -ge 2 ] && break
			sleep 0.05
		done
		kill "$holder"
		wait "$holder" 2>/dev/null || true
		wait "$a" || { echo "writer A failed: $prog -c A $*" >&2; return 1; }
		wait "$b" || { echo "writer B failed: $prog -c B $*" >&2; return 1; }
		tail -n +2 f >g && mv g f
		[ "$("$BIN/runs" --csv f | wc -l)" -gt 3 ] && return 0
	done
	echo "the two writers never interleaved in 20 tries" >&2
	return 1
}

# blocked: succeeds once /proc/locks shows a request waiting for a lock on
# f, or fails after 5 s (then nobody waited, or /proc/locks is missing).
blocked() {
	local inode
	inode=$(stat -c %i f)
	for _ in $(seq 100); do
		grep -q -- "-> .*:$inode " /proc/locks && return 0
		sleep 0.05
	done
	return 1
}
