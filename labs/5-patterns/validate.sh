#!/usr/bin/env bash
# validate.sh - checks bin/iopattern against fio, the reference I/O benchmark
# (`make validate`). Each job runs in both tools the same way: fio's psync
# engine (one pread/pwrite at a time, like iopattern), the same block size,
# direction, O_DIRECT and file size, random offsets drawn with replacement
# (norandommap), a cold cache (fio invalidates the file's pages by default),
# and a file written just before the run, on one path: iopattern creates,
# fills and removes its own file, and fio lays out a new one each run.
# Writes overwrite data in both (fio's overwrite=1 and fallocate=none: left
# to itself, fio would only fallocate() the file, and each first write of a
# block would also turn an unwritten extent into a written one). The two
# alternate, RUNS times each; the medians, their ratio and each tool's
# range are printed. Goal: iopattern within 10% of fio for the three jobs
# marked "goal"; the others are shown for comparison.
source "$(dirname "$0")/../../common/lab.sh"
bash common/deps.sh fio
[ -x "$BIN/iopattern" ] || { echo "$BIN/iopattern is missing: run make first" >&2; exit 1; }

RUNS=${RUNS:-5}
FILE=$(by_scale 16M 256M 1G)
SEQ_TOTAL=$(by_scale 64M 1G 4G)	# 4 passes over the file: runs of a second, not 0.1 s
RANDOM_TOTAL=$(by_scale 4M 32M 128M)	# bytes of random 4 KiB I/O per run
STRIDE_TOTAL=$(by_scale 1M 16M 64M)	# one pass of 4 KiB every 64 KiB: FILE / 16
# One path for both tools; every run writes a new file there.
file=$(scratch_file validate.dat)
rm -f "$file"	# iopattern refuses an existing file

# range NUMBER...: "LOWEST-HIGHEST", rounded.
range() {
	printf '%s\n' "$@" | sort -g | awk 'NR == 1 { lo = $1 } { hi = $1 } END { printf "%.0f-%.0f", lo, hi }'
}

# run_fio OPTIONS...: one fio run on a new file, removed after; its MiB/s
# added to the list theirs_mib_s. Terse format 3: field 7 is the read
# bandwidth, 48 the write one, in KiB/s.
run_fio() {
	theirs_mib_s+=("$(fio --name=validate --filename="$file" --ioengine=psync \
		--size="$FILE" --overwrite=1 --fallocate=none --output-format=terse --terse-version=3 "$@" |
		awk -F';' '{ print ($7 > 0 ? $7 : $48) / 1024 }')")
	rm -f "$file"	# iopattern creates it anew
}

# job NAME GOAL "IOPATTERN OPTIONS" "FIO OPTIONS"
job() {
	local name=$1 goal=$2 a b i ratio verdict
	local -a iop fio ours_mib_s=() theirs_mib_s=()
	read -r -a iop <<<"$3"
	read -r -a fio <<<"$4"
	# Both write their file before the run, outside their timing.
	for ((i = 0; i < RUNS; i++)); do
		# Who goes first alternates, so neither always finds the disk busier.
		if ((i % 2)); then run_fio "${fio[@]}"; fi
		ours_mib_s+=("$("$BIN/iopattern" -r 1 --csv --file-size "$FILE" "${iop[@]}" "$file" |
			awk -F, 'NR == 2 { print $16 }')")
		if ((i % 2 == 0)); then run_fio "${fio[@]}"; fi
	done
	a=$(printf '%s\n' "${ours_mib_s[@]}" | median)
	b=$(printf '%s\n' "${theirs_mib_s[@]}" | median)
	ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')
	verdict=""
	if [ "$goal" = goal ]; then
		verdict=$(awk -v r="$ratio" 'BEGIN { print (r >= 0.9 && r <= 1.1 ? "within 10%: yes" : "within 10%: NO") }')
		[[ $verdict == *yes ]] && met=$((met + 1))
		goals=$((goals + 1))
	fi
	printf '%-34s %8.0f %8.0f %6s  %-16s %s\n' "$name" "$a" "$b" "$ratio" "$verdict" \
		"$(range "${ours_mib_s[@]}") / $(range "${theirs_mib_s[@]}")"
}


met=0 goals=0
echo "== iopattern against $(fio --version), file $FILE in $SCRATCH, medians of $RUNS alternating runs (MiB/s)"
printf '%-34s %8s %8s %6s  %-16s %s\n' job iopattern fio ratio "" "ranges: iopattern / fio"
job "seq read 1M, O_DIRECT" goal \
	"--op read --pattern seq -b 1M --total $SEQ_TOTAL --direct --cold" \
	"--rw=read --bs=1M --direct=1 --io_size=$SEQ_TOTAL"
job "seq write 1M, O_DIRECT" goal \
	"--op write --pattern seq -b 1M --total $SEQ_TOTAL --direct --cold" \
	"--rw=write --bs=1M --direct=1 --io_size=$SEQ_TOTAL"
job "random read 4K, O_DIRECT, cold" goal \
	"--op read --pattern random -b 4K --total $RANDOM_TOTAL --direct --cold" \
	"--rw=randread --bs=4k --direct=1 --norandommap --io_size=$RANDOM_TOTAL"
job "stride read 4K every 64K, O_DIRECT" - \
	"--op read --pattern stride -b 4K --stride 64K --direct --cold" \
	"--rw=read:60k --bs=4k --direct=1 --io_size=$STRIDE_TOTAL"
job "random write 4K, O_DIRECT" - \
	"--op write --pattern random -b 4K --total $RANDOM_TOTAL --direct --cold" \
	"--rw=randwrite --bs=4k --direct=1 --norandommap --io_size=$RANDOM_TOTAL"
job "seq read 1M, buffered, cold" - \
	"--op read --pattern seq -b 1M --cold" "--rw=read --bs=1M"
echo "goals met: $met of $goals (the machine's other work moves these numbers: run it again when in doubt)"
