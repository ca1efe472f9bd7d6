#!/usr/bin/env bats
# The grader against hostile submissions: nothing a student's code or
# tarball does reaches the grader's files, another submission, the network
# or the instructor's account, and the verdicts do not move. Run as root
# (each grading gets its own uid); make test-all runs it with bubblewrap,
# CI with bwrap hidden from PATH (Gradescope's case).

load ../../tests/helpers
load grading

# The gradings of this file take their uids from a range of its own
# (IOLAB_UID_BASE; their slots' locks in a directory of its own), so that
# "no process of a grading uid runs and nothing is left" speaks of them
# alone, while other files grade beside it.
export IOLAB_UID_BASE=1600000000 IOLAB_LOCK_DIR=$BATS_FILE_TMPDIR
# own_uid FIELD: awk's test that FIELD is a uid of that range (the grader's 1,000 slots)
own_uid() { echo "$1 >= $IOLAB_UID_BASE && $1 < $((IOLAB_UID_BASE + 1000))"; }

# The hostile programs in grading/tests/fixtures/hostile, each in place of one of
# the reference's Lab 1 programs, graded in one batch beside the reference.
setup_file() {
	[ "$(id -u)" -eq 0 ] || return 0
	cd "$BATS_FILE_TMPDIR" || return 1
	mkdir subs
	reference_kit 1
	variant reference
	TAG="iolab-hostile-$$"
	echo "$TAG" >tag
	# A file only the grader's user may read or write, for the links to aim at.
	mkdir -m 700 private
	echo "secret $TAG" >private/secret
	chmod 600 private/secret
	sha256sum private/secret >secret.sum
	# A server on loopback that records whatever reaches it.
	python3 -c '
import socket, sys
s = socket.socket(); s.bind(("127.0.0.1", 0)); s.listen(5)
print(s.getsockname()[1], flush=True)
s.settimeout(600)
while True:
    c, _ = s.accept(); open(sys.argv[1], "ab").write(c.recv(100) + b"\n"); c.close()
' "$BATS_FILE_TMPDIR/server.log" >port &
	echo $! >server.pid
	for _ in $(seq 50); do [ -s port ] && break; sleep 0.1; done

	local dir=labs/1-interleave prog
	for prog in planter forger garbage; do
		variant "$prog"
		cp "$ROOT/grading/tests/fixtures/hostile/$prog.c" "subs/$prog/$dir/runs.c"
	done
	sed -i "s|^int main|#define SECRET \"$BATS_FILE_TMPDIR/private/secret\"\n&|" subs/planter/$dir/runs.c
	# A scratch folder every uid may pass through, as /tmp is.
	SCRATCH=$(mktemp -d /tmp/iolab-hostile-scratch.XXXXXX)
	chmod 755 "$SCRATCH"
	echo "$SCRATCH" >scratch-dir
	for prog in bomb hopper saboteur stubborn filler peeker; do
		variant "$prog"
		cp "$ROOT/grading/tests/fixtures/hostile/$prog.c" "subs/$prog/$dir/writer.c"
	done
	sed -i "1i #define KIT \"$ROOT\"\n#define PORT $(cat port)\n#define TAG \"$TAG\"" subs/saboteur/$dir/writer.c
	sed -i "1i #define SCRATCH \"$SCRATCH\"" subs/peeker/$dir/writer.c
	variant include-shadow
	sed -i '1i #include "/etc/shadow"' subs/include-shadow/$dir/writer.c
	variant include-answers
	sed -i "1i #include \"$ROOT/grading/lab1/answers.md\"" subs/include-answers/$dir/writer.c
	variant bad-numbers
	python3 - subs/bad-numbers/data/lab1.csv <<-'PY'
	import csv, sys
	rows = list(csv.DictReader(open(sys.argv[1])))
	for r, bad in zip(rows, ["1e9919", "0x10", "nan", "inf"]):
	    r["wall_s"] = bad
	w = csv.DictWriter(open(sys.argv[1], "w", newline=""), fieldnames=rows[0].keys())
	w.writeheader(); w.writerows(rows)
	PY
	# The first submission of the batch is refused (a link in the tarball).
	python3 -c '
import tarfile
with tarfile.open("subs/0-refused.tar.gz", "w:gz") as t:
    m = tarfile.TarInfo("iolab-handin/data"); m.type, m.linkname = tarfile.SYMTYPE, "/etc"; t.addfile(m)'

	# The gradings' scratch directories go there, to be found empty after.
	# A disk limit of 256 MiB (IOLAB_LIMIT_DISK_MIB), which the filler
	# reaches in seconds on a slow disk too (1 GiB took more than the
	# writer's 10 s on one CI machine).
	TMPDIR=$SCRATCH IOLAB_LIMIT_DISK_MIB=256 "$ROOT/grade.sh" --batch subs -j 2 --labs 1 --out grades >batch.log 2>&1
	kill "$(cat server.pid)" 2>/dev/null || true
}

