#!/usr/bin/env bats
# crashstates: each model rule on hand-made logs whose states are known,
# and bad input (a cut log, an unknown call or rule, a crashing checker, a
# program that saves nothing): one line, exit 1, an empty scratch. (The
# recorder's logs, replayed: fsrecord.bats.)

load ../../../tests/helpers

CRASH="$ROOT/labs/6-fsync/crashstates.py"

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	mkdir scratch
}

# crash LOG [OPTIONS...]: crashstates --csv with the checker check.sh.
crash() {
	local log=$1
	shift
	run python3 "$CRASH" --csv --scratch scratch --check "sh $BATS_TEST_TMPDIR/check.sh" "$@" "$log"
}

hex() { printf '%s' "$1" | od -An -v -tx1 | tr -d ' \n'; }

# The checker of the replacing saves: f holds "new", or "old" during the save.
replacing_check() {
	cat >check.sh <<-'EOF'
	[ "$(cat f 2>/dev/null)" = new ] && exit 0
	[ "$1" = during ] && [ "$(cat f 2>/dev/null)" = old ] && exit 0
	echo "f holds '$(cat f 2>/dev/null)'"; exit 1
	EOF
}

# list_check: a checker that finds every state fine and appends it to
# seen, one line (one write: checkers run side by side): "during:" or
# "after:", then each path (a directory with a /, a file =its bytes, or
# =its size and checksum past 16 bytes).
list_check() {
	cat >check.sh <<-EOF
	line="\$1:"
	for p in \$(find . -mindepth 1 | sort); do
		if [ -d "\$p" ]; then line="\$line \${p#./}/"
		elif [ "\$(wc -c <"\$p")" -le 16 ]; then line="\$line \${p#./}=\$(cat "\$p")"
		else line="\$line \${p#./}=\$(wc -c <"\$p"):\$(cksum <"\$p" | cut -d' ' -f1)"; fi
	done
	echo "\$line" >>"$BATS_TEST_TMPDIR/seen"
	EOF
}

# states: the states seen by list_check, sorted, one a line, and seen emptied
states() { sort seen; rm seen; }

# ------------------------------------------------------------------ the models

# rename.log: "new" written to t, renamed over f ("old"); no sync at all.
rename_log() {
	cat >rename.log <<-EOF
	fsrecord 1
	init file f $(hex old)
	open t fd=3 flags=wronly|creat|trunc created=1
	write t fd=3 off=0 len=3 data=$(hex new)
	close t fd=3
	rename t f
	exit
	EOF
}

@test "crashstates: rename without a sync, under each model: the states and broken ones known" {
	rename_log
	replacing_check
	crash rename.log --model posix,ext4-noauto_da_alloc,ext4-ordered
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# posix: during, f old alone, or with t empty or t new (3 states); after,
	# those and f empty (the rename without the data) or f new: 4 broken.
	# ext4-noauto_da_alloc: the same states through prefixes. auto_da_alloc: never
	# the rename without the data, so f is never empty.
	[ "${lines[1]}" = "posix,4,5,8,4,0,4" ]
	[ "${lines[2]}" = "ext4-noauto_da_alloc,4,5,8,4,0,4" ]
	[ "${lines[3]}" = "ext4-ordered,4,5,7,3,0,4" ]
	[ -z "$(ls -A scratch)" ]
}

@test "crashstates: the shortest way to a broken state, readable, and --keep keeps its files" {
	rename_log
	replacing_check
	run python3 "$CRASH" --model ext4-noauto_da_alloc --scratch scratch --keep kept --check "sh $PWD/check.sh" rename.log
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "${lines[0]}" = "crashstates: rename.log, model ext4-noauto_da_alloc: 4 calls, 5 crash points, 8 states built, 4 broken, every state the model allows" ]
	[ "${lines[1]}" = "the shortest way to a broken state: a crash after call 4 of 4 (after the program ended)" ]
	[ "${lines[3]}" = "    2. write t (3 bytes at 0)  -> bytes 0-2: LOST" ]
	[ "${lines[5]}" = "    4. rename t f  -> f is the file that was t: on disk" ]
	[ "${lines[6]}" = "  then: f holds ''" ]
	[ "$(ls kept)" = f ] && [ ! -s kept/f ]
}

