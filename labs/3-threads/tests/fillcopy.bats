#!/usr/bin/env bats
# bin/fillcopy: fill, copy and dump with N threads. Exact chunks and files,
# --verify, no files left behind, bad arguments. Uses only $BIN/fillcopy:
# make check also runs this file under ThreadSanitizer.

load ../../../tests/helpers

# kept_sizes N: the sizes of the kept dump files 0 to N-1, in that order.
kept_sizes() {
	local k
	for ((k = 0; k < $1; k++)); do
		printf '%s ' "$(stat -c %s fillcopy-*-"$k".dmp)"
	done
}

# zeros FILE, distinct FILE: how many bytes are 0; how many byte values occur.
zeros() {
	tr -cd '\000' <"$1" | wc -c
}
distinct() {
	od -An -v -tu1 "$1" | tr -s ' ' '\n' | grep . | sort -u | wc -l
}

@test "fillcopy: -h prints the usage, exit 0" {
	run "$BIN/fillcopy" -h
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "usage: fillcopy "* ]]
}

@test "fillcopy: a table of the three phases; --verify checks the copy and the files; nothing left" {
	run "$BIN/fillcopy" -s 1M -t 2 --verify
	[ "$status" -eq 0 ]
	[[ ${lines[0]} == "2 threads, 1048576 bytes (1.0 MiB), 10 files in ., rng xoshiro, copy memcpy, 4k pages, "* ]]
	[[ ${lines[1]} == "phase "*"ms"*"MiB/s"*"cpu ms"*"faults" ]]
	[[ ${lines[2]} == "fill "* ]]
	[[ ${lines[3]} == "copy "* ]]
	[[ ${lines[4]} == "dump "* ]]
	[ "${lines[5]}" = "verified: the copy and the 10 files match the buffer" ]
	[ -z "$(ls -A)" ]
}

@test "fillcopy: --csv: a header, then one row per phase carrying the run's settings" {
	run "$BIN/fillcopy" -s 100K -t 3 -f 4 --rng rand_r --copy bytes --prefault --fsync --csv
	[ "$status" -eq 0 ]
	[ "${#lines[@]}" -eq 4 ]
	[ "${lines[0]}" = "threads,bytes,files,rng,copy,prefault,fsync,phase,wall_s,cpu_s,mib_s,faults,pages,passes" ]
	[[ ${lines[1]} == "3,102400,4,rand_r,bytes,1,1,fill,"*",4k,1" ]]
	[[ ${lines[2]} == "3,102400,4,rand_r,bytes,1,1,copy,"*",4k,1" ]]
	[[ ${lines[3]} == "3,102400,4,rand_r,bytes,1,1,dump,"*",4k,1" ]]
	# times and MiB/s positive, CPU time and faults not negative, 14 fields
	[ -z "$(printf '%s\n' "${lines[@]:1}" |
		awk -F, 'NF != 14 || !($9 > 0 && $10 >= 0 && $11 > 0 && $12 >= 0)')" ]
	run "$BIN/fillcopy" -s 100K --pages huge --passes 3 --csv
	[ "$status" -eq 0 ]
	# (after the line saying why, where huge pages are not to be had: stderr)
	[[ $(grep ',fill,' <<<"$output") == "1,102400,10,xoshiro,memcpy,0,0,fill,"*",huge,3" ]]
}

# faults PHASE: the faults column of PHASE in the CSV in $output.
faults() {
	awk -F, -v phase="$1" '$8 == phase { print $12 }' <<<"$output"
}

@test "fillcopy: every thread's page faults count in the phase that takes them" {
	# 4k pages (the default) even where transparent_hugepage is "always"
	local pages=$((8 * 1048576 / $(getconf PAGESIZE)))
	# 3 threads: one thread's faults alone would be a third of the pages.
	run "$BIN/fillcopy" -s 8M -t 3 --csv
	[ "$status" -eq 0 ]
	[ "$(faults fill)" -ge "$pages" ]
	[ "$(faults copy)" -ge "$pages" ]
}

