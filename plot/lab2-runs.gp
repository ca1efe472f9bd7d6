# lab2-runs.gp - Lab 2: what the run lengths say about the lock. Left: the
# median run length of each writer in each trial of the sweep, against K.
# With fflush before the unlock, every run is a whole number of batches;
# without it, runs are whole stdio buffers (st_blksize bytes, 2 bytes a
# line), whatever K. Right: the share of trials in which every run of the
# file was a multiple of K, as bin/runs --multiple K found it.
set datafile separator ','
F = 'data/lab2.csv'

blksize = real(system("sed -n 's/^scratch_dir_st_blksize: //p' data/machine.txt"))
sweep(fl) = strcol('experiment') eq 'sweep' && column('flush') == fl
stats F using (sweep(1) ? column('lines_written') : NaN) nooutput
lines = STATS_max

# $OK: per K, the percentage of trials whose runs were all multiples of K.
set print $OK
print 'k,flush_pct,noflush_pct'
do for [e = 0:9] {
	k = 10**e
	stats F using (sweep(1) && column('lines_per_lock') == k ? 1 : 0) nooutput
	if (STATS_sum > 0) {
		n = STATS_sum
		stats F using (sweep(1) && column('lines_per_lock') == k ? \
			column('runs_multiple_of_k') : 0) nooutput
		ok1 = STATS_sum
		stats F using (sweep(0) && column('lines_per_lock') == k ? \
			column('runs_multiple_of_k') : 0) nooutput
		print sprintf('%d,%g,%g', k, 100 * ok1 / n, 100 * STATS_sum / n)
	}
}
set print

set multiplot layout 1,2 title sprintf('Lab 2: the run lengths in the file (sweep, two writers of %.0f lines, flock)', lines)
set grid
set key bottom right font ',9' opaque

set title 'median run length of each writer in each trial'
set xlabel 'lines per lock, K (log scale)'
set ylabel 'median run length (lines, log scale)'
set logscale xy
set xrange [0.5:20000]
set yrange [0.5:lines * 4]
set format y '%g'
plot x with lines dt 2 lc rgb 'gray40' title 'K: one batch', \
     blksize / 2 with lines dt 3 lw 2 lc rgb 'black' \
	title sprintf('one stdio buffer: %.0f lines', blksize / 2), \
     lines with lines dt 4 lc rgb 'gray60' title 'all the lines of one writer', \
     F using (column('lines_per_lock') * 1.1):(sweep(1) ? column('median_run_lines') : NaN) \
	with points pt 7 ps 0.7 lc rgb '#d62728' title 'fflush before unlock', \
     F using (column('lines_per_lock') / 1.1):(sweep(0) ? column('median_run_lines') : NaN) \
	with points pt 5 ps 0.7 lc rgb '#1f77b4' title 'no fflush'

set title 'trials in which every run was a multiple of K'
set ylabel 'trials (%)'
unset logscale
set yrange [0:115]
set xrange [*:*]
set format y '%g'
set style fill solid 0.8 border -1
set boxwidth 0.35
set xtics ()
set xlabel 'lines per lock, K'
set key top right
plot $OK using ($0 - 0.2):'flush_pct':xtic(1) with boxes lc rgb '#d62728' title 'fflush before unlock', \
     $OK using ($0 + 0.2):'noflush_pct' with boxes lc rgb '#1f77b4' title 'no fflush'
unset multiplot