# safe.log: t written and synced, renamed over f, the directory synced
# (OPTIONS: leave the directory's fsync out).
safe_log() {
	cat >safe.log <<-EOF
	fsrecord 1
	init file f $(hex old)
	open . fd=4 flags=rdonly|directory created=0
	open t fd=3 flags=wronly|creat|trunc created=1
	write t fd=3 off=0 len=3 data=$(hex new)
	fsync t fd=3
	close t fd=3
	rename t f
	EOF
	[ "${1-}" = no-dir-fsync ] || echo "fsync . fd=4" >>safe.log
	echo exit >>safe.log
}

@test "crashstates: fsync of the file and of the directory: no broken state under any model" {
	safe_log
	replacing_check
	crash safe.log --model posix,ext4-noauto_da_alloc,ext4-ordered
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cut -d, -f1,5 <<<"$output" | tail -n +2 | tr '\n' ' ')" = "posix,0 ext4-noauto_da_alloc,0 ext4-ordered,0 " ]
	# Without the directory's fsync, the rename can be lost once saved: f
	# old, with t new beside it or (posix only: the fsync of t did not make
	# its name durable) without it.
	safe_log no-dir-fsync
	crash safe.log --model posix,ext4-noauto_da_alloc
	[ "$(cut -d, -f1,5,7 <<<"$output" | tail -n +2 | tr '\n' ' ')" = "posix,2,6 ext4-noauto_da_alloc,1,6 " ]
}

@test "crashstates: fsync file against journal: an fsync of another file commits the rename on ext4 only" {
	rename_log
	sed -i 's/^exit$/open g fd=5 flags=wronly|creat created=1\nfsync g fd=5\nexit/' rename.log
	# the data of t is not synced: a checker of names only
	printf '[ -e t ] && exit 1; exit 0\n' >check.sh
	crash rename.log --model posix,ext4-noauto_da_alloc
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# ext4: the states with t are those before the rename was journalled
	# (t empty or new), none after the program (the fsync of g committed the
	# journal, the rename with it). posix: those two, again with g beside,
	# and all four after the program too (no fsync of the directory).
	[ "$(cut -d, -f1,4,5 <<<"$output" | tail -n +2 | tr '\n' ' ')" = "posix,20,8 ext4-noauto_da_alloc,9,2 " ]
}

@test "crashstates: unsynced blocks: any of them under data any (holes), a prefix under data prefix" {
	# blocks of 512 bytes; an append of two blocks, a then b, never synced
	sed -e 's/^block .*/block 512/' -e 's/^name .*/name any512/' "$ROOT/labs/6-fsync/models/posix.model" >any.model
	sed -e 's/^data any/data prefix/' -e 's/^name .*/name prefix512/' any.model >prefix.model
	a=$(printf 'a%.0s' $(seq 512)) b=$(printf 'b%.0s' $(seq 512))
	printf 'fsrecord 1\ninit file L \nopen L fd=3 flags=wronly|append created=0\nwrite L fd=3 off=0 len=1024 data=%s\nexit\n' \
		"$(hex "$a$b")" >append.log
	# fine: L is a prefix of the two blocks (no hole of zeros)
	printf 'case "%s" in "$(cat L)"*) exit 0;; esac; echo hole; exit 1\n' "$a$b" >check.sh
	crash append.log --model "$PWD/any.model,$PWD/prefix.model"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# during (before the write): L empty; after: "", a, b after a hole, ab
	# under any (the hole broken), "", a, ab under prefix
	[ "${lines[1]}" = "any512,2,3,5,1,0,2" ]
	[ "${lines[2]}" = "prefix512,2,3,4,0,0," ]
}

@test "crashstates: a hard link is a name of the same file; truncate by path; sync makes everything durable" {
	# a written, linked as b, truncated through b by its path, then sync
	printf 'fsrecord 1\nopen a fd=3 flags=wronly|creat created=1\nwrite a fd=3 off=0 len=3 data=%s\nlink a b\ntruncate b size=1\n' \
		"$(hex new)" >link.log
	printf '[ "$1" = during ] || [ "$(cat a b 2>&1)" = nn ] || { echo "$(cat a b 2>&1)"; exit 1; }\n' >check.sh
	cat link.log - <<<exit >nosync.log
	crash nosync.log --model posix,ext4-noauto_da_alloc
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# no sync: after the program, a state that lost a name, the size or the
	# data is broken
	[ "$(cut -d, -f1,5 <<<"$output" | tail -n +2 | tr '\n' ' ')" = "posix,12 ext4-noauto_da_alloc,6 " ]
	printf 'sync\nexit\n' | cat link.log - >sync.log
	crash sync.log --model posix,ext4-noauto_da_alloc
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cut -d, -f1,2,5 <<<"$output" | tail -n +2 | tr '\n' ' ')" = "posix,5,0 ext4-noauto_da_alloc,5,0 " ]
}

