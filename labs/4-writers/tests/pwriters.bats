#!/usr/bin/env bats
# pwriters: every strategy writes the same files, byte for byte; nothing is
# left behind; bad arguments exit 2. Uses only "$BIN/pwriters", so that
# make check can run this file under ThreadSanitizer.

load ../../../tests/helpers

# expected NUM SIZE: the bytes pwriters writes into file NUM: the alphabet
# over and over, starting at letter NUM % 26.
expected() {
	local a=abcdefghijklmnopqrstuvwxyz r=$(($1 % 26))
	yes "${a:r}${a:0:r}" | tr -d '\n' | head -c "$2"
}

# check_files DIR FILES SIZE: DIR holds exactly the files 0000..FILES-1 of
# one run, each SIZE bytes of the expected pattern.
check_files() {
	local names=("$1"/pwriters.*) i num want
	[ "${#names[@]}" -eq "$2" ] || { echo "$1: ${#names[@]} files, expected $2"; return 1; }
	mkdir -p "$BATS_TEST_TMPDIR/expected"
	for ((i = 0; i < $2; i++)); do
		printf -v num %04d "$i"
		[[ ${names[i]} =~ /pwriters\.[0-9]+\.$num$ ]] || { echo "not file $i: ${names[i]}"; return 1; }
		want="$BATS_TEST_TMPDIR/expected/$i-$3"	# the same for every strategy
		[ -e "$want" ] || expected "$i" "$3" >"$want"
		cmp "$want" "${names[i]}" || return 1
	done
}

@test "every strategy writes the same files, byte for byte; 40000 bytes is not a multiple of the batch" {
	for s in seq per-file io-thread pool pool:3 pool:8; do
		mkdir "d-$s"
		run "$BIN/pwriters" -F 5 -S 40000 -B 16K --strategy "$s" -d "d-$s" --keep
		[ "$status" -eq 0 ] || { echo "$s: $output"; false; }
		check_files "d-$s" 5 40000
	done
	# pool:8 had more threads than files; its table says so.
	[[ ${lines[1]} == "pool "*" 8 "*" 5 "* ]]
}

@test "a file smaller than one batch, an exact multiple of it, and empty files" {
	mkdir small exact empty
	"$BIN/pwriters" -F 3 -S 100 -B 16K --strategy per-file -d small --keep >/dev/null
	check_files small 3 100
	"$BIN/pwriters" -F 4 -S 32K -B 4K --strategy pool:2 -d exact --keep >/dev/null
	check_files exact 4 32768
	"$BIN/pwriters" -F 2 -S 0 --strategy io-thread -d empty --keep >/dev/null
	check_files empty 2 0
}

@test "--no-fsync and --append write the same bytes" {
	mkdir a b
	"$BIN/pwriters" -F 3 -S 10000 -B 3000 --no-fsync -d a --keep >/dev/null
	check_files a 3 10000
	"$BIN/pwriters" -F 3 -S 10000 -B 3000 --append --strategy pool -d b --keep >/dev/null
	check_files b 3 10000
}

@test "one run's 30 files get 30 different names (the source's names collide past 10)" {
	"$BIN/pwriters" -F 30 -S 1K --no-fsync --strategy per-file --keep >/dev/null
	[ "$(ls | sort -u | wc -l)" -eq 30 ]
	[ -f "$(echo pwriters.*.0029)" ]
}

@test "the files are removed at the end unless --keep" {
	for s in seq per-file io-thread pool; do
		run "$BIN/pwriters" -F 20 -S 8K --strategy "$s"
		[ "$status" -eq 0 ]
		[ -z "$(ls -A)" ] || { echo "$s left: $(ls -A)"; false; }
	done
}

@test "SIGTERM in the middle of a run removes the files written so far" {
	mkdir d
	"$BIN/pwriters" -F 4000 -S 256K --strategy pool:2 -d d >/dev/null 2>err &
	pid=$!
	# Wait until the first file exists (or the program has ended: one still
	# to write exits at once), then stop the program.
	for ((i = 0; i < 500; i++)); do
		[ -z "$(ls -A d)" ] && kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	kill -TERM "$pid" 2>/dev/null || {
		echo "pwriters ended before the SIGTERM; it printed (its end):"
		tail -n 5 err
		return 1
	}
	status=0
	wait "$pid" || status=$?
	[ "$status" -eq 143 ]
	[ -z "$(ls -A d)" ]
}

@test "--csv: a header and one row with the job and both MiB/s figures" {
	run "$BIN/pwriters" -F 4 -S 64K -B 16K --strategy io-thread --csv
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 2 ]
	[ "${lines[0]}" = "strategy,threads,files,bytes_per_file,batch_bytes,fsync,append,wall_s,cpu_s,mib_s,cpu_mib_s" ]
	[[ ${lines[1]} == "io-thread,1,4,65536,16384,1,0,"* ]]
	IFS=, read -r -a f <<<"${lines[1]}"
	[ "${#f[@]}" -eq 11 ]
	# MiB/s is 0.25 MiB over wall_s, to the printed precision.
	awk -v w="${f[7]}" -v m="${f[9]}" 'BEGIN { exit !(w > 0 && m > 0 && (m * w - 0.25) ^ 2 < 1e-4) }'
	# pool without K: one writer per core.
	run "$BIN/pwriters" -F 2 -S 1K --strategy pool --no-fsync --csv
	[[ ${lines[1]} == "pool,$(getconf _NPROCESSORS_ONLN),2,1024,16384,0,0,"* ]]
}

@test "a file that cannot be created: its path, exit 1, for every strategy" {
	for s in seq per-file io-thread pool:4; do
		run "$BIN/pwriters" -F 6 -S 1K --strategy "$s" -d missing
		[ "$status" -eq 1 ]
		[[ $output =~ ^pwriters:\ missing/pwriters\.[0-9]+\.000[0-5]:\ No\ such\ file\ or\ directory$ ]]
	done
}

@test "bad arguments: exit 2 with the usage" {
	for args in "-F 0" "-F 10001" "-F x" "-S 1T" "-S -1" "-B 0" "--strategy" \
		"--strategy all" "--strategy pool:" "--strategy pool:0" "--strategy pool:1025" \
		"--strategy pool:2x" "--bogus" "extra"; do
		run "$BIN/pwriters" $args
		usage_fails || { echo "args: $args"; false; }
	done
	run "$BIN/pwriters" --strategy all
	[ "${lines[0]}" = "pwriters: --strategy: 'all' is not seq, per-file, io-thread or pool[:K]" ]
	[ -z "$(ls -A)" ]
}

@test "-h prints the usage and exits 0" {
	run "$BIN/pwriters" -h
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "usage: pwriters "* ]]
}
