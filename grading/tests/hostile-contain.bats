#!/usr/bin/env bats
# The grader's containment layers that need no namespaces (Landlock, the
# system-call filter, IPC removal, closed run directories, per-grading disk
# and memory limits) against hostile programs: each attack that held
# without bubblewrap fails, with it and without. Run as root, CI runs it
# twice, with bubblewrap and with bwrap hidden from PATH (Gradescope's
# case); run as another user, it tests the grader of an instructor who is
# not root, which runs students' code as that user inside bubblewrap (a
# user namespace, Landlock, the filter, the watchdog's limits): every test
# but those of root's mode without bubblewrap.

load ../../tests/helpers
load grading

# in_keyring CMD...: runs CMD in a session keyring of its own that holds
# the key "iolab-contain", "keyring secret TAG", as an instructor's login
# session may hold keys: all CMD starts inherits it.
in_keyring() {
	python3 - "keyring secret $(cat "$BATS_FILE_TMPDIR/tag")" "$@" <<-'PY'
	import ctypes, os, platform, sys
	add_key, keyctl = {"x86_64": (248, 250), "aarch64": (217, 219)}[platform.machine()]
	libc = ctypes.CDLL(None, use_errno=True)
	secret = sys.argv[1].encode()
	# KEYCTL_JOIN_SESSION_KEYRING, then the key in KEY_SPEC_SESSION_KEYRING
	if libc.syscall(keyctl, 1, None) < 0 or libc.syscall(add_key, b"user", b"iolab-contain", secret,
	                                                    len(secret), -3) < 0:
	    sys.exit(f"in_keyring: {os.strerror(ctypes.get_errno())}")
	os.execvp(sys.argv[2], sys.argv[2:])
	PY
}

# grade NAME LAB ONLY: grades subs/NAME (only its lab's builds and the
# checks named ONLY) into grades/NAME.txt, in_keyring.
grade() {
	IOLAB_LIMIT_MEMORY_MIB=256 IOLAB_LIMIT_DISK_MIB=256 in_keyring "$ROOT/grade.sh" --labs "$2" --only "$3" \
		"subs/$1" >"grades/$1.txt" 2>&1
}

# sub NAME LAB_DIR PROG FIXTURE DEFINES...: subs/NAME, a submission of one
# program, the hostile FIXTURE in place of PROG, with these #defines.
sub() {
	local name=$1 dir=$2 prog=$3 fixture=$4 def
	shift 4
	mkdir -p "subs/$name/labs/$dir"
	for def in "$@"; do echo "#define $def"; done >"subs/$name/labs/$dir/$prog.c"
	cat "$ROOT/grading/tests/fixtures/hostile/$fixture.c" >>"subs/$name/labs/$dir/$prog.c"
}

# sysv_ipc_of_mine: the System V IPC objects (kind and id, one a line) of
# the gradings' uids (as root), else of the user running the tests.
sysv_ipc_of_mine() {
	python3 - "$(id -u)" <<-'PY'
	import sys
	me = int(sys.argv[1])
	for kind in ("shm", "sem", "msg"):
	    head, *rows = open(f"/proc/sysvipc/{kind}").read().splitlines()
	    cols = head.split()
	    for row in rows:
	        v = dict(zip(cols, row.split()))
	        uid = int(v["uid"])
	        if 1500000000 <= uid < 1500001000 if me == 0 else uid == me:
	            print(kind, row.split()[1])
	PY
}

# Why nothing can be tested here, or nothing: not root, the grader runs
# students' code only in bubblewrap.
cannot_grade() {
	[ "$(id -u)" -eq 0 ] || why=$(bwrap_starts --unshare-all) ||
		{ echo "the grader, not root, runs students' code only in bubblewrap: $why"; return 0; }
	return 1
}

