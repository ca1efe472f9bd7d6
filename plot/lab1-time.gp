# Lab 1: what a small buffer costs: time per writer against buffer size.
# Points: the median over the trials (both writers); whiskers: min and max.
set datafile separator ','
set title "Lab 1: time to write the lines, by stdio buffer size (median, min-max whiskers)"
set xlabel "stdio buffer size (bytes, log scale; unbuffered drawn at 2)"
set ylabel "time per writer (s, log scale)"
set logscale xy
set xrange [1:200000]
set key top right
set grid

csv = 'data/lab1.csv'
# machine.txt's "key: value" lines, read as data split at ':' (0 if the key is missing)
set datafile separator ':'
stats 'data/machine.txt' using (strcol(1) eq 'scratch_dir_st_blksize' ? column(2) : 0) nooutput
blksize = STATS_max
set datafile separator ','
# Medians over the trials, by experiment and buffer (written by lab1.sh).
M = 'data/lab1-time-medians.csv'
x(ex, b) = ex eq "default" ? blksize : (b > 0 ? b : 2)
X = 'x(strcol("experiment"), column("buffer_bytes"))'
# A CPU time of 0 (less than the kernel's accounting tick) has no place on
# a log axis: count the rows that have one, and say so under the plot.
stats csv using (strcol('mode') eq 'append' && (column('sys_s') == 0 || column('user_s') == 0) ? 1 : 0) nooutput
zeros = STATS_sum
set label 1 sprintf("log axis: %d writer rows with a user or system CPU time of 0 (below the tick) are left out of those medians' whiskers", zeros) \
	at graph 0.01, graph 0.03 font ',8'
set label 2 sprintf("default buffer = st\\_blksize = %d", blksize) at blksize, graph 0.95 center font ',8'
set arrow 1 from blksize, graph 0 to blksize, graph 0.92 nohead dt 3 lc rgb 'gray50'

# A median of 0 draws nothing, not even its whisker's cap (log 0 is not
# on the axis); a minimum of 0 is left out (the whisker stops at the median).
med(c) = column(c . '_median') > 0 ? column(c . '_median') : NaN
low(c) = column(c . '_min') > 0 ? column(c . '_min') : med(c)
plot M using (@X * 0.93):(med('wall_s')):(low('wall_s')):'wall_s_max' \
         with yerrorbars pt 7 lc rgb "#1f77b4" title "elapsed", \
     M using (@X):(med('sys_s')):(low('sys_s')):'sys_s_max' \
         with yerrorbars pt 6 lc rgb "#d62728" title "system CPU", \
     M using (@X * 1.07):(med('user_s')):(low('user_s')):'user_s_max' \
         with yerrorbars pt 4 lc rgb "#2ca02c" title "user CPU"
