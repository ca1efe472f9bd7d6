# lab4-writers-nofsync.gp - pwriters with --no-fsync: the data only reaches
# the page cache. MiB/s against the number of files, per strategy; left over
# elapsed time, right over CPU time (what clock() measures). Same axes as
# lab4-writers-fsync.png, to compare. Points: every trial; lines: the mean.
set datafile separator ','
# The mean: "smooth frequency" adds up the y values that share an x, so each
# row adds its value / T for the strategy drawn, and 0 for the others.
stats 'data/lab4-writers.csv' using 1 nooutput
T = STATS_max		# trials per configuration
S = "seq per-file io-thread pool"
mine(i) = strcol(2) eq word(S, i) && $7 == 0

set logscale xy
set xrange [3:1500]
set yrange [50:50000]
set format y '%.0f'
set xlabel 'files written (log scale)'
set grid xtics ytics
set key top right reverse Left font ',9' spacing 0.9
set multiplot layout 1,2 title 'Lab 4: parallel writers, no fsync: into the page cache (data/lab4-writers.csv)'

set title 'from elapsed time (CLOCK\_MONOTONIC): throughput'
set ylabel 'MiB/s (log scale)'
plot for [i=1:4] 'data/lab4-writers.csv' using 4:(mine(i) ? $11 : 1/0) \
	with points pt 7 ps 0.5 lc i notitle, \
     for [i=1:4] 'data/lab4-writers.csv' using 4:(mine(i) ? $11 / T : 0) \
	smooth frequency with lines lw 2 lc i title word(S, i)

set title 'from CPU time (what clock() measures)'
set ylabel 'MiB per CPU-second (log scale)'
plot for [i=1:4] 'data/lab4-writers.csv' using 4:(mine(i) ? $12 : 1/0) \
	with points pt 7 ps 0.5 lc i notitle, \
     for [i=1:4] 'data/lab4-writers.csv' using 4:(mine(i) ? $12 / T : 0) \
	smooth frequency with lines lw 2 lc i title word(S, i)
unset multiplot