@test "fillcopy: --pages huge maps 2 MiB per page fault, where the kernel allows huge pages" {
	if ! grep -qs '\[\(always\|madvise\)\]' /sys/kernel/mm/transparent_hugepage/enabled; then
		skip "transparent huge pages are not available here (the next test checks the message)"
	fi
	# a process can be refused them whatever the system's setting says
	# (prctl PR_SET_THP_DISABLE, which a container's runtime may set)
	if grep -qs '^THP_enabled:[[:space:]]*0' /proc/self/status; then
		skip "huge pages are refused to this process: THP_enabled: 0 in /proc/self/status"
	fi
	if [[ $BIN == *san* ]]; then
		skip "the sanitizers map their shadow memory (an eighth of the buffers) on first use, inside the phases"
	fi
	# 16 MiB: 8 huge pages or 4096 small ones per buffer. A few more for
	# the thread's stack, and for a 2 MiB the kernel found no room for.
	run "$BIN/fillcopy" -s 16M --pages huge --csv
	[ "$status" -eq 0 ]
	[ -z "$(tail -n +2 <<<"$output" | grep -v ',huge,1$')" ]
	[ "$(faults fill)" -le 64 ]
	[ "$(faults copy)" -le 64 ]
	run "$BIN/fillcopy" -s 16M --pages 4k --csv
	[ "$(faults fill)" -ge 4096 ]
	[ "$(faults copy)" -ge 4096 ]
}

@test "fillcopy: --pages huge says plainly when transparent huge pages are off, and runs anyway" {
	why=$(bwrap_starts) || skip "$why (it shows fillcopy a setting of never)"
	local setting=/sys/kernel/mm/transparent_hugepage/enabled
	[ -e "$setting" ] || skip "there is no $setting here (no /sys, as in a chroot, or a kernel without huge pages)"
	echo "always madvise [never]" >never
	run bwrap --dev-bind / / --ro-bind never "$setting" "$BIN/fillcopy" -s 1M --pages huge --verify
	[ "$status" -eq 0 ]
	[ "${lines[0]}" = "fillcopy: --pages huge: transparent huge pages are off on this system ($setting: always madvise [never]): the buffers get 4 KiB pages, as the faults column shows" ]
	[ "${lines[-1]}" = "verified: the copy and the 10 files match the buffer" ]
	# nothing said for 4k pages, or where huge pages are allowed
	echo "always [madvise] never" >madvise
	run bwrap --dev-bind / / --ro-bind never "$setting" "$BIN/fillcopy" -s 1M --pages 4k
	[[ $output != *"huge pages are off"* ]]
	run bwrap --dev-bind / / --ro-bind madvise "$setting" "$BIN/fillcopy" -s 1M --pages huge
	[[ $output != *"huge pages are off"* ]]
}