@test "crashstates: a checker given by a relative path is found from where crashstates started" {
	rename_log
	replacing_check
	mkdir -p tools run
	printf '#!/bin/sh\nexec sh %s/check.sh "$@"\n' "$PWD" >tools/check
	chmod +x tools/check
	# from run/, as the lab page's steps do (../../bin/saver); f is the state's
	cd run
	run python3 "$CRASH" --csv --scratch ../scratch --check '../tools/check' ../rename.log
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "${lines[1]}" = "posix,4,5,8,4,0,4" ]
	[ -z "$(ls -A ../scratch)" ]
}

@test "crashstates: beyond --max-states, a crash point's states are sampled, and it says so" {
	python3 -c '
print("fsrecord 1\ninit file L ")
print("open L fd=3 flags=wronly|append created=0")
for i in range(12):
    print("write L fd=3 off=%d len=4096 data=%s" % (4096 * i, ("%02x" % (65 + i)) * 4096))
print("exit")' >big.log
	printf 'exit 0\n' >check.sh
	crash big.log --model posix --max-states 50
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	IFS=, read -r model calls points states broken sampled _ <<<"${lines[1]}"
	[ "$model,$calls,$points,$broken" = "posix,13,14,0" ]
	[ "$sampled" -ge 1 ] && [ "$states" -le 50 ]
	[ "${lines[2]}" = "crashstates: big.log, model posix: sampled at 10 crash points: 41 of the 8.18e+03 sets of operations the model allows there (0.5%), seed 1" ]
	# the crash points with 1, 1, 2 and 4 sets are built whole (8), the
	# other ten share the 42 left (41 different); --seed draws another
	# sample, the same seed
	# the same one
	list_check
	for run in 1 1again 2; do
		crash big.log --model posix --max-states 50 --seed "${run%again}"
		[ "$status" -eq 0 ] || { echo "$output"; false; }
		sort seen >seen.$run && rm seen
	done
	[ "$(wc -l <seen.1)" -eq "$states" ] && grep -qx "during: L=" seen.1
	cmp seen.1 seen.1again
	! cmp -s seen.1 seen.2
	run python3 "$CRASH" --model posix --max-states 50 --scratch scratch --check "sh $PWD/check.sh" big.log
	[[ ${lines[0]} == *"(sampled at 10 crash points: 41 of the 8.18e+03 sets of operations the model allows there (0.5%), seed 1)" ]]
}

# ------------------------------------------------------------------ directories

# dir.log: d made, d/f created in it, written and synced; the root synced
# (OPTIONS: also d synced)
dir_log() {
	cat >dir.log <<-EOF
	fsrecord 1
	mkdir d
	open d/f fd=3 flags=wronly|creat created=1
	write d/f fd=3 off=0 len=3 data=$(hex new)
	fsync d/f fd=3
	open . fd=4 flags=rdonly|directory created=0
	fsync . fd=4
	EOF
	[ "${1-}" != d-too ] || printf 'open d fd=5 flags=rdonly|directory created=0\nfsync d fd=5\n' >>dir.log
	echo exit >>dir.log
}

@test "crashstates: a file in a new directory: lost with its name in the directory, unreachable when the mkdir is lost" {
	dir_log
	list_check
	crash dir.log --model posix
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# posix: the name d/f, in d, is never synced: after the program, d
	# alone; before the root's fsync, d/f's name without the mkdir reaches
	# nothing (the state with neither, seen once)
	[ "$(states | tr '\n' '|')" = "after: d/|after: d/ d/f=new|during:|during: d/|during: d/ d/f=|during: d/ d/f=new|" ]
	# ext4: the root's fsync commits the journal, d/f's name with it
	crash dir.log --model ext4-ordered
	[ "$(grep -c '^after' seen)" -eq 1 ] && [ "$(grep '^after' seen)" = "after: d/ d/f=new" ]
	rm seen
	# posix, with d synced too: nothing lost after the program
	dir_log d-too
	crash dir.log --model posix
	[ "$(grep '^after' seen | sort -u)" = "after: d/ d/f=new" ]
}