setup() {
	[ "$(id -u)" -eq 0 ] || skip "the hostile suite needs root: each grading gets its own uid"
	cd "$BATS_TEST_TMPDIR" || return 1
}

report() { cat "$BATS_FILE_TMPDIR/grades/$1.txt"; }
score() { local s; s=$(sed -n 's/^Score: //p' "$BATS_FILE_TMPDIR/grades/$1.txt") && within_max "$s" "$1" && echo "$s"; }
# The report's FAIL lines for runs' checks, without the "(N.Ns)".
runs_checks() { grep -c "^lab1: runs: .*: FAIL 0/" "$BATS_FILE_TMPDIR/grades/$1.txt"; }

@test "hostile: the genuine submission keeps its full score beside a fork bomb and a saboteur" {
	report reference | grep ': FAIL ' >&2 || true
	[ "$(score reference)" = "24/24" ]
}

@test "hostile: links planted in the run directory reach nothing; the checks they aim at fail" {
	(cd "$BATS_FILE_TMPDIR" && sha256sum -c secret.sum)
	! grep -rq "secret $(cat "$BATS_FILE_TMPDIR/tag")" "$BATS_FILE_TMPDIR/grades"
	[ "$(runs_checks planter)" -eq 3 ]
	[ "$(score planter)" = "17/24" ]
}

@test "hostile: a program that only forges the grader's files scores nothing for it" {
	[ "$(runs_checks forger)" -eq 3 ]
	[ "$(score forger)" = "17/24" ]
}

@test "hostile: a fork bomb, a process that forks and exits, an endless writer and a disk filler fail their check only, each saying why" {
	for sub in bomb hopper stubborn filler; do
		[ "$(score $sub)" = "21/24" ]
		[ "$(grep -c ': FAIL ' "$BATS_FILE_TMPDIR/grades/$sub.txt")" -eq 1 ]
	done
	report filler >&2	# shown if the test fails
	report stubborn | grep -q "writer did not finish in 10 s (killed)"
	report hopper | grep -q "writer did not finish in 10 s (killed)"
	! report stubborn | grep -q "137"
	report filler | grep -q "writer wrote more than 256 MiB or 20000 files (killed)"
}

@test "hostile: the saboteur writes nothing outside its directory, reaches no network, reads no answers" {
	local tag
	tag=$(cat "$BATS_FILE_TMPDIR/tag")
	for f in /tmp/$tag /var/tmp/$tag /dev/shm/$tag /tmp/$tag.lock "$ROOT/$tag"; do
		[ ! -e "$f" ] || { echo "$f was written"; return 1; }
	done
	[ ! -s "$BATS_FILE_TMPDIR/server.log" ]
	report saboteur | grep -q "lab1/answers.md: (cannot open)"
	! report saboteur | grep -q "root:"
	! grep -q "root:" "$BATS_FILE_TMPDIR/grades/saboteur.json"
	[ "$(score saboteur)" = "21/24" ]
}

@test "hostile: a grading cannot open another grading's programs or shims" {
	report peeker | grep -q "peeked into 0 files of other gradings"
	[ "$(score peeker)" = "21/24" ]
}

