#!/usr/bin/env bash
# scale.sh [INSERTS...] - Lab 6's scale measurement (docs/speed-goals.md):
# sqlite3 making INSERTS transactions of one row each in rollback-journal
# mode (about 19 calls each: 26 make a log of 500 calls, 158 one of
# 3,000), recorded by bin/fsrecord, then bin/crashstates over the three
# models of make lab6 with its defaults (--max-states 2000 a model, one
# checker per CPU) and a checker of the database (PRAGMA integrity_check;
# every row there once sqlite3 had ended). Printed per log: its calls,
# each model's states and broken ones, and crashstates' elapsed time, its
# CPU time with the checkers' (user + system) and the largest resident
# size of it or a checker; then the same with a checker that does
# nothing (true), which is crashstates' own cost. Default: 26 158.
#   MODELS  default posix,ext4-noauto_da_alloc,ext4-ordered
source "$(dirname "$0")/../../common/lab.sh"
for prog in fsrecord crashstates; do
	[ -x "$BIN/$prog" ] || { echo "scale.sh: $prog not built (make builds it)" >&2; exit 4; }
done
command -v sqlite3 >/dev/null || { echo "scale.sh: sqlite3 is not installed (apt-get install sqlite3)" >&2; exit 1; }
MODELS=${MODELS:-posix,ext4-noauto_da_alloc,ext4-ordered}
dir=$(mktemp -d "$SCRATCH/lab6-scale.XXXXXX")
trap 'rm -rf "$dir"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM
[ $# -gt 0 ] || set -- 26 158
for inserts in "$@"; do
	rm -rf "${dir:?}"/*
	mkdir "$dir/root"
	(cd "$dir/root" && sqlite3 db 'PRAGMA journal_mode=DELETE; CREATE TABLE t(x);' >/dev/null &&
		"$BIN/fsrecord" -o ../calls.log -- sqlite3 db "$(printf 'INSERT INTO t VALUES(%d);' $(seq "$inserts"))")
	cat >"$dir/check.sh" <<-EOF
	out=\$(sqlite3 db 'PRAGMA integrity_check' 2>&1); [ "\$out" = ok ] || { echo "\$out"; exit 1; }
	[ "\$1" = during ] || [ "\$(sqlite3 db 'SELECT count(*) FROM t')" = $inserts ] || { echo rows lost; exit 1; }
	EOF
	# crashstates timed from outside: elapsed, CPU of it and its checkers, largest
	# resident size; then with a checker that does nothing (true): its own cost
	for check in "sh $(printf %q "$dir/check.sh")" true; do
	label="$inserts inserts"
	[ "$check" != true ] || label="$label (checker: true)"
	"$PYTHON" - "$dir/calls.log" "$label" "$BIN/crashstates" --csv \
		--model "$MODELS" --scratch "$dir" --check "$check" "$dir/calls.log" <<-'EOF'
	import resource, subprocess, sys, time
	log, inserts, cmd = sys.argv[1], sys.argv[2], sys.argv[3:]
	t = time.monotonic()
	p = subprocess.run(cmd, capture_output=True, text=True)
	wall = time.monotonic() - t
	if p.returncode:
	    sys.exit(p.stderr.strip() or f"crashstates: exit status {p.returncode}")
	ru = resource.getrusage(resource.RUSAGE_CHILDREN)
	rows = [r.split(",") for r in p.stdout.split("\n")[1:] if r]
	print(f"{inserts}, {rows[0][1]} calls: " + ", ".join(f"{r[0]} {r[3]} states {r[4]} broken"
	      + (f" (sampled at {r[5]} points)" if r[5] != "0" else "") for r in rows)
	      + f"; {wall:.1f} s elapsed, {ru.ru_utime + ru.ru_stime:.1f} s CPU, {ru.ru_maxrss // 1024} MiB")
	EOF
	done
done
