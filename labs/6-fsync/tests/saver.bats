#!/usr/bin/env bats
# bin/saver: every strategy writes generation G's bytes, leaves no temporary
# file, --verify tells whole documents from broken ones, --ms times saves,
# errors as the kit's conventions say.

load ../../../tests/helpers

setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	needs saver
}

# doc N G: the document of generation G, N records, as saver.c describes it.
doc() {
	python3 -c '
import sys
n, g = int(sys.argv[1]), int(sys.argv[2])
for i in range(n):
    head = "key%05d=gen%06d:" % (i, g)
    print(head + "".join(chr(97 + (i + g + k) % 26) for k in range(len(head), 63)))' "$1" "$2"
}

@test "saver: each replacing strategy writes generation G over G-1, and nothing else is left" {
	doc 5 7 >want
	for s in inplace fflush rename fsync-rename safe; do
		mkdir "$s" && doc 5 6 >"$s/doc.kv"
		"$BIN/saver" -s "$s" -n 5 -g 7 "$s/doc.kv"
		cmp want "$s/doc.kv"
		[ "$(ls "$s")" = doc.kv ]
	done
	[ "$(wc -c <want)" -eq 320 ]	# 5 records of 64 bytes
}

@test "saver: log appends generation G's records after those there" {
	doc 3 1 >log.kv
	"$BIN/saver" -s log -n 3 -g 2 log.kv
	cmp log.kv <(doc 3 1; doc 3 2)
}

@test "saver --verify: old or new whole during a save, the new one after, anything else broken" {
	doc 4 2 >d
	"$BIN/saver" --verify -n 4 -g 3 d during
	run "$BIN/saver" --verify -n 4 -g 3 d after
	[ "$status" -eq 1 ]
	[ "$output" = "d: 256 bytes, not generation 3 (the save had returned) whole" ]
	head -c 200 d >short
	run "$BIN/saver" --verify -n 4 -g 3 short during
	[ "$status" -eq 1 ]
	[ "$output" = "short: 200 bytes, not generation 3 nor the one before whole" ]
	run "$BIN/saver" --verify -n 4 -g 3 missing during
	[ "$status" -eq 1 ]
	[ "$output" = "missing: No such file or directory" ]
}

@test "saver --verify -s log: the old records whole, then a prefix of the new ones" {
	{ doc 2 1; doc 2 2; } >whole
	"$BIN/saver" --verify -s log -n 2 -g 2 whole after
	head -c 150 whole >prefix	# generation 1 and 22 bytes of 2
	"$BIN/saver" --verify -s log -n 2 -g 2 prefix during
	run "$BIN/saver" --verify -s log -n 2 -g 2 prefix after
	[ "$status" -eq 1 ]
	head -c 100 whole >old-cut	# generation 1 itself cut short
	run "$BIN/saver" --verify -s log -n 2 -g 2 old-cut during
	[ "$status" -eq 1 ]
	{ doc 2 1; head -c 64 /dev/zero; doc 2 2 | tail -c 64; } >hole
	run "$BIN/saver" --verify -s log -n 2 -g 2 hole during
	[ "$status" -eq 1 ]
	[[ $output == "hole: 256 bytes, not generations 1 to 2 of 2 records with a prefix of the last" ]]
}

@test "saver --ms --csv: a row of at least 3 saves that took at least MS" {
	run "$BIN/saver" -s rename -n 10 --ms 20 --csv f
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "strategy,records,doc_bytes,saves,wall_s,us_per_save" ]
	IFS=, read -r s n bytes saves wall us <<<"${lines[1]}"
	[ "$s,$n,$bytes" = "rename,10,640" ]
	[ "$saves" -ge 3 ]
	python3 -c "import sys; w, s, u = map(float, sys.argv[1:]); assert w >= 0.02 and abs(w * 1e6 / s - u) < 0.01 * u + 0.01" \
		"$wall" "$saves" "$us"
	[ "$(ls)" = f ]
}

@test "saver: usage errors exit 2, a directory that is not there exits 1 naming the path" {
	run "$BIN/saver" -s fsync-all f
	usage_fails
	[[ ${lines[0]} == "saver: --strategy: 'fsync-all' is not inplace, fflush, rename, fsync-rename, safe or log" ]]
	run "$BIN/saver" -n 0 f
	usage_fails
	run "$BIN/saver" a b
	usage_fails
	run "$BIN/saver" --verify -g 2 f sometime
	usage_fails
	run "$BIN/saver" -s safe no/such/dir/doc.kv
	[ "$status" -eq 1 ]
	[[ $output == "saver: no/such/dir"*": No such file or directory" ]]
	run "$BIN/saver" --help
	[ "$status" -eq 0 ]
	[[ $output == usage:* ]]
}
