# Lab 5: 4 KiB random O_DIRECT reads with several I/Os in flight. Left:
# io_uring at queue depths 1..64 from one thread; right: 1..8 threads, each
# one pread at a time. Top: IOPS; bottom: latency of single I/Os, p50 and
# p99 (log scale). Dots: every trial; lines: the mean of a point's trials
# (gnuplot's smooth unique).
set termoption noenhanced	# O_DIRECT and io_uring as written
set datafile separator ','
set datafile columnheaders
set datafile missing NaN	# rows of the other experiment: skipped
csv = 'data/lab5-depth.csv'

# x of a row of experiment e: its queue depth or its thread count.
x(e) = strcol("experiment") ne e ? NaN : e eq "depth" ? column("iodepth") : column("jobs")

# The depth rows: none where io_uring was left out (iopattern built without
# liburing, or the system refuses io_uring); its panels then say so.
stats csv using (strcol("experiment") eq "depth" ? 1 : 0) nooutput
depth_rows = STATS_sum
# left_out(): an empty panel saying why, in place of the io_uring curves.
left_out = 'set xrange [1:64]; set label 1 "io_uring left out on this machine (see make lab5)" at graph 0.5,0.5 center; plot 1/0 notitle; unset label 1; set autoscale x'

# The same scales on both sides, with room at the top for the key (top
# left) above the highest point: a quarter of the IOPS axis, and 0.6 of a
# decade (4x) on the latency's log axis.
stats csv using (column("iops")) nooutput
iops_max = STATS_max * 1.25
stats csv using (column("lat_p50_us")) nooutput
lat_min = STATS_min / 1.5
stats csv using (column("lat_p99_us")) nooutput
lat_max = STATS_max * 4

set logscale x 2
set grid
set key top left samplen 2
set multiplot layout 2,2 title "Lab 5: 4 KiB random O_DIRECT reads, several I/Os in flight"

set yrange [0:iops_max]
set ylabel "IOPS"
set title "io_uring, one thread"
set xlabel "queue depth (--iodepth)"
if (depth_rows == 0) { eval left_out } else {
plot csv using (x("depth")):"iops" with points pt 7 ps 0.4 lc 1 notitle, \
     '' using (x("depth")):"iops" smooth unique with linespoints pt 7 lc 1 title "IOPS"
}
set title "threads, each one pread at a time"
set xlabel "threads (--jobs)"
plot csv using (x("threads")):"iops" with points pt 7 ps 0.4 lc 2 notitle, \
     '' using (x("threads")):"iops" smooth unique with linespoints pt 7 lc 2 title "IOPS"

set yrange [lat_min:lat_max]
set logscale y 10
set format y "%g"
set ylabel "latency of one I/O (us, log scale)"
set title ""
do for [e in "depth threads"] {
	set xlabel (e eq "depth" ? "queue depth (--iodepth)" : "threads (--jobs)")
	if (e eq "depth" && depth_rows == 0) { eval left_out; continue }
	plot csv using (x(e)):"lat_p50_us" with points pt 7 ps 0.4 lc 3 notitle, \
	     '' using (x(e)):"lat_p50_us" smooth unique with linespoints pt 7 lc 3 title "p50", \
	     '' using (x(e)):"lat_p99_us" with points pt 7 ps 0.4 lc 4 notitle, \
	     '' using (x(e)):"lat_p99_us" smooth unique with linespoints pt 7 lc 4 title "p99"
}
unset multiplot
