#!/usr/bin/env bash
# validate.sh - checks bin/iopattern against fio, the reference I/O benchmark
# (`make validate`). Each job runs in both tools the same way: fio's psync
# engine (one pread/pwrite at a time, like iopattern), the same block size,
# direction, O_DIRECT and file size, random offsets drawn with replacement
# (norandommap), a cold cache (fio invalidates the file's pages by default).
# The two alternate, RUNS times each, in the same directory; the medians and
# their ratio are printed. Goal: iopattern within 10% of fio for the three
# jobs marked "goal"; the others are shown for comparison.
source "$(dirname "$0")/../../common/lab.sh"
bash common/deps.sh fio
[ -x "$BIN/iopattern" ] || { echo "$BIN/iopattern is missing: run make first" >&2; exit 1; }

RUNS=3
FILE=$(by_scale 16M 256M 1G)
RANDOM_TOTAL=$(by_scale 4M 32M 128M)	# bytes of random 4 KiB I/O per run
STRIDE_TOTAL=$(by_scale 1M 16M 64M)	# one pass of 4 KiB every 64 KiB: FILE / 16
ours=$SCRATCH/validate-iopattern.dat	# iopattern creates and removes its own
theirs=$(scratch_file validate-fio.dat)	# fio's file is reused from run to run
scratch_file validate-iopattern.dat >/dev/null

# median NUMBER...: the middle one.
median() {
	printf '%s\n' "$@" | sort -g | awk '{ x[NR] = $1 } END { print x[int((NR + 1) / 2)] }'
}

# run_fio OPTIONS...: one fio run; its MiB/s added to the list theirs_mib_s.
# Terse format 3: field 7 is the read bandwidth, 48 the write one, in KiB/s.
run_fio() {
	theirs_mib_s+=("$(fio --name=validate --filename="$theirs" --ioengine=psync \
		--size="$FILE" --output-format=terse --terse-version=3 "$@" |
		awk -F';' '{ print ($7 > 0 ? $7 : $48) / 1024 }')")
}

# job NAME GOAL "IOPATTERN OPTIONS" "FIO OPTIONS"
job() {
	local name=$1 goal=$2 a b i ratio verdict
	local -a iop fio ours_mib_s=() theirs_mib_s=()
	read -r -a iop <<<"$3"
	read -r -a fio <<<"$4"
	# fio lays its file out (writes it) the first time, outside its timing;
	# iopattern fills a new file of its own every run, outside its timing too.
	for ((i = 0; i < RUNS; i++)); do
		# Who goes first alternates, so neither always finds the disk busier.
		if ((i % 2)); then run_fio "${fio[@]}"; fi
		ours_mib_s+=("$("$BIN/iopattern" -r 1 --csv --file-size "$FILE" "${iop[@]}" "$ours" |
			awk -F, 'NR == 2 { print $16 }')")
		if ((i % 2 == 0)); then run_fio "${fio[@]}"; fi
	done
	a=$(median "${ours_mib_s[@]}")
	b=$(median "${theirs_mib_s[@]}")
	ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.3f", a / b }')
	verdict=""
	if [ "$goal" = goal ]; then
		verdict=$(awk -v r="$ratio" 'BEGIN { print (r >= 0.9 && r <= 1.1 ? "within 10%: yes" : "within 10%: NO") }')
		[[ $verdict == *yes ]] && met=$((met + 1))
		goals=$((goals + 1))
	fi
	printf '%-36s %10.1f %10.1f %7s  %s\n' "$name" "$a" "$b" "$ratio" "$verdict"
}

met=0 goals=0
echo "== iopattern against $(fio --version), file $FILE in $SCRATCH, medians of $RUNS alternating runs (MiB/s)"
printf '%-36s %10s %10s %7s\n' job iopattern fio ratio
job "seq read 1M, O_DIRECT" goal \
	"--op read --pattern seq -b 1M --direct --cold" "--rw=read --bs=1M --direct=1"
job "seq write 1M, O_DIRECT" goal \
	"--op write --pattern seq -b 1M --direct --cold" "--rw=write --bs=1M --direct=1"
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
