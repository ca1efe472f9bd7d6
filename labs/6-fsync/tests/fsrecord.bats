#!/usr/bin/env bats
# bin/fsrecord, Lab 6's recorder (strace underneath): per family of calls a
# small program (Python, a shell, C built here) recorded, its log exactly
# as expected, and replayed by crashstates; processes followed through
# fork, threads and exec; the calls the kit cannot model refused in one
# line with no log; a non-root user records too. sqlite3, where installed:
# ALICE's lost unlink of the rollback journal, and WAL mode clean.

load ../../../tests/helpers

REC="$ROOT/labs/6-fsync/fsrecord.py"
CRASH="$ROOT/labs/6-fsync/crashstates.py"
CALLS="$ROOT/labs/6-fsync/tests/calls"      # a small program per family of calls

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	command -v strace >/dev/null || skip "strace is not installed: the recorder runs programs under it"
	mkdir root scratch
	printf 'exit 0\n' >ok.sh
}

# record LOG COMMAND...: COMMAND run in root/ under the recorder, into LOG.
record() {
	local log=$1
	shift
	(cd root && python3 -B "$REC" -o "../$log" -- "$@")
}

# replay LOG: crashstates --csv under the three models, every state fine.
replay() {
	run python3 -B "$CRASH" --csv --scratch scratch --model posix,ext4-noauto_da_alloc,ext4-ordered \
		--check "sh $BATS_TEST_TMPDIR/ok.sh" "$1"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[ -z "$(ls -A scratch)" ]
}

@test "fsrecord: data, sizes and names, with their bytes, from a #! script; files outside the root left out" {
	mkdir root/sub root/gone
	printf hi >root/old
	cat >prog.py <<-'EOF'
	#!/usr/bin/env python3
	import ctypes, os
	libc = ctypes.CDLL(None, use_errno=True)
	fd = os.open("a", os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
	os.write(fd, b"ab")
	os.pwrite(fd, b"Z", 5)
	os.writev(fd, [b"c", b"d"])
	os.pwritev(fd, [b"e", b"f"], 7)
	os.ftruncate(fd, 3)
	os.fsync(fd)
	os.fdatasync(fd)
	libc.sync_file_range(fd, ctypes.c_long(0), ctypes.c_long(0), 2)
	os.close(fd)
	os.rename("a", "sub/b")
	os.unlink("old")
	os.mkdir("d2")
	d = os.open("sub", os.O_RDONLY | os.O_DIRECTORY)
	fd = os.open("c d", os.O_RDWR | os.O_CREAT | os.O_APPEND, 0o644, dir_fd=d)
	os.write(fd, b"xy")
	os.lseek(fd, 0, os.SEEK_SET)
	os.read(fd, 1)
	os.write(fd, b"z")      # O_APPEND: at the end, wherever the offset is
	os.close(fd)
	os.rename("c d", "e", src_dir_fd=d, dst_dir_fd=d)
	os.link("sub/e", "f", dst_dir_fd=d)
	os.unlink("sub/f")
	os.truncate("sub/e", 1)
	os.rmdir("gone")
	os.close(os.open("/dev/null", os.O_WRONLY))
	os.close(d)
	EOF
	chmod +x prog.py
	record calls.log ../prog.py
	cat >want <<-'EOF'
	fsrecord 1
	init dir gone
	init file old 6869
	init dir sub
	open a fd=3 flags=wronly|creat|trunc created=1
	write a fd=3 off=0 len=2 data=6162
	write a fd=3 off=5 len=1 data=5a
	write a fd=3 off=2 len=2 data=6364
	write a fd=3 off=7 len=2 data=6566
	ftruncate a fd=3 size=3
	fsync a fd=3
	fdatasync a fd=3
	sync_file_range a fd=3
	close a fd=3
	rename a sub/b
	unlink old
	mkdir d2
	open sub fd=4 flags=rdonly|directory created=0
	open sub/c%20d fd=5 flags=rdwr|creat|append created=1
	write sub/c%20d fd=5 off=0 len=2 data=7879
	write sub/c%20d fd=5 off=2 len=1 data=7a
	close sub/c%20d fd=5
	rename sub/c%20d sub/e
	link sub/e sub/f
	unlink sub/f
	truncate sub/e size=1
	rmdir gone
	close sub fd=4
	exit
	EOF
	diff want calls.log
	replay calls.log
	# 24 calls; under ext4 a prefix of them at each crash point; under
	# posix, more sets at some crash points than --max-states allows
	[ "$(grep -v ': sampled at ' <<<"$output" | cut -d, -f1-3,5 | tail -n +2 | tr '\n' ' ')" = \
		"posix,24,25,0 ext4-noauto_da_alloc,24,25,0 ext4-ordered,24,25,0 " ]
	[[ $output == *"crashstates: calls.log, model posix: sampled at "*" crash points: "*" seed 1"* ]]
}

@test "fsrecord: a directory renamed with its files, then written through its new name" {
	cat >mv.py <<-'EOF'
	import os
	os.mkdir("new")
	with open("new/f", "w") as f:
	    f.write("abc")
	os.rename("new", "final")
	with open("final/f", "a") as f:
	    f.write("d")
	EOF
	record calls.log python3 -I ../mv.py
	[ "$(grep -v '^init' calls.log | sed 's/ fd=[0-9]*//' | tr '\n' '|')" = "fsrecord 1|mkdir new|\
open new/f flags=wronly|creat|trunc created=1|write new/f off=0 len=3 data=616263|close new/f|rename new final|\
open final/f flags=wronly|creat|append created=0|write final/f off=3 len=1 data=64|close final/f|exit|" ]
	# after the program, under ext4 (nothing synced): final/f with abcd,
	# or what a crash left of it, or new/f, or nothing
	cat >check.sh <<-'EOF'
	[ "$1" = during ] || [ ! -e final/f ] && exit 0
	case "$(cat final/f)" in abcd | abc | "") exit 0 ;; esac
	echo "final/f holds $(cat final/f)"; exit 1
	EOF
	run python3 -B "$CRASH" --csv --scratch scratch --model ext4-ordered --check "sh $PWD/check.sh" calls.log
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "${lines[1]}" = "ext4-ordered,8,9,16,0,0," ]
}

