# lab2-time.gp - Lab 2: what locking often costs. Mean elapsed time per writer
# against lines per lock (K), with and without fflush() before the unlock;
# error bars: one sample standard deviation over the trials (both writers);
# small points: every writer of every trial. Times are per 1,000,000 lines,
# the source's count (at SCALE=full, the elapsed time itself), so that any
# SCALE compares with the source's Raspberry Pi 4 (dashed; see
# data/reference/README.md).
set datafile separator ','
F = 'data/lab2.csv'
R = 'data/reference/lab2-rpi4.csv'

# Seconds per 10^6 lines of a sweep row with K = k and flush = fl, else NaN.
sweep(k, fl) = strcol('experiment') eq 'sweep' && column('lines_per_lock') == k && \
	column('flush') == fl ? 1e6 * column('wall_s') / column('lines_written') : NaN
stats F using 'lines_written' nooutput
lines = STATS_max

# Mean and standard deviation at each K = 10^e the lab ran, and the source's
# mean of A and B, as a table $MEAN.
set print $MEAN
print 'k,flush_mean,flush_sd,noflush_mean,noflush_sd,rpi_flush,rpi_noflush'
do for [e = 0:9] {
	k = 10**e
	stats F using (sweep(k, 1) == sweep(k, 1) ? 1 : 0) nooutput
	if (STATS_sum > 0) {
		stats F using (sweep(k, 1)) nooutput; m1 = STATS_mean; s1 = STATS_ssd
		stats F using (sweep(k, 0)) nooutput; m0 = STATS_mean; s0 = STATS_ssd
		stats R using (column('lines_per_lock') == k ? 1 : 0) nooutput
		r1 = NaN; r0 = NaN
		if (STATS_sum > 0) {
			stats R using (column('lines_per_lock') == k && column('flush') == 1 ? \
				column('wall_s') : NaN) nooutput; r1 = STATS_mean
			stats R using (column('lines_per_lock') == k && column('flush') == 0 ? \
				column('wall_s') : NaN) nooutput; r0 = STATS_mean
		}
		print sprintf('%d,%g,%g,%g,%g,%g,%g', k, m1, s1, m0, s0, r1, r0)
	}
}
set print

set title sprintf("Lab 2: two writers, a lock around every K lines (this machine: %.0f lines per writer)", lines)
set xlabel 'lines per lock, K (log scale)'
set ylabel 'elapsed time per writer, per 10^6 lines (s, log scale)'
set logscale xy
set xrange [0.5:20000]
set format y '%g'
set grid
set key top right

plot NaN with points pt 6 ps 0.5 lc rgb 'gray40' title 'each writer of each trial', \
     $MEAN using 'k':'flush_mean':'flush_sd' with yerrorlines lw 2 pt 7 lc rgb '#d62728' \
	title 'fflush before unlock: mean {/Symbol \261} sd', \
     $MEAN using 'k':'noflush_mean':'noflush_sd' with yerrorlines lw 2 pt 5 lc rgb '#1f77b4' \
	title 'no fflush (--no-flush)', \
     F using (column('lines_per_lock') * 1.12):(sweep(column('lines_per_lock'), 1)) \
	with points pt 6 ps 0.5 lc rgb '#d62728' notitle, \
     F using (column('lines_per_lock') / 1.12):(sweep(column('lines_per_lock'), 0)) \
	with points pt 4 ps 0.5 lc rgb '#1f77b4' notitle, \
     $MEAN using 'k':'rpi_flush' with linespoints dt 2 pt 6 ps 1.2 lc rgb '#d62728' \
	title 'Raspberry Pi 4 (source, 10^6 lines), fflush', \
     $MEAN using 'k':'rpi_noflush' with linespoints dt 2 pt 4 ps 1.2 lc rgb '#1f77b4' \
	title 'Raspberry Pi 4 (source, 10^6 lines), no fflush'