setup_file() {
	! cannot_grade >/dev/null || return 0
	cd "$BATS_FILE_TMPDIR" || return 1
	mkdir subs grades
	TAG="iolab-contain-$$"
	echo "$TAG" >tag
	# Another checkout's answer key, readable by every user, as on an
	# instructor's machine.
	OTHER=$(mktemp -d /tmp/iolab-contain-other.XXXXXX)
	chmod 755 "$OTHER"
	mkdir -p "$OTHER/grading/lab1"
	echo "answer key $TAG" >"$OTHER/grading/lab1/answers.md"
	chmod -R a+rX "$OTHER"
	echo "$OTHER" >other-dir
	# A Unix socket any user may connect to, in the machine's /tmp, as a
	# D-Bus socket is in /run.
	BUS=$(mktemp -d /tmp/iolab-contain-bus.XXXXXX)
	chmod 755 "$BUS"
	echo "$BUS" >bus-dir
	# A TCP and a UDP server on one port of loopback, and a server on that
	# Unix socket, that record whatever reaches them (server.log, bus.log).
	python3 -c '
import os, select, socket, sys
t = socket.socket(); t.bind(("127.0.0.1", 0)); t.listen(5)
u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM); u.bind(t.getsockname())
x = socket.socket(socket.AF_UNIX); x.bind(sys.argv[2]); os.chmod(sys.argv[2], 0o777); x.listen(5)
print(t.getsockname()[1], flush=True)
while True:
    for s in select.select([t, u, x], [], [], 600)[0] or sys.exit(0):
        if s is u:
            data = u.recv(100)
        else:
            c, _ = s.accept(); data = c.recv(100); c.close()
        open(sys.argv[3] if s is x else sys.argv[1], "ab").write(data + b"\n")
