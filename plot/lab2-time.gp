# lab2-time.gp - Lab 2: what locking often costs. Elapsed time per writer
# against lines per lock (K), with and without fflush() before the unlock:
# the median over the trials (both writers), whiskers from the smallest to
# the largest; small points: every writer of every trial. Times are per
# 1,000,000 lines, the source's count (at SCALE=full, the elapsed time
# itself), so that any SCALE compares with the source's Raspberry Pi 4
# (dashed; see data/reference/README.md).
set datafile separator ','
F = 'data/lab2.csv'
R = 'data/reference/lab2-rpi4.csv'

# Medians of the sweep by K and flush (common/table.py), a row per K.
M(fl) = '< '.python.' '.kit.'/common/table.py '.F.' --csv --by lines_per_lock,lines_written' \
	.' --values wall_s --where experiment=sweep --where flush='.fl
per_m(s) = 1e6 * s / column('lines_written')
# Seconds per 10^6 lines of a sweep row with flush = fl, else NaN.
sweep(fl) = strcol('experiment') eq 'sweep' && column('flush') == fl ? \
	1e6 * column('wall_s') / column('lines_written') : NaN
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
set ylabel 'elapsed time per writer, per 10^6 lines (s, log scale)'
set logscale xy
set xrange [0.5:20000]
set format y '%g'
set grid
set key top right

plot M(1) using 'lines_per_lock':(per_m(column('wall_s_median'))):(per_m(column('wall_s_min'))):(per_m(column('wall_s_max'))) \
	with yerrorlines lw 2 pt 7 lc rgb '#d62728' title 'fflush before unlock', \
     M(0) using 'lines_per_lock':(per_m(column('wall_s_median'))):(per_m(column('wall_s_min'))):(per_m(column('wall_s_max'))) \
	with yerrorlines lw 2 pt 5 lc rgb '#1f77b4' title 'no fflush (--no-flush)', \
     F using (column('lines_per_lock') * 1.12):(sweep(1)) with points pt 6 ps 0.5 lc rgb '#d62728' \
	title 'each writer of each trial', \
     F using (column('lines_per_lock') / 1.12):(sweep(0)) with points pt 4 ps 0.5 lc rgb '#1f77b4' notitle, \
     $RPI using 'k':'rpi_flush' with linespoints dt 2 pt 6 ps 1.2 lc rgb '#d62728' \
	title 'Raspberry Pi 4 (source, 10^6 lines), fflush', \
     $RPI using 'k':'rpi_noflush' with linespoints dt 2 pt 4 ps 1.2 lc rgb '#1f77b4' \
	title 'Raspberry Pi 4 (source, 10^6 lines), no fflush'
