#!/usr/bin/env bash
# lab5.sh - Lab 5: access patterns. The six experiments of the
# IO-Microbenchmarks repository (read and write; I/O size, stride, random),
# on a real file, each point 5 trials of bin/iopattern (after one untimed
# trial of its own), into data/lab5.csv. Every row carries its conditions;
# the series name is only a label for the plots:
#   cached      buffered, the file's pages in the page cache, no fsync; each
#               trial moves CACHED_TOTAL (many passes over the file: one
#               pass is microseconds)
#   cold        buffered, its pages dropped before each trial (--cold)
#   direct      O_DIRECT (--direct --cold): no page cache at all
#   fsync-end   writes: buffered, --cold, one fsync inside the timing
#   fsync-each  writes: an fsync after every write, what the source timed
# Then several I/Os in flight, into data/lab5-depth.csv: 4 KiB random
# O_DIRECT reads with io_uring at queue depths 1..64 (experiment depth) and
# with 1..8 threads of pread (experiment threads). A table of medians ends
# the lab.
source "$(dirname "$0")/../../common/lab.sh"
lab_begin "Lab 5: access patterns" iopattern

TRIALS=${TRIALS:-5}
# Queue depth and threads: 4 KiB random O_DIRECT reads, TOTAL bytes a trial
DEPTHS=$(by_scale "1 4 32" "1 2 4 8 16 32 64" "1 2 4 8 16 32 64")
THREADS=$(by_scale "1 2" "1 2 4 8" "1 2 4 8")
DEPTH_FILE=$(by_scale 1M 64M 1G)
DEPTH_TOTAL=$(by_scale 256K 4M 256M)
SIZES=$(by_scale "4K 64K 1M" "4K 16K 64K 256K 1M 4M" "4K 16K 64K 256K 1M 4M 16M 64M 128M")
FILE=$(by_scale 1M 8M 1G)	# the file of the size and random experiments
# bytes per trial of the cached series: at 20-40 GB/s from the page cache,
# one pass over 8 MiB takes 0.2 ms, less than one time slice of another
# program; 256 MiB take about 10 ms (4 MiB reads) to 150 ms (4 KiB)
CACHED_TOTAL=$(by_scale 16M 256M 4G)
# fsync after every small write is slow: a smaller file, and sizes that fit it
EACH_SIZES=$(by_scale "4K 64K" "4K 16K 64K 256K 1M" "4K 16K 64K 256K 1M 4M 16M 64M")
EACH_FILE=$(by_scale 256K 1M 64M)
# stride: I/O sizes, and strides from the I/O size up, over one pass of the file
STRIDE_FILE=$(by_scale 1M 8M 1G)
STRIDES_4K=$(by_scale "4K 16K 256K" "4K 16K 64K 256K 1M 4M" "4K 16K 64K 256K 1M 4M 16M 64M")
STRIDES_128K=$(by_scale "128K 512K" "128K 512K 2M" "128K 512K 2M 8M 32M 128M")

csv_open "$DATA/lab5.csv"
file=$(scratch_file lab5.dat)
rm -f "$file"	# left by a killed run: iopattern refuses to reuse a file
# The six experiments are one I/O at a time in one thread: data/lab5.csv
# keeps as many of iopattern's columns as it declares after experiment and
# series (24: not iodepth, jobs and the rest).
FIELDS=1-$(($(tr ',' '\n' <<<"$CSV_HEADER" | wc -l) - 2))

# point EXPERIMENT SERIES IOPATTERN-OPTIONS...: one point's trials into the CSV.
point() {
	local experiment=$1 series=$2 out
	shift 2
	out=$("$BIN/iopattern" --csv -r "$TRIALS" "$@" "$file" | cut -d, -f"$FIELDS")
	csv_program iopattern "$out" "${CSV_HEADER#experiment,series,}"
	while IFS= read -r row; do
		csv_row "$experiment,$series,$row"
	done < <(tail -n +2 <<<"$out")
}

