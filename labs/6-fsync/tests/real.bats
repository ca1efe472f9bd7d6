#!/usr/bin/env bats
# Lab 6, step 7 (labs/6-fsync/real.sh, make lab6-real): programs students
# have, recorded and their crash states checked by their own checkers.
# What ALICE found must be found: sqlite3's rollback journal loses the
# committed row (the journal's unlink never made durable), WAL does not;
# the naive Python save breaks, the atomic one does not; git's states are
# judged by git fsck. A program that is not installed is left out in one
# line. (CI installs sqlite3 and git.)

load ../../../tests/helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	[ -x "$BIN/fsrecord" ] && [ -x "$BIN/crashstates" ] || skip "bin/fsrecord and bin/crashstates are not built (make)"
	command -v strace >/dev/null || skip "strace is not installed: the recorder runs programs under it"
}

# real ONLY [MAX_STATES [MODELS]]: the step, those studies only, data and
# scratch here.
real() {
	run env ONLY="$1" MAX_STATES="${2:-300}" MODELS="${3:-posix,ext4-ordered}" DATA="$BATS_TEST_TMPDIR/data" \
		SCRATCH="$BATS_TEST_TMPDIR/s" \
		bash "$ROOT/labs/6-fsync/real.sh"
	[ "$status" -eq 0 ] || { echo "$output"; return 1; }
	[ -z "$(ls -A s)" ]
}

# row NAME MODEL: the line of that study and model; broken NAME MODEL: its
# broken states
row() { grep -E "^  $1 +$2 " <<<"$output"; }
broken() { row "$1" "$2" | sed -E 's/.* ([0-9]+) broken.*/\1/'; }

@test "real programs: sqlite3's rollback journal loses the committed row, WAL does not" {
	command -v sqlite3 >/dev/null || skip "sqlite3 is not installed (apt-get install sqlite3)"
	real "sqlite-rollback sqlite-wal"
	# under both models: after sqlite3 ended, the journal's unlink lost,
	# the hot journal rolls the committed row back
	[ "$(broken sqlite-rollback posix)" -ge 1 ] && [ "$(broken sqlite-rollback ext4-ordered)" -eq 1 ]
	[ "$(grep -c 'a crash after call \([0-9]*\) of \1 (after the program ended)' <<<"$output")" -eq 2 ]
	[ "$(grep -c '^ *[0-9]*\. unlink db-journal  -> db-journal removed: LOST$' <<<"$output")" -eq 2 ]
	[ "$(grep -c '^ *then: db: integrity_check and rows: ok 1$' <<<"$output")" -eq 2 ]
	[ "$(broken sqlite-wal posix)" -eq 0 ] && [ "$(broken sqlite-wal ext4-ordered)" -eq 0 ]
	[ "$(ls data/lab6-real | tr '\n' ' ')" = "sqlite-rollback.log sqlite-rollback.txt sqlite-wal.log sqlite-wal.txt " ]
	grep -q '^write db-wal ' data/lab6-real/sqlite-wal.log
}

@test "real programs: a naive Python save breaks under every model, the atomic one under none" {
	# (100 states a model: a checker is a Python start, some 40 ms of CPU;
	# ext4-ordered's states are all built, posix's sampled)
	real "python-naive python-atomic" 100
	[ "$(broken python-naive posix)" -ge 1 ] && [ "$(broken python-naive ext4-ordered)" -ge 1 ]
	# the first broken state: the truncation durable, nothing of the new
	# document yet
	[[ $output == *"then: doc.json: not JSON"* ]]
	[ "$(broken python-atomic posix)" -eq 0 ] && [ "$(broken python-atomic ext4-ordered)" -eq 0 ]
	[ "$(grep -c '^rename doc.json.tmp doc.json$' data/lab6-real/python-atomic.log)" -eq 1 ]
	[ "$(grep -c '^fsync \. ' data/lab6-real/python-atomic.log)" -eq 1 ]
}

@test "real programs: git add and commit, as shipped and with core.fsync, judged by git fsck" {
	command -v git >/dev/null || skip "git is not installed (apt-get install git)"
	real git 150	# (sampled: 15 of ext4-ordered's states, 8 broken in a trial run)
	row git posix && row git ext4-ordered
	# every broken state found is one git's own tools call broken
	grep '^ *then: ' <<<"$output" | grep -v '^ *then: \(git fsck: \|git log: \|the last commit is\)' && false
	# as shipped, nothing is synced: git's loose objects are linked into
	# place before their bytes are on the disk (ext4: an empty object file)
	[ "$(broken git ext4-ordered)" -ge 1 ]
	[[ $(sed -n '/^crashstates: .*, model ext4-ordered/,/^  then: /p' data/lab6-real/git.txt) == \
		*"then: git fsck: error: object file .git/objects/"*" is empty" ]]
	# with core.fsync, every object is synced before its name, and ext4's
	# journal commits the names with the next fsync: the repository is
	# whole, but the ref's rename is never synced: after git has ended,
	# the commit can be gone (a few of the last crash point's sets: ext4
	# alone, where --max-states 2000 builds every set of every point)
	real git-fsync 2000 ext4-ordered
	if row git-fsync ext4-ordered; then
		grep -q '^fsync \.git/objects/' data/lab6-real/git-fsync.log
		[ "$(broken git-fsync ext4-ordered)" -ge 1 ]
		[[ $(sed -n '/^crashstates: .*, model ext4-ordered/,/^  then: /p' data/lab6-real/git-fsync.txt) == \
			*"(after the program ended)"*"then: the last commit is 'one', not 'two': the commit was lost" ]]
	else
		[[ $output == *"git-fsync"*"left out: git is older than 2.36, which has no core.fsync"* ]]
	fi
}

@test "real programs: a program that is not installed is left out in one line; a study not asked for, in none" {
	# a PATH of every command here but sqlite3 and git
	# (one ln per directory: a name already linked keeps the first one's)
	mkdir path
	for dir in /usr/local/bin /usr/bin /bin; do
		ln -s "$dir"/* path/ 2>/dev/null || true
	done
	rm -f path/sqlite3 path/git
	PATH=$PWD/path real "sqlite-wal python-atomic" 20	# (its states' count is not the point)
	[ "$(grep -c . <<<"$output")" -eq 4 ]
	[[ ${lines[1]} =~ ^\ \ sqlite-wal\ +left\ out:\ sqlite3\ is\ not\ installed\ here$ ]]
	row python-atomic posix
	# git-fsync's version test says nothing of git missing (nor when not asked for, above)
	PATH=$PWD/path real git-fsync
	[ "$(grep -c . <<<"$output")" -eq 2 ]
	[[ ${lines[1]} =~ ^\ \ git-fsync\ +left\ out:\ git\ is\ not\ installed\ here$ ]]
}