@test "fsrecord: O_SYNC, O_DSYNC and pwritev2's flags make each write durable; sync and syncfs all" {
	cat >sync.py <<-'EOF'
	import ctypes, os
	fd = os.open("s", os.O_WRONLY | os.O_CREAT | os.O_SYNC, 0o644)
	os.write(fd, b"s")
	fd = os.open("d", os.O_WRONLY | os.O_CREAT | os.O_DSYNC, 0o644)
	os.write(fd, b"d")
	os.pwritev(fd, [b"r"], 1, os.RWF_SYNC)
	fd = os.open("p", os.O_WRONLY | os.O_CREAT, 0o644)
	os.pwritev(fd, [b"p"], 0, os.RWF_DSYNC)
	os.pwritev(fd, [b"q"], 0, os.RWF_APPEND)
	os.sync()
	ctypes.CDLL(None).syncfs(fd)
	EOF
	record calls.log python3 -I ../sync.py
	[ "$(tr '\n' '|' <calls.log)" = "fsrecord 1|open s fd=3 flags=wronly|creat created=1|write s fd=3 off=0 len=1 data=73|\
fsync s fd=3|open d fd=4 flags=wronly|creat created=1|write d fd=4 off=0 len=1 data=64|fdatasync d fd=4|\
write d fd=4 off=1 len=1 data=72|fsync d fd=4|open p fd=5 flags=wronly|creat created=1|\
write p fd=5 off=0 len=1 data=70|fdatasync p fd=5|write p fd=5 off=1 len=1 data=71|sync|syncfs|exit|" ]
	# after sync every state is the one the program left: during the
	# program, no name p (created but not synced) under posix, and so on
	printf '[ "$1" = during ] || [ "$(cat s d p)" = sdrpq ] || { echo "$(cat s d p)"; exit 1; }\n' >ok.sh
	replay calls.log
	[ "$(cut -d, -f1,5 <<<"$output" | tail -n +2 | tr '\n' ' ')" = "posix,0 ext4-noauto_da_alloc,0 ext4-ordered,0 " ]
}