@test "fillcopy: --pages huge leaves the same bytes in the files as 4k pages, with every generator" {
	mkdir small huge
	for rng in xoshiro rand_r; do
		"$BIN/fillcopy" -s 5000001 -t 3 -f 1 -d small --rng "$rng" --pages 4k --keep --verify
		"$BIN/fillcopy" -s 5000001 -t 3 -f 1 -d huge --rng "$rng" --pages huge --prefault --keep --verify
		cmp small/fillcopy-*.dmp huge/fillcopy-*.dmp
		[ "$(stat -c %s huge/fillcopy-*.dmp)" -eq 5000001 ]
		rm small/* huge/*
	done
}

@test "fillcopy: --passes N: the fill, the copy and the dump go N times over the buffer in their timing" {
	run "$BIN/fillcopy" -s 2M -t 2 --prefault --passes 20 --rng rand_r --verify --csv
	[ "$status" -eq 0 ]
	# MiB/s x wall_s: 20 x 2 MiB in each phase, to the digits printed
	# (0.05 MiB/s, 0.5 us) and 1%
	[ "$(tail -n +2 <<<"$output" | awk -F, '{ want = 40; got = $11 * $9
		print $8, (got - want < 0.01 * want + 0.05 * $9 && want - got < 0.01 * want + 0.05 * $9) }' | tr '\n' ' ')" = \
		"fill 1 copy 1 dump 1 " ]
	# the files hold the last pass's bytes: a second pass of rand_r differs from the first
	mkdir one twenty
	"$BIN/fillcopy" -s 100K -f 1 --rng rand_r -d one --keep --verify
	"$BIN/fillcopy" -s 100K -f 1 --rng rand_r -d twenty --passes 20 --keep --verify
	! cmp -s one/*.dmp twenty/*.dmp
}

@test "fillcopy: --prefault leaves the fill and the copy only a few page faults" {
	if [[ $BIN == *tsan* ]]; then
		skip "ThreadSanitizer maps its shadow memory on first use, inside the phases"
	fi
	run "$BIN/fillcopy" -s 8M -t 3 --prefault --csv
	[ "$status" -eq 0 ]
	[ "$(faults fill)" -le 16 ]
	[ "$(faults copy)" -le 16 ]
}

@test "fillcopy: a phase's CPU time is at most threads x its elapsed time" {
	run "$BIN/fillcopy" -s 16M -t 2 --prefault --csv
	[ "$status" -eq 0 ]
	[ -z "$(tail -n +2 <<<"$output" | awk -F, '$10 > 1.01 * 2 * $9 + 0.001')" ]
}

@test "fillcopy: file K holds SIZE/FILES bytes, the last one also the remainder" {
	"$BIN/fillcopy" -s 1000003 -t 7 -f 9 --keep --verify
	[ "$(ls | wc -l)" -eq 9 ]
	[ "$(kept_sizes 9)" = "111111 111111 111111 111111 111111 111111 111111 111111 111115 " ]
}

@test "fillcopy: 1 byte, 1 thread, 1 file" {
	"$BIN/fillcopy" -s 1 -t 1 -f 1 --keep --verify
	[ "$(kept_sizes 1)" = "1 " ]
}

@test "fillcopy: more threads than bytes" {
	"$BIN/fillcopy" -s 5 -t 8 -f 2 --keep --verify
	[ "$(kept_sizes 2)" = "2 3 " ]
}

@test "fillcopy: more files than bytes: empty files, and the bytes in the last one" {
	"$BIN/fillcopy" -s 3 -t 2 -f 10 --keep --verify
	[ "$(kept_sizes 10)" = "0 0 0 0 0 0 0 0 0 3 " ]
}

@test "fillcopy: every generator fills every byte, and no two threads repeat one another" {
	# 100 threads: 99 chunks of 13 bytes (8 + 5 for xoshiro) and one of 50.
	# The buffer starts zeroed: a skipped byte would stay 0. In 1337 random
	# bytes about 5 are 0 and about 254 of the 256 values occur; threads that
	# all started from one seed would give at most 63 values.
	for rng in xoshiro rand_r rand; do
		"$BIN/fillcopy" -s 1337 -t 100 -f 1 --rng "$rng" --keep --verify
		[ "$(zeros fillcopy-*.dmp)" -lt 20 ]
		[ "$(distinct fillcopy-*.dmp)" -gt 200 ]
		rm fillcopy-*.dmp
	done
}

@test "fillcopy: --verify passes with every generator and copy, --prefault and --fsync" {
	for rng in xoshiro rand_r rand; do
		for copy in memcpy bytes; do
			run "$BIN/fillcopy" -s 300001 -t 3 -f 7 --rng "$rng" --copy "$copy" --verify
			[ "$status" -eq 0 ]
			[ "${lines[-1]}" = "verified: the copy and the 7 files match the buffer" ]
		done
	done
	run "$BIN/fillcopy" -s 300001 -t 4 -f 3 --prefault --fsync --verify
	[ "$status" -eq 0 ]
	[ "${lines[-1]}" = "verified: the copy and the 3 files match the buffer" ]
	[ -z "$(ls -A)" ]
}

@test "fillcopy: --verify catches a damaged file: exit 1 naming it, nothing left behind" {
	run "$BIN/fillcopy" -s 10000 -t 2 -f 4 --verify --corrupt 2
	[ "$status" -eq 1 ]
	[[ $output == "fillcopy: ./fillcopy-"*"-2.dmp: byte 1250 differs from the buffer (--verify)" ]]
	[ -z "$(ls -A)" ]
	# a byte added to an empty file
	run "$BIN/fillcopy" -s 3 -f 5 --verify --corrupt 0
	[ "$status" -eq 1 ]
	[[ $output == "fillcopy: ./fillcopy-"*"-0.dmp: longer than its 0 bytes (--verify)" ]]
	[ -z "$(ls -A)" ]
}

@test "fillcopy: --keep leaves FILES files named fillcopy-PID-K.dmp; without it none stay" {
	"$BIN/fillcopy" -s 64K -f 5 --keep
	[ "$(ls | grep -c -E '^fillcopy-[0-9]+-[0-4]\.dmp$')" -eq 5 ]
	[ "$(ls | wc -l)" -eq 5 ]
	rm fillcopy-*.dmp
	"$BIN/fillcopy" -s 64K -f 5 -t 2
	[ -z "$(ls -A)" ]
}

@test "fillcopy: -d puts the files in DIR; a missing DIR is an error, exit 1" {
	mkdir out
	"$BIN/fillcopy" -s 64K -f 3 -d out --keep
	[ "$(ls out | wc -l)" -eq 3 ]
	[ "$(ls)" = out ]
	run "$BIN/fillcopy" -s 64K -d nowhere
	[ "$status" -eq 1 ]
	[ "$output" = "fillcopy: nowhere: No such file or directory" ]
}

@test "fillcopy: a failed write ends the run, exit 1 naming the file, no file left behind" {
	# A file size limit of 1 block: the writes fail with EFBIG.
	run bash -c 'trap "" XFSZ; ulimit -f 1; exec "$0" -s 1M -f 2 -t 2' "$BIN/fillcopy"
	[ "$status" -eq 1 ]
	[[ $output == "fillcopy: ./fillcopy-"*".dmp: File too large" ]]
	[ -z "$(ls -A)" ]
}

@test "fillcopy: Ctrl-C (SIGINT) in the middle of the dump leaves no file behind" {
	mkdir d
	# 10000 files: the dump and the --verify after it take a while.
	"$BIN/fillcopy" -s 10M -f 10000 -d d --verify >out 2>&1 &
	local pid=$! i status=0
	for ((i = 0; i < 1000; i++)); do
		files=(d/fillcopy-*.dmp)
		# a file, or the program has ended (one still to write exits at once)
		[ ! -e "${files[0]}" ] && kill -0 "$pid" 2>/dev/null || break
		sleep 0.01
	done
	kill -INT "$pid" 2>/dev/null || {
		echo "fillcopy ended before the Ctrl-C; it printed (its end):"
		tail -n 5 out
		return 1
	}
	wait "$pid" || status=$?
	[ "$status" -eq 130 ]
	[ -z "$(ls -A d)" ]
}

@test "fillcopy: a size that does not fit in memory is refused, exit 2" {
	run "$BIN/fillcopy" -s 1024G
	usage_fails
	[[ ${lines[0]} == "fillcopy: -s: two buffers of 1048576.0 MiB do not fit in the "*" MiB of memory available" ]]
	[ -z "$(ls -A)" ]
}

@test "fillcopy: bad arguments exit 2 with a message naming them" {
	for bad in "-t 0" "-t 257" "-t x" "-s 0" "-s 1X" "-f 0" "-f 10001" "--rng mt" \
		"--copy fast" "--pages 2m" "--pages" "--passes 0" "--corrupt 10" "--corrupt -1" "--bogus" "extra"; do
		run "$BIN/fillcopy" $bad
		usage_fails
	done
	run "$BIN/fillcopy" -t 0
	[[ ${lines[0]} == "fillcopy: -t: 0 is out of range (1 to 256)" ]]
	run "$BIN/fillcopy" --rng mt
	[ "${lines[0]}" = "fillcopy: --rng: 'mt' is not xoshiro, rand_r or rand" ]
	run "$BIN/fillcopy" --copy fast
	[ "${lines[0]}" = "fillcopy: --copy: 'fast' is not memcpy or bytes" ]
	run "$BIN/fillcopy" --pages 2m
	[ "$status" -eq 2 ]
	[ "${lines[0]}" = "fillcopy: --pages: '2m' is not 4k or huge" ]
	run "$BIN/fillcopy" -f 3 --corrupt 3
	[ "${lines[0]}" = "fillcopy: --corrupt: there is no file 3 (they are 0 to 2)" ]
	run "$BIN/fillcopy" extra
	[ "${lines[0]}" = "fillcopy: unexpected argument 'extra'" ]
	[ -z "$(ls -A)" ]
}