@test "hostile: #include of /etc/shadow or of the answer key quotes neither" {
	for sub in include-shadow include-answers; do
		[ "$(score $sub)" = "20/24" ]
		! grep -q 'root:' "$BATS_FILE_TMPDIR/grades/$sub.txt" "$BATS_FILE_TMPDIR/grades/$sub.json"
		! grep -q '^## Q1' "$BATS_FILE_TMPDIR/grades/$sub.txt" "$BATS_FILE_TMPDIR/grades/$sub.json"
		! grep -q 'Q1.1' "$BATS_FILE_TMPDIR/grades/$sub.json"
	done
}

@test "hostile: invalid UTF-8, ESC, CR and forged score lines leave the report and results.json intact" {
	[ "$(score garbage)" = "17/24" ]
	[ "$(grep -c '^Score: ' "$BATS_FILE_TMPDIR/grades/garbage.txt")" -eq 1 ]
	! grep -q $'\x1b' "$BATS_FILE_TMPDIR/grades/garbage.txt"
	! grep -q $'\r' "$BATS_FILE_TMPDIR/grades/garbage.txt"
	python3 - "$BATS_FILE_TMPDIR/grades/garbage.json" <<-'PY'
	import json, sys
	r = json.load(open(sys.argv[1], encoding="utf-8"))
	assert r["score"] == 17, r["score"]
	assert sum(t["score"] for t in r["tests"]) == 17
	assert "\x1b" not in json.dumps(r, ensure_ascii=False)
	PY
}

@test "hostile: 1e9919, 0x10, nan and inf in a CSV fail the data checks, naming the value" {
	report bad-numbers | grep -q "'1e9919' is not a number"
	[ "$(score bad-numbers)" = "20/24" ]
}

@test "hostile: a refused first submission leaves the class CSV's columns to the list of checks" {
	local csv="$BATS_FILE_TMPDIR/grades/class.csv"
	[ "$(head -1 "$csv")" = "submission,$("$ROOT/grade.sh" --list --labs 1 | cut -f1,3 | sed 's/\t/: /' |
		python3 -c 'import csv, sys; csv.writer(sys.stdout, lineterminator="").writerow(l.rstrip("\n") for l in sys.stdin)'),score,max_score" ]
	grep -q '^0-refused,,' "$csv"
	grep -q '^reference,1,1,1,3,3,4,1,2,2,2,1,2,0,1,24,24$' "$csv"
	grep -q 'not a plain file or directory' "$BATS_FILE_TMPDIR/grades/0-refused.txt"
}

@test "hostile: after the batch no process of a grading uid runs and nothing is left on disk" {
	[ -z "$(ps -eo uid=,args= | awk "$(own_uid '$1')")" ]
	[ -z "$(find /tmp /var/tmp /dev/shm -maxdepth 1 -printf '%U %p\n' 2>/dev/null | awk "$(own_uid '$1')")" ]
	[ -z "$(ls -A "$(cat "$BATS_FILE_TMPDIR/scratch-dir")")" ]
	rmdir "$(cat "$BATS_FILE_TMPDIR/scratch-dir")"
}

@test "hostile: grading the same submission twice gives the same score" {
	"$ROOT/grade.sh" --labs 1 "$BATS_FILE_TMPDIR/subs/garbage" >again.txt 2>&1
	[ "$(sed -n 's/^Score: //p' again.txt)" = "$(score garbage)" ]
}

# tarball KIND: a .tar.gz with one hostile feature, made by python's tarfile.
tarball() {
	python3 - "$1" <<-'PY'
	import io, sys, tarfile
	kind = sys.argv[1]
	def member(name, size=3, **attrs):
	    m = tarfile.TarInfo(name); m.size = size
	    for k, v in attrs.items(): setattr(m, k, v)
	    return m
	mode = "w:gz"
	with tarfile.open(kind + ".tar.gz", mode, format=tarfile.GNU_FORMAT) as t:
	    if kind == "dotdot":
	        t.addfile(member("iolab-handin/../../escaped"), io.BytesIO(b"hi\n"))
	    elif kind == "absolute":
	        t.addfile(member("/tmp/iolab-escaped-abs"), io.BytesIO(b"hi\n"))
	    elif kind == "symlink":
	        t.addfile(member("iolab-handin/data", 0, type=tarfile.SYMTYPE, linkname="/etc"))
	    elif kind == "hardlink":
	        t.addfile(member("iolab-handin/answers.md", 0, type=tarfile.LNKTYPE, linkname="/etc/passwd"))
	    elif kind == "device":
	        t.addfile(member("iolab-handin/null", 0, type=tarfile.CHRTYPE, devmajor=1, devminor=3))
	    elif kind == "many":
	        for i in range(20000):
	            t.addfile(member(f"iolab-handin/f{i}", 0), io.BytesIO(b""))
	    elif kind == "bomb":
	        class Zeros(io.RawIOBase):
	            left = 300 << 20
	            def readinto(self, b):
	                n = min(len(b), self.left); b[:n] = bytes(n); self.left -= n; return n
	        t.addfile(member("iolab-handin/zeros", 300 << 20), Zeros())
	    elif kind == "sparse":
	        m = member("iolab-handin/sparse", 0, type=tarfile.GNUTYPE_SPARSE)
	        t.addfile(m)
	PY
}