' "$BATS_FILE_TMPDIR/server.log" "$BUS/bus" "$BATS_FILE_TMPDIR/bus.log" >port &
	echo $! >server.pid
	for _ in $(seq 50); do [ -s port ] && break; sleep 0.1; done
	local port defs
	port=$(cat port)
	defs=("ANSWERS \"$OTHER/grading/lab1/answers.md\"" "PORT $port" "TAG \"$TAG\"")

	sub intruder 1-interleave writer intruder "${defs[@]}"
	# Memory and disk against limits of 256 MiB the test sets
	# (IOLAB_LIMIT_MEMORY_MIB, IOLAB_LIMIT_DISK_MIB): small enough to reach
	# in seconds on a slow disk, now that posix_fallocate writes.
	sub hoard-RSS 1-interleave writer hoarder RSS "HOLD 100"
	sub hoard-SHM 1-interleave writer hoarder SHM "HOLD 100"
	sub hoard-MAPPED 1-interleave writer hoarder MAPPED "HOLD 100"
	sub hoard-UNLINKED 1-interleave writer hoarder UNLINKED "HOLD 100"
	sub hoard-MEMFD 1-interleave writer hoarder MEMFD "HOLD 100"
	sub hoard-UNTOUCHED 1-interleave writer hoarder UNTOUCHED "HOLD 100"
	sub hoard-INFLIGHT 1-interleave writer hoarder INFLIGHT "HOLD 100"
	sub hoard-WINDOW 1-interleave writer hoarder WINDOW "HOLD 100"
	sub bloater 1-interleave writer bloater "BLOAT 300"
	sub ringer 5-patterns iopattern ringer "${defs[@]}"
	sub knocker 5-patterns iopattern knocker "SOCKET \"$BUS/bus\"" "TAG \"$TAG\""
	sub allocator 5-patterns iopattern allocator "ALLOC_MB 1024"
	# Calls off the filter's list, four groups of them (offlist.c): three
	# writers of Lab 1, which may make a memfd, and an iopattern of Lab 5
	# outside its --iodepth check, which may not, nor set up an io_uring.
	local group
	for group in 1 2 3; do sub offlist-$group 1-interleave writer offlist "GROUP $group"; done
	sub offlist-4 5-patterns iopattern offlist "GROUP 4"

	# The controls: the intruder and the ringer outside the grader (in an
	# IPC namespace of its own so that the objects go with it; not root, in
	# a user namespace that makes one) reach all they try.
	mkdir -p control/run-1 control/run-2
	local ipc=(unshare --ipc)
	[ "$(id -u)" -eq 0 ] || ipc=(unshare --user --map-root-user --ipc)
	cc -o control/intruder subs/intruder/labs/1-interleave/writer.c -lrt &&
		(cd control/run-2 && in_keyring "${ipc[@]}" ../intruder 2>../intruder.txt) || true
	cc -o control/ringer subs/ringer/labs/5-patterns/iopattern.c -luring &&
		(cd control && ./ringer 2>ringer.txt) || true
	cc -o control/knocker subs/knocker/labs/5-patterns/iopattern.c -luring &&
		(cd control && ./knocker 2>knocker.txt) || true
	# (not root: in a user and mount namespace, where mounting is the user's)
	local ns=()
	[ "$(id -u)" -eq 0 ] || ns=(unshare --user --map-root-user --mount)
	for group in 1 2 3 4; do
		cc -o control/offlist-$group subs/offlist-$group/labs/*/*.c &&
			(cd control && "${ns[@]}" ./offlist-$group 2>offlist-$group.txt) || true
	done
	grep -c "$TAG" server.log >server.before
	sysv_ipc_of_mine >ipc.before
	grep -c "$TAG" bus.log >bus.before || true

	# Two at a time (not wait: the server is a child too).
	grade intruder 1 "writer:" & grade hoard-RSS 1 "writer:"
	wait $!
	grade hoard-SHM 1 "writer:" & grade hoard-UNLINKED 1 "writer:"
	wait $!
	grade hoard-MEMFD 1 "writer:" & grade ringer 5 "iodepth"
	wait $!
	local mapped
	grade hoard-MAPPED 1 "writer:" & mapped=$!
	grade knocker 5 "iodepth: N" & grade hoard-UNTOUCHED 1 "writer:"
	wait $mapped $!
	grade hoard-INFLIGHT 1 "writer:" & grade bloater 1 "writer:"
	wait $!
	[ "$(id -u)" -ne 0 ] || grade hoard-WINDOW 1 "writer:"	# (not root, it goes uncounted: its test says why)
	grade offlist-1 1 "writer:" & grade offlist-2 1 "writer:"
	wait $!
	grade offlist-3 1 "writer:" & grade offlist-4 5 "iopattern: CSV rows"
	wait $!
	grade allocator 5 "iodepth: N"
	kill "$(cat server.pid)" 2>/dev/null || true
	[ "$(id -u)" -eq 0 ] || return 0	# (the rest is root's mode without bubblewrap)
	# A racy pwriters (a mutant) whose first run rewrites its source in the
	# grader's build directory before the race check builds it with
	# ThreadSanitizer, where nothing but the uid's file modes stands in its
	# way: no bubblewrap, and a kernel without Landlock (nolandlock.py).
	mkdir -p subs/rebuilder/labs/4-writers
	cp "$ROOT"/labs/4-writers/{pwriters,datagen}.c subs/rebuilder/labs/4-writers/
	python3 -I -B "$ROOT/grading/mutants.py" --labs 4 --apply pwriters-takes-outside-lock subs/rebuilder >/dev/null
	cat "$ROOT/grading/tests/fixtures/hostile/rebuilder.c" >>subs/rebuilder/labs/4-writers/pwriters.c
	python3 "$ROOT/grading/tests/fixtures/hostile/nolandlock.py" "$ROOT/grade.sh" --no-bwrap --labs 4 \
		--only pwriters subs/rebuilder >grades/rebuilder.txt 2>&1 || true	# (the tests read the report)
	# A writer that puts 300 MiB in a world-writable directory outside the
	# shared temporary ones (a chroot's /tmp), without Landlock or bubblewrap.
	WW=$(mktemp -d /var/lib/iolab-contain-ww.XXXXXX)
	chmod 1777 "$WW"
	echo "$WW" >ww-dir
	sub stasher 1-interleave writer stasher "DIR \"$WW\"" "STASH_MB 300"
	IOLAB_LIMIT_DISK_MIB=256 python3 "$ROOT/grading/tests/fixtures/hostile/nolandlock.py" "$ROOT/grade.sh" \
		--no-bwrap --labs 1 --only "writer:" subs/stasher >grades/stasher.txt 2>&1 || true
}

teardown_file() {
	cd "$BATS_FILE_TMPDIR" || return 0
	[ -s server.pid ] && kill "$(cat server.pid)" 2>/dev/null
	[ -s other-dir ] && rm -rf "$(cat other-dir)"
	[ -s bus-dir ] && rm -rf "$(cat bus-dir)"
	[ -s ww-dir ] && rm -rf "$(cat ww-dir)"
	return 0
}

setup() {
	local why
	why=$(cannot_grade) && skip "$why"
	cd "$BATS_FILE_TMPDIR" || return 1
}

# needs_root_without_bwrap: skips a test of root's mode without bubblewrap
# and without Landlock, which a grader that is not root never runs in.
needs_root_without_bwrap() {
	[ "$(id -u)" -eq 0 ] ||
		skip "tests root's mode without bubblewrap: a grader that is not root refuses --no-bwrap (but with --unsafe-no-sandbox)"
}

# The intruder's line of stderr, as the writer check quotes it.
said() { grep -o 'intruder:.*' "grades/$1.txt" | head -1; }

@test "contain: the intruder, the ringer and the knocker, run outside the grader, reach everything they try" {
	cat control/intruder.txt control/ringer.txt control/knocker.txt
	grep -q "answers=ok proc=ok netlink=ok tcp=ok run1-read=ok run1-write=ok shm=ok sem=ok msg=ok mq=ok socketpair=ok keyring=ok" \
		control/intruder.txt
	grep -q "intruder: read the key: keyring secret $(cat tag)" control/intruder.txt
	grep -q "ringer: tcp=ok udp=ok netlink=ok" control/ringer.txt
	grep -q "knocker: unix=ok io_uring-unix=ok" control/knocker.txt
	[ "$(cat server.before)" -eq 3 ]  # the TAG each sent
	[ "$(cat bus.before)" -eq 2 ]
}

@test "contain: another checkout's world-readable answers and /proc of other processes stay closed" {
	said intruder
	# EACCES: Landlock's refusal; ENOENT: not in bubblewrap's mount namespace
	said intruder | grep -Eq "answers=(EACCES|ENOENT) proc=EACCES"
	[ "$(grep -c "answer key" grades/intruder.txt)" -eq 0 ]
	grep -q '^Containment: .*Landlock ABI [0-9]' grades/intruder.txt
}

@test "contain: no TCP and no socket table through netlink" {
	said intruder | grep -q "tcp=EACCES"
	said intruder | grep -Eq "netlink=(EACCES|ENOENT)"
	[ "$(grep -c "$(cat tag)" server.log)" -eq "$(cat server.before)" ]
}

in_bubblewrap() { grep -q '^Containment: bubblewrap' "grades/$1.txt"; }

# Outside bubblewrap no program gets an io_uring (sandbox.NO_IO_URING): the
# check that needs one is skipped, its points out of the maximum.
io_uring_skipped() {
	grep -q '^lab5: iopattern --iodepth: N requests in flight, same data: SKIP 0/3' "grades/$1.txt" &&
		grep -q 'outside bubblewrap the grader refuses io_uring' "grades/$1.txt" &&
		grep -q '^Containment: .*system-call filter (no sockets, no netlink, no io_uring' "grades/$1.txt"
}

@test "contain: io_uring's own sockets (TCP, UDP, netlink) reach nothing in Lab 5's --iodepth check" {
	grep -E 'ringer:|SKIP' grades/ringer.txt
	if in_bubblewrap ringer; then
		grep -q "ringer: tcp=EACCES udp=" grades/ringer.txt   # Landlock refuses its connect
	else
		io_uring_skipped ringer
	fi
	[ "$(grep -c "netlink=ok" grades/ringer.txt)" -eq 0 ]
	[ "$(grep -c "$(cat tag)" server.log)" -eq "$(cat server.before)" ]
}

@test "contain: io_uring reaches no Unix socket of the machine by its path (D-Bus's, say) in Lab 5's --iodepth check" {
	grep -E 'knocker:|SKIP' grades/knocker.txt
	if in_bubblewrap knocker; then
		# the check runs: the filter refuses socket(2); io_uring's own socket
		# finds no path, the machine's /tmp is not in its mount namespace
		grep -q "knocker: unix=EACCES io_uring-unix=ENOENT" grades/knocker.txt
	else
		io_uring_skipped knocker
	fi
	[ "$(grep -c "$(cat tag)" bus.log)" -eq "$(cat bus.before)" ]
}

@test "contain: io_uring's fallocate takes no more disk than a bounded tmpfs in Lab 5's --iodepth check; the run directory is read-only there" {
	grep -E 'allocator:|SKIP' grades/allocator.txt
	if in_bubblewrap allocator; then
		grep -Eq "allocator: here=(ENOSPC|EFBIG)\(0MiB\) up=EROFS\(0MiB\)" grades/allocator.txt
	else
		io_uring_skipped allocator
	fi
}

@test "contain: an earlier check's run directory is neither readable nor writable" {
	said intruder | grep -Eq "run1-read=(EACCES|ENOENT) run1-write=(EACCES|ENOENT)"
}

@test "contain: no System V IPC object, POSIX message queue or socket pair; none outlives the grading" {
	# no lab needs them: refused by the filter, with bubblewrap or without
	said intruder | grep -q "shm=EPERM sem=EPERM msg=EPERM mq=EACCES socketpair=EPERM"
	# none of a grading's uid, or (not root) of the user's but those it had before
	[ "$(sysv_ipc_of_mine)" = "$(cat ipc.before)" ]
}

@test "contain: the keys of the grader's session keyring stay unread" {
	said intruder | grep -q "keyring=EPERM"
	! grep -rq "keyring secret" grades
}

# offlist GROUP: the line offlist.c's program of that group wrote on
# stderr, as the grader quoted it.
offlist() { grep -o 'offlist:.*)$' "grades/offlist-$1.txt" | head -1; }

# kernel_answers GROUP NAME...: outside the grader, each call NAME of
# offlist.c's GROUP got an answer of the kernel's own: ok, or an errno but
# ENOSYS and EPERM, the filter's.
kernel_answers() {
	local group=$1 name
	shift
	for name in "$@"; do
		grep -Eq " $name=[A-Za-z]" "control/offlist-$group.txt" &&
			! grep -Eq " $name=(ENOSYS|EPERM)( |$)" "control/offlist-$group.txt" ||
			{ echo "$name: $(grep -Eo " $name=[A-Z]*" "control/offlist-$group.txt")"; return 1; }
	done
}

@test "contain: offlist.c, run outside the grader, gets the kernel's own answers, not ENOSYS or EPERM" {
	cat control/offlist-*.txt
	# (not memfd_secret, io_uring_setup, acct, kexec_load: a kernel may lack or disable them)
	kernel_answers 1 add_key keyctl perf_event_open bpf userfaultfd ptrace pidfd_getfd memfd
	kernel_answers 2 unshare mount setns clone_newuser clone3 open_tree fsopen chroot personality persona_read
	# (not syslog where the kernel keeps its log to root: dmesg_restrict)
	local syslog=syslog
	[ "$(id -u)" -eq 0 ] || [ "$(cat /proc/sys/kernel/dmesg_restrict 2>/dev/null)" != 1 ] || syslog=
	kernel_answers 3 open_by_handle_at name_to_handle_at process_madvise pidfd_open inotify landlock $syslog
	kernel_answers 4 memfd io_uring_enter
}

@test "contain: calls off the filter's list fail (ENOSYS; the deny-list's with EPERM as before), and score nothing" {
	for group in 1 2 3 4; do offlist $group; done
	offlist 1 | grep -qx "offlist: add_key=EPERM keyctl=EPERM perf_event_open=EPERM bpf=EPERM userfaultfd=EPERM memfd_secret=EPERM ptrace=EPERM pidfd_getfd=EPERM io_uring_setup=EPERM memfd=ok)"
	# no namespace, no mount, no odd personality; reading one's own is allowed (ThreadSanitizer does)
	offlist 2 | grep -qx "offlist: unshare=ENOSYS mount=ENOSYS setns=ENOSYS clone_newuser=EPERM clone3=ENOSYS open_tree=ENOSYS fsopen=ENOSYS chroot=ENOSYS personality=EPERM persona_read=ok)"
	offlist 3 | grep -qx "offlist: acct=ENOSYS kexec_load=ENOSYS open_by_handle_at=ENOSYS name_to_handle_at=ENOSYS process_madvise=ENOSYS pidfd_open=ENOSYS inotify=ENOSYS landlock=ENOSYS syslog=ENOSYS)"
	# memfd_create is Lab 1's (its SYSTEM_CALLS), io_uring the --iodepth check's
	offlist 4 | grep -qx "offlist: memfd=ENOSYS io_uring_setup=EPERM io_uring_enter=ENOSYS)"
	# each earned its build's point and nothing else
	for group in 1 2 3 4; do
		grep -E ': (PASS|FAIL|SKIP) ' "grades/offlist-$group.txt"
		[ "$(grep ': PASS ' "grades/offlist-$group.txt" | grep -vc ': build ')" -eq 0 ]
		grep -Eq '^lab[15]: (writer|iopattern)[^:]*: .*: FAIL 0/' "grades/offlist-$group.txt"
	done
}

@test "contain: without Landlock or bubblewrap, a program rewriting the source of a later build (Lab 4's race check) changes nothing: FAIL" {
	needs_root_without_bwrap
	grep -q '^Containment: .*no Landlock' grades/rebuilder.txt
	grep -E ': (PASS|FAIL|SKIP) ' grades/rebuilder.txt
	grep -q "^lab4: pwriters and datagen: no data race (ThreadSanitizer): FAIL 0/2" grades/rebuilder.txt
	grep -q "ThreadSanitizer found a data race" grades/rebuilder.txt
}

@test "contain: without Landlock or bubblewrap, 300 MiB in a world-writable directory outside /tmp go with the grading" {
	needs_root_without_bwrap
	cat grades/stasher.txt
	grep -q '^Containment: .*no Landlock' grades/stasher.txt
	grep -E ': (PASS|FAIL|SKIP) ' grades/stasher.txt
	# (the disk limit's kill is not asserted: the watchdog looks every 0.5 s,
	# and a write to the page cache can be done between two looks, as in a
	# CI rehearsal with bubblewrap hidden)
	[ -d "$(cat ww-dir)" ]
	[ -z "$(ls -A "$(cat ww-dir)")" ]
}

@test "contain: memory is limited per run, not per process: 3 processes x 100 MiB over 256 MiB" {
	grep -q "writer used more than 256 MiB of memory (killed)" grades/hoard-RSS.txt
}

@test "contain: memory counts memfd files mapped, then closed: 3 x 100 MiB over 256 MiB" {
	# not root, the watchdog counts a file mapped with no descriptor left
	# as large as its mapping, on disk, from the moment it is mapped (its
	# blocks are root's to read): the disk limit may kill it first
	local killed="writer used more than 256 MiB of memory"
	[ "$(id -u)" -eq 0 ] || killed="writer (used more than 256 MiB of memory|wrote more than 256 MiB or 20000 files)"
	grep -Eq "$killed \(killed\)" grades/hoard-MAPPED.txt
}

@test "contain: no memory held where no process shows it: System V segments and descriptors in flight are refused" {
	grep -q "shm: Operation not permitted" grades/hoard-SHM.txt
	# no socket at all (only bubblewrap gets Unix ones, to set up its loopback), nor sendmsg
	grep -q "socket: Permission denied" grades/hoard-INFLIGHT.txt
	[ "$(grep -c "holding it all" grades/hoard-SHM.txt grades/hoard-INFLIGHT.txt | grep -c ':0$')" -eq 2 ]
}

@test "contain: disk counts unlinked-but-open and memfd files, and memfd files mapped untouched, then closed: 3 x 100 MiB over 256 MiB" {
	for kind in UNLINKED MEMFD UNTOUCHED; do
		grep -q "writer wrote more than 256 MiB or 20000 files (killed)" grades/hoard-$kind.txt
	done
}

@test "contain: disk counts memfd files of which one page is mapped, then closed: 3 x 100 MiB over 256 MiB" {
	# map_files shows the whole file; /proc/PID/maps, all that a user who
	# is not root may read, only the part mapped
	[ "$(id -u)" -eq 0 ] || skip "a watchdog that is not root cannot stat a file held only by a mapping (map_files needs CAP_CHECKPOINT_RESTORE): it counts what is mapped of it"
	grep -q "writer wrote more than 256 MiB or 20000 files (killed)" grades/hoard-WINDOW.txt
}

@test "contain: a build counts against the disk limit: a program of 300 MiB of static data over 256 MiB" {
	grep -q "^lab1: build writer: FAIL" grades/bloater.txt
	grep -q "building writer wrote more than 256 MiB or 20000 files (killed)" grades/bloater.txt
	grep -q "bin/writer did not build" grades/bloater.txt
}

@test "contain: the grader's own memory stays under 200 MB on ten CSVs of 4 MiB of short values" {
	# 2,000,000 values a file: parsed and kept, they took the grader past 1 GB
	mkdir -p csvs/data
	echo 1,2,3,4,5,6 >csvs/labs.txt
	python3 - csvs/data <<-'PY'
	import sys
	for name in ("lab1", "lab2", "lab3", "lab3-membw", "lab4-writers", "lab4-datagen", "lab5", "lab5-depth",
	             "lab6-cost", "lab6-states"):
	    with open(f"{sys.argv[1]}/{name}.csv", "w") as f:
	        f.write(",".join(f"c{i}" for i in range(20)) + "\n")
	        f.write(("1," * 19 + "1\n") * ((4 << 20) // 40 - 3))
	PY
	python3 -c '
import resource, subprocess, sys
subprocess.run(sys.argv[1:])
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss >> 10, file=sys.stderr)
' "$ROOT/grade.sh" --only "has the declared columns" csvs >csvs.txt 2>csvs.mib
	grep -E 'columns|values' csvs.txt
	[ "$(grep -c 'has more than 100000 values (rows x columns), more than the grader parses' csvs.txt)" -eq 10 ]
	echo "the grader's peak: $(cat csvs.mib) MiB"
	[ "$(cat csvs.mib)" -lt 200 ]
}