@test "crashstates: a renamed directory takes its files along; a lost rename leaves them under the old name" {
	cat >mv.log <<-EOF
	fsrecord 1
	init dir new
	init file new/f $(hex abc)
	open . fd=3 flags=rdonly|directory created=0
	rename new final
	open final/g fd=4 flags=wronly|creat created=1
	open final fd=5 flags=rdonly|directory created=0
	fsync final fd=5
	fsync . fd=3
	open final/f fd=6 flags=rdonly created=0
	close final/f fd=6
	exit
	EOF
	list_check
	crash mv.log --model posix
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# g, created in the renamed directory, is under new/ while the rename is
	# not on the disk; after the program, final/ with f and g only
	[ "$(states | tr '\n' '|')" = "after: final/ final/f=abc final/g=|during: final/ final/f=abc|\
during: final/ final/f=abc final/g=|during: new/ new/f=abc|during: new/ new/f=abc new/g=|" ]
}

# ------------------------------------------------------------------ the rules of ALICE's model and of ext4's

@test "crashstates: alice-apm: a rename in three steps, an append's size before its data (garbage)" {
	rename_log
	list_check
	crash rename.log --model alice-apm
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# after: f removed, t removed, f linked to t's file, each kept or lost
	# (neither name, t alone, f old, both names, f new), and t's data as
	# an append: empty, its size over garbage, or new: 14 states
	[ "$(grep -c '^after' seen)" -eq 14 ]
	grep -qx 'after:' seen && grep -qx 'after: f=new t=new' seen && grep -qx 'after: f=??? t=???' seen
	rm seen
	printf 'fsrecord 1\ninit file L \nopen L fd=3 flags=wronly|append created=0\nwrite L fd=3 off=0 len=3 data=%s\nexit\n' \
		"$(hex new)" >append.log
	crash append.log --model alice-apm,posix
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# alice-apm: empty, the size over garbage, new; posix: empty or new
	[ "$(states | tr '\n' '|')" = "after: L=|after: L=???|after: L=new|during: L=|" ]
	[ "$(cut -d, -f1,4 <<<"$output" | tail -n +2 | tr '\n' ' ')" = "alice-apm,4 posix,3 " ]
}

@test "crashstates: ext4: new blocks after the truncation; replace-via-truncate; writeback by offset" {
	# f (6 bytes) truncated and written again in place, then g created
	cat >inplace.log <<-EOF
	fsrecord 1
	init file f $(hex oldold)
	open f fd=3 flags=wronly|trunc created=0
	write f fd=3 off=0 len=3 data=$(hex new)
	close f fd=3
	open g fd=4 flags=wronly|creat created=1
	exit
	EOF
	list_check
	crash inplace.log --model ext4-noauto_da_alloc
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# never "newold" (the new block over the old file, the truncation lost):
	# the block is allocated in a later transaction than the truncation
	[ "$(grep '^after' seen | sort | tr '\n' '|')" = "after: f=|after: f= g=|after: f=new|after: f=new g=|after: f=oldold|" ]
	rm seen
	# auto_da_alloc: the close after the truncation sends the data with the
	# next commit, before g's name: never f empty beside g
	crash inplace.log --model ext4-ordered
	[ "$(grep '^after' seen | sort | tr '\n' '|')" = "after: f=|after: f=new|after: f=new g=|after: f=oldold|" ]
	rm seen
	# blocks of 512 bytes: L's block 1 written, then block 0; writeback goes
	# by offset, so block 1 is never on the disk without block 0
	sed -e 's/^block .*/block 512/' -e 's/^name .*/name ext4-512/' "$ROOT/labs/6-fsync/models/ext4-ordered.model" >e512.model
	x=$(printf 'x%.0s' $(seq 1024)) a=$(printf 'a%.0s' $(seq 512)) b=$(printf 'b%.0s' $(seq 512))
	printf 'fsrecord 1\ninit file L %s\nopen L fd=3 flags=wronly created=0\nwrite L fd=3 off=512 len=512 data=%s\nwrite L fd=3 off=0 len=512 data=%s\nexit\n' \
		"$(hex "$x")" "$(hex "$b")" "$(hex "$a")" >wb.log
	printf '[ "$1" = during ] && exit 0; case "$(cat L)" in %s|%s|%s) exit 0;; esac; echo "$(cut -c1,513 L)"; exit 1\n' \
		"$x" "${a}${x:512}" "$a$b" >check.sh
	crash wb.log --model "$PWD/e512.model"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# during: xx, and xb between the writes; after: xx, ax, ab, never xb
	[ "${lines[1]}" = "ext4-512,3,4,5,0,0," ]
}

