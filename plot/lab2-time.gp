# lab2-time.gp - Lab 2: what locking often costs. Elapsed time per writer
# against lines per lock (K), with and without fflush() before the unlock:
# the median over the trials (both writers), whiskers from the smallest to
# the largest; small points: every writer of every trial. Times are as
# measured, seconds per writer for this run's lines_written lines, the
# numbers of the lab's table. The source's Raspberry Pi 4 (dashed; see
# data/reference/README.md) wrote 1,000,000 lines per writer, as SCALE=full
# does: at another scale its curve is drawn as measured too, not scaled,
# since part of each time (starting the process, opening the file) does
# not grow with the lines.
# size: 960,680
set datafile separator ','
F = 'data/lab2.csv'
R = 'data/reference/lab2-rpi4.csv'

# Medians of the sweep by flush and K (written by lab2.sh), a row per K.
M = 'data/lab2-time-medians.csv'
# Seconds of a sweep row with flush = fl, else NaN.
sweep(fl) = strcol('experiment') eq 'sweep' && column('flush') == fl ? column('wall_s') : NaN
stats F using (strcol('experiment') eq 'sweep' ? column('lines_written') : NaN) nooutput
lines = STATS_max

# The source's mean of writers A and B at each K, as a table $RPI.
set print $RPI
print 'k,rpi_flush,rpi_noflush'
do for [e = 0:4] {
	k = 10**e
	stats R using (column('lines_per_lock') == k && column('flush') == 1 ? column('wall_s') : NaN) nooutput
	r1 = STATS_mean
	stats R using (column('lines_per_lock') == k && column('flush') == 0 ? column('wall_s') : NaN) nooutput
	print sprintf('%d,%g,%g', k, r1, STATS_mean)
}
set print

set title sprintf("Lab 2: two writers, a lock around every K lines (this machine: %.0f lines per writer; median, min-max)", lines)
set xlabel 'lines per lock, K (log scale)'
set ylabel sprintf('elapsed time per writer (s, log scale; %.0f lines here, 10^6 on the Pi)', lines)
set logscale xy
set xrange [0.5:20000]
set format y '%g'
set grid
# the key below the plot, clear of the points
set key below maxrows 3

plot M using 'lines_per_lock':(column('flush') == 1 ? column('wall_s_median') : NaN):'wall_s_min':'wall_s_max' \
	with yerrorlines lw 2 pt 7 lc rgb '#d62728' title 'fflush before unlock', \
     M using 'lines_per_lock':(column('flush') == 0 ? column('wall_s_median') : NaN):'wall_s_min':'wall_s_max' \
	with yerrorlines lw 2 pt 5 lc rgb '#1f77b4' title 'no fflush (--no-flush)', \
     F using (column('lines_per_lock') * 1.12):(sweep(1)) with points pt 6 ps 0.5 lc rgb '#d62728' \
	title 'each writer of each trial', \
     F using (column('lines_per_lock') / 1.12):(sweep(0)) with points pt 4 ps 0.5 lc rgb '#1f77b4' notitle, \
     $RPI using 'k':'rpi_flush' with linespoints dt 2 pt 6 ps 1.2 lc rgb '#d62728' \
	title 'Raspberry Pi 4 (source, 10^6 lines), fflush', \
     $RPI using 'k':'rpi_noflush' with linespoints dt 2 pt 4 ps 1.2 lc rgb '#1f77b4' \
	title 'Raspberry Pi 4 (source, 10^6 lines), no fflush'
