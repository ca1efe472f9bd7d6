# lab4-writers-nofsync.gp - pwriters with --no-fsync: the data only reaches
# the page cache. MiB/s against the number of files, per strategy; left over
# elapsed time, right over CPU time (what clock() measures). Same axes as
# lab4-writers-fsync.png, to compare. Points: every trial; lines: the median,
# with whiskers from the smallest to the largest.
set datafile separator ','
S = "seq per-file io-thread pool"
mine(i) = strcol(2) eq word(S, i) && $7 == 0
# Medians (min-max) over the trials per fsync, strategy and file count
# (written by lab4.sh); the lines join the medians.
M = 'data/lab4-writers-medians.csv'
ours(i) = strcol('strategy') eq word(S, i) && column('fsync') == 0

set logscale xy
set xrange [3:1500]
# The same y axis in both Lab 4 writer figures, to compare: from every
# rate of the CSV (with fsync and without, elapsed and CPU) and the
# source's, out to the decades around them, so that no point is cut off.
# (a CPU time printed as 0 makes cpu_mib_s inf: left out)
finite(x) = x < 1e30 ? x : NaN
stats 'data/lab4-writers.csv' using (finite($11)) nooutput
lo = STATS_min; hi = STATS_max
stats 'data/lab4-writers.csv' using (finite($12)) nooutput
lo = STATS_min < lo ? STATS_min : lo
hi = STATS_max > hi ? STATS_max : hi
stats 'data/reference/lab4-parallel-io.csv' using ($5 * $4 / 1048576 / ($6 / 1e6)) nooutput
lo = STATS_min < lo ? STATS_min : lo
hi = STATS_max > hi ? STATS_max : hi
set yrange [10**floor(log10(lo / 1.2)) : 10**ceil(log10(hi * 1.2))]
set format y '%g'	# the range may reach below 1
set xlabel 'files written (log scale)'
set grid xtics ytics
# the keys below the panels, clear of the points; the same bottom margin
# in both panels and both figures, so that their plots line up
set key below Left reverse font ',9' maxrows 2
set bmargin 8
set multiplot layout 1,2 title 'Lab 4: parallel writers, no fsync: into the page cache (median, min-max whiskers; data/lab4-writers.csv)'

set title 'from elapsed time (CLOCK\_MONOTONIC): throughput'
set ylabel 'MiB/s (log scale)'
plot for [i=1:4] 'data/lab4-writers.csv' using 4:(mine(i) ? $11 : 1/0) \
	with points pt 7 ps 0.5 lc i notitle, \
     for [i=1:4] M using 'files':(ours(i) ? column('mib_s_median') : NaN):'mib_s_min':'mib_s_max' \
	with yerrorlines lw 2 pt 7 ps 0.5 lc i title word(S, i)

set title 'from CPU time (what clock() measures)'
set ylabel 'MiB per CPU-second (log scale)'
plot for [i=1:4] 'data/lab4-writers.csv' using 4:(mine(i) ? $12 : 1/0) \
	with points pt 7 ps 0.5 lc i notitle, \
     for [i=1:4] M using 'files':(ours(i) ? column('cpu_mib_s_median') : NaN):'cpu_mib_s_min':'cpu_mib_s_max' \
	with yerrorlines lw 2 pt 7 ps 0.5 lc i title word(S, i)
unset multiplot