@test "crashstates: btrfs: an fsync logs the file's names and directories; a replacing rename waits for data; names in order" {
	cat >b.log <<-EOF
	fsrecord 1
	init file f $(hex old)
	mkdir d
	open d/f fd=3 flags=wronly|creat created=1
	write d/f fd=3 off=0 len=3 data=$(hex new)
	fsync d/f fd=3
	open t fd=4 flags=wronly|creat|trunc created=1
	write t fd=4 off=0 len=3 data=$(hex new)
	close t fd=4
	rename t f
	open g fd=5 flags=wronly|creat created=1
	write g fd=5 off=0 len=1 data=$(hex x)
	exit
	EOF
	list_check
	crash b.log --model btrfs
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "${lines[1]}" = "btrfs,10,11,14,0,0," ]
	# after: d and d/f always (no fsync of a directory); f old or new,
	# never empty; g only after the rename before it
	[ "$(states | grep '^after' | tr '\n' '|')" = "after: d/ d/f=new f=new|after: d/ d/f=new f=new g=|\
after: d/ d/f=new f=new g=x|after: d/ d/f=new f=old|after: d/ d/f=new f=old t=|after: d/ d/f=new f=old t=new|" ]
	# posix, on the same log: d/f can be lost, f left empty
	crash b.log --model posix
	[ "${lines[1]}" = "posix,10,11,76,0,0," ]
	grep -qx 'after: f=' seen
}

@test "crashstates: bad input: one line, exit 1, nothing left in the scratch directory" {
	rename_log
	replacing_check
	head -n -1 rename.log >cut.log
	crash cut.log
	[ "$status" -eq 1 ]
	[[ $output == "crashstates: cut.log: the log ends without 'exit' (line 7): the program was killed by a signal, or the log was cut short" ]]
	sed 's/^close t fd=3$/frobnicate t fd=3/' rename.log >unknown.log
	crash unknown.log
	[ "$status" -eq 1 ]
	[ "$output" = "crashstates: unknown.log line 5: the model posix ($ROOT/labs/6-fsync/models/posix.model) does not say what 'frobnicate' does (it needs a line 'call frobnicate KIND')" ]
	printf 'name bad\nblock 4096\nmetadata sometimes\n' >bad.model
	crash rename.log --model "$PWD/bad.model"
	[ "$status" -eq 1 ]
	[[ $output == "crashstates: $PWD/bad.model line 3: not a rule of a model: 'metadata sometimes'"* ]]
	printf 'kill -SEGV $$\n' >check.sh
	crash rename.log
	[ "$status" -eq 1 ]
	[[ $output == "crashstates: the checker crashed on a state (killed by signal 11): sh $PWD/check.sh" ]]
	printf 'fsrecord 1\ninit file f %s\nopen f fd=3 flags=rdonly created=0\nclose f fd=3\nexit\n' "$(hex old)" >idle.log
	crash idle.log
	[ "$status" -eq 1 ]
	[[ $output == "crashstates: idle.log: the program changed no file under its root: no save to crash in"* ]]
	sed 's/^rename t f$/rename t ..\/f/' rename.log >escape.log
	crash escape.log
	[ "$status" -eq 1 ]
	[ "$output" = "crashstates: escape.log line 6: the path '../f' leaves the root" ]
	crash no-such.log
	[ "$status" -eq 1 ]
	[ "$output" = "crashstates: no-such.log: No such file or directory" ]
	run python3 "$CRASH" --scratch no-such-dir --check true rename.log
	[ "$status" -eq 1 ]
	[ "$output" = "crashstates: --scratch no-such-dir: No such file or directory" ]
	[ -z "$(ls -A scratch)" ]
	run python3 "$CRASH" --max-states 0 --check true rename.log
	[ "$status" -eq 2 ]
	[[ $output == *"usage: crashstates"* ]]
}