# A point's file holds at least MIN_IOS of its I/Os (or strides): an 8 MiB
# file is 2 I/Os of 4 MiB, a trial of a few milliseconds, which one time
# slice of another program can double. At 4 MiB the file is then 64 MiB.
MIN_IOS=16

# at_least_ios VALUE OPTIONS...: "--file-size BYTES" where the --file-size
# in OPTIONS holds fewer than MIN_IOS times VALUE (an I/O size or stride).
at_least_ios() {
	local need file=0
	need=$((MIN_IOS * $(numfmt --from=iec "$1")))
	shift
	while [ $# -gt 1 ]; do
		[ "$1" = --file-size ] && file=$(numfmt --from=iec "$2")
		shift
	done
	[ "$file" -ge "$need" ] || echo "--file-size $need"
}

# Where the scratch file system refuses O_DIRECT (tmpfs before Linux 6.6,
# ext4 with data=journal, 9p, some FUSE), iopattern says why and exits 1:
# every O_DIRECT curve is left out (no_direct holds the reason), the lab
# says so once and keeps the others. Any other failure (3: not written
# yet) stops the lab.
probe=$("$BIN/iopattern" --op read --pattern seq -b 4K --file-size 4K -r 1 --direct --cold \
	"$file" 2>&1 >/dev/null) && status=0 || status=$?
no_direct=
if [ "$status" -eq 1 ] && [[ $probe == *"O_DIRECT"* ]]; then
	no_direct=$probe
	echo "  every O_DIRECT curve (direct, depth, threads) is left out: $no_direct"
elif [ "$status" -ne 0 ]; then
	echo "$probe" >&2
	exit "$status"
fi

# curve EXPERIMENT SERIES VALUES OPTION OPTIONS...: one point per value of
# OPTION (-b, --stride, --iodepth or --jobs), with one line of progress;
# nothing for an O_DIRECT curve where O_DIRECT is refused.
curve() {
	local experiment=$1 series=$2 values=$3 option=$4 v start=$SECONDS grow
	shift 4
	[[ -z $no_direct || " $* " != *" --direct "* ]] || return 0
	printf '  %-13s %-14s' "$experiment" "$series"
	for v in $values; do
		printf ' %s' "$v"
		grow=()
		if [ "$option" = -b ] || [ "$option" = --stride ]; then
			read -ra grow <<<"$(at_least_ios "$v" "$@")"
		fi
		point "$experiment" "$series" "$option" "$v" "$@" "${grow[@]}"
	done
	echo " ($((SECONDS - start)) s)"
}

read_size=(--op read --pattern seq --file-size "$FILE")
curve read-size cached "$SIZES" -b "${read_size[@]}" --total "$CACHED_TOTAL"
curve read-size cold "$SIZES" -b "${read_size[@]}" --cold
curve read-size direct "$SIZES" -b "${read_size[@]}" --direct --cold

write_size=(--op write --pattern seq --file-size "$FILE")
curve write-size cached "$SIZES" -b "${write_size[@]}" --total "$CACHED_TOTAL"
curve write-size fsync-end "$SIZES" -b "${write_size[@]}" --cold --sync end
curve write-size direct "$SIZES" -b "${write_size[@]}" --direct --cold
curve write-size fsync-each "$EACH_SIZES" -b --op write --pattern seq \
	--file-size "$EACH_FILE" --sync each

for op in read write; do
	for io in 4K 128K; do
		[ "$io" = 4K ] && strides=$STRIDES_4K || strides=$STRIDES_128K
		options=(--op "$op" --pattern stride -b "$io" --file-size "$STRIDE_FILE")
		if [ "$op" = read ]; then
			curve read-stride "cold-$io" "$strides" --stride "${options[@]}" --cold
		else
			curve write-stride "fsync-end-$io" "$strides" --stride "${options[@]}" \
				--cold --sync end
		fi
		curve "$op-stride" "direct-$io" "$strides" --stride "${options[@]}" --direct --cold
	done
done

random_read=(--op read --pattern random --file-size "$FILE")
curve random-read cached "$SIZES" -b "${random_read[@]}" --total "$CACHED_TOTAL"
curve random-read cold "$SIZES" -b "${random_read[@]}" --cold
curve random-read direct "$SIZES" -b "${random_read[@]}" --direct --cold

random_write=(--op write --pattern random --file-size "$FILE")
curve random-write cached "$SIZES" -b "${random_write[@]}" --total "$CACHED_TOTAL"
curve random-write fsync-end "$SIZES" -b "${random_write[@]}" --cold --sync end
curve random-write direct "$SIZES" -b "${random_write[@]}" --direct --cold
curve random-write fsync-each "$EACH_SIZES" -b --op write --pattern random \
	--file-size "$EACH_FILE" --sync each

csv_commit

# Several I/Os in flight: every column of iopattern's CSV.
csv_open "$DATA/lab5-depth.csv"
FIELDS=1-
in_flight=(--op read --pattern random -b 4K --file-size "$DEPTH_FILE" --total "$DEPTH_TOTAL" --direct --cold)
# Where io_uring is refused (a container's seccomp filter, an old kernel),
# iopattern says why and exits 1: the depth curve is left out, and the lab
# says so. Any other failure (3: not written yet) stops the lab.
probe=$("$BIN/iopattern" --op read --pattern seq -b 4K --file-size 4K -r 1 --iodepth 1 \
	"$file" 2>&1 >/dev/null) && status=0 || status=$?
if [ -n "$no_direct" ]; then
	:	# its 4 KiB random reads are O_DIRECT: said above
elif [ "$status" -eq 0 ]; then
	curve depth io_uring "$DEPTHS" --iodepth "${in_flight[@]}"
elif [ "$status" -eq 1 ] && [[ $probe == *"needs io_uring"* ]]; then
	echo "  depth         io_uring       left out: $probe"
else
	echo "$probe" >&2
	exit "$status"
fi
curve threads pread "$THREADS" --jobs "${in_flight[@]}"
csv_commit
echo
# The sizes the questions name: 4 KiB, 1 MiB and the largest (Q5.1-Q5.4, Q5.6).
largest=$(numfmt --from=iec "${SIZES##* }")
"$PYTHON" common/table.py "$DATA/lab5.csv" \
	--title "== Lab 5: medians at 4 KiB, 1 MiB and $largest bytes (data/lab5.csv)" \
	--by experiment,series,io_bytes --where io_bytes=4096,1048576,"$largest" \
	--where experiment=read-size,write-size,random-read \
	--value bytes_per_ns,mib_s,iops,lat_p50_us
# Little's law, trial by trial: IOPS x mean latency = I/Os in flight on average.
"$PYTHON" common/table.py "$DATA/lab5-depth.csv" \
	--title "== Lab 5: medians, 4 KiB random O_DIRECT reads, several in flight (data/lab5-depth.csv)" \
	--by experiment,iodepth,jobs --value iops,lat_p50_us,lat_p99_us,lat_mean_us,cpu_s,iops*lat_mean_us/1e6
# Q5.11: each thread's next read waits for a core of its own, the io_uring
# thread's next batch for one; with the cores taken, 2 and 4 threads got
# more turns than one io_uring thread and read more (8347 and 17707 IOPS
# against 4036 and 11296 at depth 2 and 4, beside 1.69 cores of others).
lab_end --needs-cores Q5.11 --spread "$DATA/lab5.csv:experiment+series+io_bytes+stride_bytes:mib_s" -- \
	"P5.1=$(measured median "$DATA/lab5.csv" mib_s experiment=read-size series=cached io_bytes=4096) MiB/s" \
	"P5.2=$(measured median "$DATA/lab5.csv" mib_s experiment=read-size series=direct io_bytes=4096) MiB/s" \
	"P5.3=$(measured median "$DATA/lab5-depth.csv" iops experiment=depth iodepth=32) IOPS" \
	"P5.4=$(measured median "$DATA/lab5-depth.csv" iops experiment=depth iodepth=1) IOPS"