@test "hostile tarballs: ../, absolute, links, devices, sparse, 20,000 files and a gzip bomb are refused" {
	for kind in dotdot absolute symlink hardlink device sparse many bomb; do
		tarball $kind
		SECONDS=0
		run "$ROOT/grade.sh" --json $kind.json $kind.tar.gz
		echo "$kind: $output (${SECONDS}s)"
		[ "$status" -eq 1 ]
		[[ $output == *"grade.sh: $kind.tar.gz: "* ]]
		[ "$SECONDS" -lt 30 ]
		python3 -c "import json; r = json.load(open('$kind.json')); assert r['score'] == 0 and r['tests'] == []"
	done
	[ ! -e ../escaped ] && [ ! -e ../../escaped ] && [ ! -e /tmp/iolab-escaped-abs ]
}

@test "hostile tarballs: a 150 MiB long name, pax records of 150 MiB or by the thousand, a 2^88-byte size, endless sparse blocks: refused in one line, the grader under 200 MB" {
	# each took the grader's memory to 212-750 MiB before it was refused, or accepted
	local kind
	for kind in longname longlink paxpath paxlinkpath paxsize paxrecords hugesize sparse; do
		python3 "$ROOT/grading/tests/fixtures/hostile/tarheaders.py" $kind
		grader_peak $kind.mib --json $kind.json $kind.tar.gz >$kind.txt 2>&1 || true
		echo "$kind ($(stat -c %s $kind.tar.gz) bytes): $(grep "^grade.sh: $kind" $kind.txt), the grader's peak $(cat $kind.mib) MiB"
		[ "$(cat $kind.mib)" -lt 200 ]
		[ "$(grep -c "^grade.sh: $kind.tar.gz: " $kind.txt)" -eq 1 ]
		! grep -q Traceback $kind.txt
		python3 -c "import json; r = json.load(open('$kind.json')); assert r['score'] == 0 and r['tests'] == []"
	done
	# each refusal one line, the instructor's detail (the file graded) after it
	refused() { grep -qxF "grade.sh: $1.tar.gz: $2 ($1.tar.gz)" "$1.txt"; }
	refused longname "a GNU long name of 157286400 bytes (at most 4096)"
	refused longlink "a GNU long name of 157286400 bytes (at most 4096)"
	for kind in paxpath paxlinkpath paxsize; do
		refused $kind "a pax header of 157286400 bytes (at most 8192)"
	done
	refused paxrecords "'iolab-handin/f0' has 600 pax records (at most 32)"
	grep -q "^grade.sh: hugesize.tar.gz: unpacks to more than 200 MiB; its largest files: 'iolab-handin/x' (295147905179352825855 MiB)" hugesize.txt
	refused sparse "not a plain file or directory: 'iolab-handin/s'"
}

@test "hostile tarballs: an owner name with spaces is graded as usual" {
	mkdir t && tar -xzf "$BATS_FILE_TMPDIR/kit/iolab-handin.tar.gz" -C t
	tar -czf spaces.tar.gz -C t --owner='a b:0' --group='c d:0' iolab-handin
	run "$ROOT/grade.sh" --labs 1 --only "answers" spaces.tar.gz
	[ "$status" -eq 0 ]
	[[ $output == *"answers to Q1.x present (for the hand grader): PASS 0/0"* ]]
}