@test "fsrecord: a shell's redirections (dup2, fcntl F_DUPFD) and the programs it runs" {
	record calls.log bash -c 'echo a >x; echo c >>x; bash -c "echo b >y"; cat x >>y; exit 0'
	# bash opens x, moves it onto 1 (dup2) and closes the original; the
	# commands it runs, bash and cat, are recorded too; y's appends go to
	# its end, cat's read of x leaves y's offset alone
	[ "$(tr '\n' '|' <calls.log)" = "fsrecord 1|open x fd=3 flags=wronly|creat|trunc created=1|\
write x fd=3 off=0 len=2 data=610a|close x fd=3|open x fd=4 flags=wronly|creat|append created=0|\
write x fd=4 off=2 len=2 data=630a|close x fd=4|open y fd=5 flags=wronly|creat|trunc created=1|\
write y fd=5 off=0 len=2 data=620a|close y fd=5|open y fd=6 flags=wronly|creat|append created=0|\
open x fd=7 flags=rdonly created=0|write y fd=6 off=2 len=4 data=610a630a|close x fd=7|close y fd=6|exit|" ]
	cmp root/y <(printf 'b\na\nc\n')
	replay calls.log
}

@test "fsrecord: fork shares offsets, exec closes O_CLOEXEC descriptors, threads share the table" {
	cat >procs.c <<-'EOF'
	#define _GNU_SOURCE
	#include <fcntl.h>
	#include <pthread.h>
	#include <stdlib.h>
	#include <sys/wait.h>
	#include <unistd.h>

	static int c = -1;

	static void put(int fd, const char *s)
	{
		if (write(fd, s, 1) != 1)
			exit(1);
	}

	static void *opener(void *arg)
	{
		(void)arg;
		c = open("c", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		return NULL;
	}

	int main(void)
	{
		int a = open("a", O_WRONLY | O_CREAT | O_TRUNC, 0644);
		int b = open("b", O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
		pthread_t t;

		if (a != 3 || b != 4)
			return 1;
		put(a, "1");
		pid_t p = fork();
		if (p == 0) {
			put(a, "2");
			put(b, "B");
			execl("/bin/sh", "sh", "-c", "echo 3 >&3; exec 2>/dev/null; echo 4 >&4", (char *)NULL);
			_exit(127);
		}
		waitpid(p, NULL, 0);
		put(a, "5");
		if (pthread_create(&t, NULL, opener, NULL) != 0 || pthread_join(t, NULL) != 0 || c < 0)
			return 1;
		put(c, "C");
		int d = fcntl(c, F_DUPFD, 10);
		close(c);
		put(d, "D");
		return 0;
	}
	EOF
	cc -O2 -pthread -o procs procs.c
	record calls.log ../procs
	# the child's 2 and its shell's "3\n" move the parent's offset of a
	# (one open file); b is closed by the child's exec, so "echo 4 >&4"
	# writes nothing;
	# the thread's c is the main thread's; c's close leaves its copy d open
	[ "$(tr '\n' '|' <calls.log)" = "fsrecord 1|open a fd=3 flags=wronly|creat|trunc created=1|\
open b fd=4 flags=wronly|creat|trunc created=1|write a fd=3 off=0 len=1 data=31|write a fd=3 off=1 len=1 data=32|\
write b fd=4 off=0 len=1 data=42|close b fd=4|write a fd=3 off=2 len=2 data=330a|write a fd=3 off=4 len=1 data=35|\
open c fd=5 flags=wronly|creat|trunc created=1|write c fd=5 off=0 len=1 data=43|write c fd=5 off=1 len=1 data=44|exit|" ]
	[ "$(cat root/a root/b root/c)" = "$(printf '123\n5BCD')" ]
	replay calls.log
}

@test "fsrecord: the kit's saver: safe replayed with saver --verify, fflush's one write at fflush" {
	[ -x "$BIN/saver" ] || skip "bin/saver is not built (make)"
	needs saver
	"$BIN/saver" -s safe -n 3 -g 1 root/doc.kv
	record safe.log "$BIN/saver" -s safe -n 3 -g 2 doc.kv
	[ "$(grep -v '^init' safe.log | cut -d' ' -f1,2 | tr '\n' '|')" = "fsrecord 1|open .|open doc.kv.tmp|write doc.kv.tmp|\
fsync doc.kv.tmp|close doc.kv.tmp|rename doc.kv.tmp|fsync .|close .|exit|" ]
	run python3 -B "$CRASH" --csv --scratch scratch --model posix,ext4-noauto_da_alloc \
		--check "$BIN/saver --verify -s safe -n 3 -g 2 doc.kv" safe.log
	[ "$(cut -d, -f1,5 <<<"$output" | tail -n +2 | tr '\n' ' ')" = "posix,0 ext4-noauto_da_alloc,0 " ]
	# fflush: stdio's one write at fflush, as the kernel saw it
	record fflush.log "$BIN/saver" -s fflush -n 3 -g 3 doc.kv
	grep -q "^write doc.kv fd=3 off=0 len=192 data=$(od -An -v -tx1 root/doc.kv | tr -d ' \n')$" fflush.log
}

@test "fsrecord: what the kit cannot model is refused in one line, and no log is written" {
	echo hello >root/src
	# refuse CALL... COMMAND: the recorder exits 1, its last line is
	# "fsrecord: CALL..." and no log is left
	refuse() {
		local want=$1
		shift
		run record r.log "$@"
		[ "$status" -eq 1 ] && [[ ${lines[-1]} == "fsrecord: $want"* ]] && [ ! -e r.log ] ||
			{ echo "status $status: $output"; return 1; }
	}
	refuse "mmap into m: a writable shared mapping" python3 -Ic '
import mmap, os
f = os.open("m", os.O_RDWR | os.O_CREAT)
os.ftruncate(f, 10)
mmap.mmap(f, 10)'
	refuse "openat O_TMPFILE in ." python3 -Ic 'import os; os.open(".", os.O_WRONLY | os.O_TMPFILE)'
	refuse "symlink" ln -s src sl
	cc -O2 -o names "$CALLS/names.c" && cc -O2 -o sizes "$CALLS/sizes.c"
	refuse "renameat2 RENAME_EXCHANGE of a: the kit does not model it" ../names exchange
	refuse "fallocate FALLOC_FL_COLLAPSE_RANGE into f: the kit cannot model it" ../sizes collapse
	printf 0123456789 >root/src
	refuse "splice into s from a pipe that bytes the recorder does not see went through (vmsplice" \
		python3 -I "$CALLS/copies.py" splice vmsplice
	echo outside >out
	refuse "rename" python3 -Ic 'import os; os.rename("../out", "in")'
	# io_uring, where this machine allows it (a container may refuse it)
	ring='import ctypes, sys; sys.exit(ctypes.CDLL(None).syscall(425, 1, ctypes.create_string_buffer(120)) < 0)'
	if python3 -Ic "$ring"; then
		refuse "io_uring_setup: " python3 -Ic "$ring"
	fi
}

# converted: the recorder's log of the strace lines in ./trace (strace's
# own output where reflinks or an old strace cannot make them), the files
# under ./root as they were before.
converted() {
	python3 -B -c 'import sys; sys.path.insert(0, sys.argv[1]); import fsrecord as f
print(f.convert("trace", sys.argv[2], sys.argv[2], f.snapshot(sys.argv[2]))[0], end="")' \
		"$(dirname "$REC")" "$PWD/root"
}

# states LOG MODEL: every state crashstates builds from LOG under MODEL,
# one line each in the file "seen", sorted, each once: "during" or
# "after", then each file of the state as NAME=BYTES (NUL shown as .,
# newline as |).
states() {
	cat >seen.sh <<-'EOF'
	line=$1
	for f in *; do [ -f "$f" ] && line="$line $f=$(tr '\0\n' .\| <"$f")"; done
	printf '%s\n' "$line" >>"$SEEN"
	EOF
	rm -f seen.all
	SEEN=$PWD/seen.all run python3 -B "$CRASH" --csv --scratch scratch --model "$2" --check "sh $PWD/seen.sh" "$1"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	sort -u seen.all >seen
}

@test "fsrecord: a #!/usr/bin/env sh script's cp, cp --reflink=auto, cat >, echo >: the bytes copied, lost before a sync" {
	printf 'hello\n' >root/src
	printf 'outside\n' >out
	cat >copy <<-'EOF'
	#!/usr/bin/env sh
	cp src dst
	cp --reflink=auto ../out o
	echo new >src2
	cat src2 >d4
	echo changed >src2
	sync
	EOF
	chmod +x copy
	record calls.log ../copy
	# whether this cp copies in the kernel (coreutils 9 does, where the
	# file system lets it): then the log holds the source's bytes there
	strace -f -qq -e trace=copy_file_range -o probe.log cp root/src probe
	if grep -q '^[0-9]* *copy_file_range(.*= [1-9]' probe.log; then
		grep -qx 'copy_file_range dst fd=[0-9]* off=0 len=6 from=src data=68656c6c6f0a' calls.log
		grep -qx 'copy_file_range o fd=[0-9]* off=0 len=8 from=- data=6f7574736964650a' calls.log
		# src2 as it was at the copy, not as it ended
		grep -qx 'copy_file_range d4 fd=[0-9]* off=0 len=4 from=src2 data=6e65770a' calls.log
	fi
	grep -qx sync calls.log
	states calls.log posix
	# after the sync, one state: each copy's bytes where they belong
	[ "$(grep '^after' seen)" = 'after d4=new| dst=hello| o=outside| src=hello| src2=changed|' ]
	# before it (cp does not fsync), states where a copy's bytes are lost,
	# its name kept, empty; or its name too
	grep -q '^during.* dst= ' seen && grep -q '^during.* d4= ' seen && grep -qx 'during src=hello|' seen
}

@test "fsrecord: copy_file_range and sendfile, with and without offsets: the source's bytes at the copy" {
	printf 0123456789 >root/src
	record calls.log python3 -I "$CALLS/copies.py"
	[ "$(grep -v '^init' calls.log | tr '\n' '|')" = "fsrecord 1|open src fd=3 flags=rdonly created=0|\
open a fd=4 flags=wronly|creat|trunc created=1|copy_file_range a fd=4 off=0 len=4 from=src data=30313233|\
copy_file_range a fd=4 off=6 len=2 from=src data=3839|fsync a fd=4|open b fd=5 flags=wronly|creat|trunc created=1|\
sendfile b fd=5 off=0 len=3 from=src data=343536|sendfile b fd=5 off=3 len=1 from=src data=30|\
open w fd=6 flags=rdwr|creat|trunc created=1|write w fd=6 off=0 len=3 data=6f6c64|\
open c fd=7 flags=wronly|creat|trunc created=1|copy_file_range c fd=7 off=0 len=3 from=w data=6f6c64|\
write w fd=6 off=0 len=3 data=6e6577|exit|" ]
	[ "$(od -An -c root/a | tr -s ' ')" = " 0 1 2 3 \0 \0 8 9" ] && [ "$(cat root/b root/c root/w)" = 4560oldnew ]
	states calls.log posix
	# 13 calls, every state the model allows (counted by crashstates: 213)
	[ "$output" = "$(printf 'model,calls,crash_points,states,broken,sampled_points,first_broken_after_call\nposix,13,14,213,0,0,')" ]
	grep -qx 'after a=0123..89 b=4560 c=old src=0123456789 w=new' seen
	# a was fsynced (its name was not): whole, or gone; c is w's old bytes or nothing, never new
	! grep -E ' a=[^ ]' seen | grep -qv ' a=0123..89'
	! grep -q '^after.* a= ' seen && ! grep -q ' c=new' seen && grep -q '^after.* c= ' seen
}

@test "fsrecord: splice from a file into a pipe, then from the pipe into a file: the pipe's bytes followed" {
	printf 0123456789 >root/src
	record calls.log python3 -I "$CALLS/copies.py" splice
	[ "$(grep -v '^init' calls.log | tr '\n' '|')" = "fsrecord 1|open src fd=3 flags=rdonly created=0|\
open s fd=4 flags=wronly|creat created=1|splice s fd=4 off=0 len=3 from=pipe data=623233|\
splice s fd=4 off=10 len=2 from=pipe data=3435|exit|" ]
	states calls.log posix
	[ "${lines[1]}" = "posix,4,5,8,0,0," ]
	# after: no s, an empty one, either splice's bytes (nothing synced), or both
	[ "$(grep '^after' seen | tr '\n' '|')" = "after s= src=0123456789|after s=..........45 src=0123456789|\
after s=b23 src=0123456789|after s=b23.......45 src=0123456789|after src=0123456789|" ]
}

@test "fsrecord: FICLONE and FICLONERANGE (from strace's lines: no reflink here) copy the source's bytes" {
	printf 'hello\n' >root/a
	cat >trace <<-'EOF'
	9 openat(AT_FDCWD, "\x61", O_RDONLY) = 3
	9 openat(AT_FDCWD, "\x62", O_WRONLY|O_CREAT, 0644) = 4
	9 ioctl(4, BTRFS_IOC_CLONE or FICLONE, 3) = 0
	9 ioctl(4, BTRFS_IOC_CLONE_RANGE or FICLONERANGE, {src_fd=3, src_offset=1, src_length=2, dest_offset=8}) = 0
	9 ioctl(4, BTRFS_IOC_CLONE_RANGE or FICLONERANGE, {src_fd=3, src_offset=4, src_length=0, dest_offset=10}) = 0
	9 exit_group(0) = ?
	9 +++ exited with 0 +++
	EOF
	run converted
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(tr '\n' '|' <<<"$output")" = "fsrecord 1|init file a 68656c6c6f0a|open a fd=3 flags=rdonly created=0|\
open b fd=4 flags=wronly|creat created=1|ficlone b fd=4 off=0 len=6 from=a data=68656c6c6f0a|\
ficlonerange b fd=4 off=8 len=2 from=a data=656c|ficlonerange b fd=4 off=10 len=2 from=a data=6f0a|exit|" ]
	printf '%s\n' "$output" >calls.log
	states calls.log posix
	grep -qx 'after a=hello| b=hello|..elo|' seen
}

@test "fsrecord: sendfile's offset as strace 6 ([N] => [M]) and strace 7 ([N => M]) print it: the bytes at N" {
	printf 0123456789 >root/src
	for moved in '[2] => [4]' '[2 => 4]'; do
		cat >trace <<-EOF
		9 openat(AT_FDCWD, "\x73\x72\x63", O_RDONLY) = 3
		9 openat(AT_FDCWD, "\x62", O_WRONLY|O_CREAT, 0644) = 4
		9 sendfile(4, 3, NULL, 1) = 1
		9 sendfile(4, 3, $moved, 2) = 2
		9 exit_group(0) = ?
		9 +++ exited with 0 +++
		EOF
		run converted
		[ "$status" -eq 0 ] || { echo "$output"; false; }
		# the second copy from offset 2 ("23"), not from the descriptor's 1 ("12")
		[ "$(grep '^sendfile' <<<"$output" | tr '\n' '|')" = \
			"sendfile b fd=4 off=0 len=1 from=src data=30|sendfile b fd=4 off=1 len=2 from=src data=3233|" ] ||
			{ echo "$moved: $output"; false; }
	done
}

@test "fsrecord: fallocate's size, KEEP_SIZE, a punched hole, a zeroed range, then truncations: fsync keeps the end" {
	cc -O2 -o sizes "$CALLS/sizes.c"
	record calls.log ../sizes
	[ "$(sed 's/data=\(....\)[0-9a-f]*/data=\1/' calls.log | tr '\n' '|')" = "fsrecord 1|\
open f fd=3 flags=rdwr|creat|trunc created=1|write f fd=3 off=0 len=8192 data=6161|fallocate f fd=3 size=12288|\
punch_hole f fd=3 off=100 len=10 data=0000|zero_range f fd=3 off=12288 len=2 data=0000|ftruncate f fd=3 size=12289|\
truncate f size=12288|fsync f fd=3|close f fd=3|exit|" ]
	{ head -c 100 /dev/zero | tr '\0' a; head -c 10 /dev/zero; head -c 8082 /dev/zero | tr '\0' a; head -c 4096 /dev/zero; } >want
	cmp root/f want
	states calls.log posix
	[ "${lines[1]}" = "posix,9,10,28,0,0," ]
	# after the fsync, only the file as it ended (or, its name never synced, none)
	[ "$(grep -c '^after' seen)" -eq 2 ] && grep -qx after seen
	grep -qx "after f=$(tr '\0' . <root/f)" seen
	# during: a hole's zeros and the new size's, without the write's bytes
	grep -qx "during f=$(head -c 12288 /dev/zero | tr '\0' .)" seen
}

@test "fsrecord: O_EXCL, renameat2 RENAME_NOREPLACE (failed ones change nothing), an fsync of the directory" {
	cc -O2 -o names "$CALLS/names.c"
	record calls.log ../names
	[ "$(tr '\n' '|' <calls.log)" = "fsrecord 1|open a fd=3 flags=wronly|creat|excl created=1|\
open b fd=4 flags=wronly|creat|excl created=1|open . fd=5 flags=rdonly|directory created=0|\
write a fd=3 off=0 len=1 data=41|write b fd=4 off=0 len=1 data=42|close a fd=3|close b fd=4|rename a c|fsync . fd=5|\
close . fd=5|exit|" ]
	states calls.log posix
	[ "${lines[1]}" = "posix,10,11,19,0,0," ]
	# after: the names b and c durable, their bytes not
	[ "$(grep '^after' seen | tr '\n' '|')" = "after b= c=|after b= c=A|after b=B c=|after b=B c=A|" ]
}

@test "fsrecord: dup, dup2, dup3, F_DUPFD_CLOEXEC share one offset; the original's close leaves them; _exit" {
	cc -O2 -o fds "$CALLS/fds.c"
	record calls.log ../fds
	[ "$(tr '\n' '|' <calls.log)" = "fsrecord 1|open f fd=3 flags=wronly|creat|trunc created=1|\
write f fd=3 off=0 len=1 data=31|write f fd=3 off=1 len=1 data=32|write f fd=3 off=2 len=1 data=33|\
write f fd=3 off=3 len=1 data=34|fdatasync f fd=3|exit|" ]
	states calls.log posix
	[ "${lines[1]}" = "posix,6,7,19,0,0," ]
	# fdatasync through a copy makes the file's bytes durable, not its name
	[ "$(grep '^after' seen | tr '\n' '|')" = "after|after f=1234|" ]
}

@test "fsrecord: bad command lines exit 2, a missing root 1, the command's status passed on" {
	run python3 -B "$REC" -- true
	usage_fails
	[ "${lines[0]}" = "fsrecord: no log (-o LOG)" ]
	run python3 -B "$REC" -o x.log
	usage_fails
	run python3 -B "$REC" -o x.log --frob -- true
	usage_fails
	run python3 -B "$REC" -o x.log --root no/such -- true
	[ "$status" -eq 1 ] && [ "$output" = "fsrecord: no/such: not a directory" ]
	# the command's own status, the log written all the same
	run record x.log sh -c 'echo a >f; exit 3'
	[ "$status" -eq 3 ] && [ "$(tail -1 x.log)" = exit ]
	# killed by a signal: 128 + N, and no "exit" (crashstates says so)
	run record k.log sh -c 'echo a >f; kill -KILL $$'
	[ "$status" -eq 137 ] && grep -qx 'write f fd=3 off=0 len=2 data=610a' k.log && ! grep -qx exit k.log
	run python3 -B "$REC" --help
	[ "$status" -eq 0 ] && [[ ${lines[0]} == "usage: fsrecord -o LOG"* ]]
}

@test "fsrecord: a user without root records a save (ptrace of its own children)" {
	[ "$(id -u)" -eq 0 ] || skip "needs root to become another user"
	command -v runuser >/dev/null || skip "runuser is not installed"
	[ -x "$BIN/saver" ] || skip "bin/saver is not built (make)"
	needs saver
	# a directory of nobody's, outside the kit (which may be unreadable to others)
	dir=$(mktemp -d /tmp/fsrecord-user.XXXXXX)
	cp "$REC" "$BIN/saver" "$dir/"
	chmod 755 "$dir" && chmod 644 "$dir/fsrecord.py"
	mkdir "$dir/d" && chown nobody "$dir/d"
	run runuser -u nobody -- sh -c "cd $dir/d && ../saver -s safe -n 2 -g 1 doc.kv &&
		/usr/bin/python3 -B ../fsrecord.py -o d.log -- ../saver -s safe -n 2 -g 2 doc.kv" 2>&1
	log=$(cat "$dir/d/d.log" 2>/dev/null) || true
	rm -rf "$dir"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# the log, in the root, is neither in its start nor in its calls
	[ "$(grep -c '^fsync' <<<"$log")" -eq 2 ] && [ "$(tail -1 <<<"$log")" = exit ] && ! grep -q 'd\.log' <<<"$log"
}

# sqlite3 DB SQL: the sqlite3 of the system, in root/.
sqlite() {
	(cd root && sqlite3 "$@")
}

# db_check: the checker of the table t: intact, 2 rows once the insert
# returned (the commit is durable), 1 or 2 during it.
db_check() {
	cat >ok.sh <<-'EOF'
	out=$(sqlite3 db 'PRAGMA integrity_check; select count(*) from t;' 2>&1 | tr '\n' ' ')
	case "$1:$out" in "after:ok 2 " | "during:ok 1 " | "during:ok 2 ") exit 0 ;; esac
	echo "db: $out"; exit 1
	EOF
}

@test "fsrecord: sqlite3's rollback journal: its unlink is never made durable, the commit can roll back" {
	command -v sqlite3 >/dev/null || skip "sqlite3 is not installed (apt-get install sqlite3)"
	sqlite db 'PRAGMA journal_mode=DELETE; create table t(x); insert into t values(1);' >/dev/null
	record calls.log sqlite3 db 'insert into t values(2);'
	# journal written and synced, the directory synced, the database
	# written and synced, then the journal unlinked: and nothing after
	[ "$(grep -v '^write\|^init' calls.log | tail -5 | tr '\n' '|')" = "fdatasync db fd=4|close db-journal fd=5|unlink db-journal|close db fd=4|exit|" ]
	db_check
	# (posix's 520 states sampled: each checks with sqlite3, and all took
	# 24 CPU-s; ext4's 17 are all built)
	run python3 -B "$CRASH" --scratch scratch --model posix,ext4-noauto_da_alloc --max-states 300 \
		--check "sh $BATS_TEST_TMPDIR/ok.sh" calls.log
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	# under both models one broken state: after the program, the journal
	# back (its unlink lost), and the committed row rolled back
	[[ ${lines[0]} == "crashstates: calls.log, model posix: "*" 1 broken (sampled"* ]]
	[[ $output == *"unlink db-journal  -> db-journal removed: LOST"* ]]
	[[ $output == *"  then: db: ok 1"* ]]
	[[ $output == *"model ext4-noauto_da_alloc: "*" 1 broken, every state the model allows"* ]]
}

@test "fsrecord: sqlite3 in WAL mode (exclusive locking: no shared-memory index) leaves no broken state" {
	command -v sqlite3 >/dev/null || skip "sqlite3 is not installed (apt-get install sqlite3)"
	sqlite db 'PRAGMA journal_mode=WAL; create table t(x); insert into t values(1);' >/dev/null
	# shared locking maps db-shm writable and shared: refused, not modelled
	run record calls.log sqlite3 db 'insert into t values(2);'
	[ "$status" -eq 1 ] && [[ $output == "fsrecord: mmap into db-shm: a writable shared mapping"* ]]
	sqlite db 'select count(*) from t;' | grep -qx 2
	sqlite db 'delete from t where x = 2;'
	record calls.log sqlite3 db 'PRAGMA locking_mode=EXCLUSIVE; PRAGMA synchronous=FULL; insert into t values(2);'
	grep -q '^write db-wal ' calls.log && grep -q '^unlink db-wal$' calls.log
	db_check
	run python3 -B "$CRASH" --csv --scratch scratch --model posix,ext4-noauto_da_alloc,ext4-ordered \
		--check "sh $BATS_TEST_TMPDIR/ok.sh" calls.log
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[ "$(cut -d, -f1,5 <<<"$output" | tail -n +2 | tr '\n' ' ')" = "posix,0 ext4-noauto_da_alloc,0 ext4-ordered,0 " ]
}
