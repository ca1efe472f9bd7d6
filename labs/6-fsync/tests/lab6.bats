#!/usr/bin/env bats
# Lab 6 at SCALE=tiny: both CSVs complete, the crash states as the models
# predict for each strategy, a log per strategy, nothing left in the
# scratch directory.

load ../../../tests/helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	needs saver	# the lab runs it
	command -v strace >/dev/null || skip "strace is not installed: the recorder runs the saver under it"
}

@test "lab6 (tiny): crash states per strategy and model, cost trials, logs, scratch left empty" {
	# the kit seen from a folder whose name has a space, as a student's may
	# be: LD_PRELOAD is a list split on spaces, and crashstates splits its
	# checker's command line
	ln -s "$ROOT" "my kit"
	run env BIN="$PWD/my kit/${BIN#"$ROOT"/}" DATA="$BATS_TEST_TMPDIR/data" \
		SCRATCH="$BATS_TEST_TMPDIR/s" SCALE=tiny bash "my kit/labs/6-fsync/lab6.sh"
	[ "$status" -eq 0 ] || { echo "$output"; false; }
	[[ $output == *"wrote $BATS_TEST_TMPDIR/data/lab6-states.csv (18 rows)"* ]]
	s=data/lab6-states.csv c=data/lab6-cost.csv
	[ "$(head -1 $s)" = "strategy,records,model,calls,crash_points,states,broken,sampled_points,first_broken_after_call" ]
	# strategy,model,broken: tiny's document is one block, so the counts are
	# the fewest; in place and fflush always break, safe never
	[ "$(tail -n +2 $s | cut -d, -f1,3,7 | tr '\n' ' ')" = "inplace,posix,3 inplace,ext4-noauto_da_alloc,3 \
inplace,ext4-ordered,3 fflush,posix,3 fflush,ext4-noauto_da_alloc,3 fflush,ext4-ordered,3 \
rename,posix,4 rename,ext4-noauto_da_alloc,4 rename,ext4-ordered,3 fsync-rename,posix,2 \
fsync-rename,ext4-noauto_da_alloc,1 fsync-rename,ext4-ordered,1 safe,posix,0 safe,ext4-noauto_da_alloc,0 \
safe,ext4-ordered,0 log,posix,0 log,ext4-noauto_da_alloc,0 log,ext4-ordered,0 " ]
	[ "$(ls data/lab6-logs | tr '\n' ' ')" = "fflush.log fsync-rename.log inplace.log log.log rename.log safe.log " ]
	[ "$(head -1 $c)" = "strategy,trial,records,doc_bytes,saves,wall_s,us_per_save" ]
	# 3 trials of each strategy, 20 records of 64 bytes, 3 saves or more, 50 ms or more
	[ "$(tail -n +2 $c | cut -d, -f1,2 | sort -u | wc -l)" -eq 18 ]
	awk -F, 'NR > 1 && (NF != 7 || $3 != 20 || $4 != 1280 || $5 < 3 || $6 < 0.05 || $7 <= 0) { exit 1 }' $c
	[ -z "$(ls -A s)" ]
	[ -z "$(ls data | grep tmp)" ]
}
