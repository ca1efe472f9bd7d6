# lab2-runs.gp - Lab 2: do the run lengths show that the lock kept each
# batch of K lines together? Top: the sweep (writers started together,
# then left alone); bottom: lockstep (lockbench --lockstep: the writers
# meet before every batch, so every batch is contended).
# Left: each writer's median run length, median over the trials with
# min-max whiskers. With fflush before the unlock, every run is a whole
# number of batches; without it, runs are whole stdio buffers (st_blksize
# bytes, 2 bytes a line), whatever K. Right: each trial as runs --multiple K
# judged the file: kept whole (every run a multiple of K), broken, or
# untested (at most two runs: the writers never interleaved, so the check
# tested nothing).
# size: 960,820
set datafile separator ','
set datafile columnheaders
F = 'data/lab2.csv'

# machine.txt's "key: value" lines, read as data split at ':' (0 if the key is missing)
set datafile separator ':'
stats 'data/machine.txt' using (strcol(1) eq 'scratch_dir_st_blksize' ? column(2) : 0) nooutput
blksize = STATS_max
set datafile separator ','
# Medians (min-max) by experiment, flush and K, with the counts of rows
# whose runs were all multiples of K and that interleaved (lab2.sh writes
# them with common/table.py). ex, set by the loop below, is the panel's
# experiment; mine(fl): a row of it with that flush setting.
M = 'data/lab2-runs-medians.csv'
mine(fl) = strcol('experiment') eq ex && column('flush') == fl
# Where a K's bars stand: K is a power of 10, one slot per decade.
slot(fl) = mine(fl) ? log10(column('lines_per_lock')) + (fl ? -0.2 : 0.2) : NaN
max(a, b) = a > b ? a : b
# Shares of the trials (each trial has two rows, one per writer: the counts
# are of rows, the shares the same).
broken(dummy) = column('n') - column('runs_multiple_of_k_count')
untested(dummy) = column('n') - column('interleaved_count')
whole(dummy) = max(0, column('n') - broken(0) - untested(0))
pct(x) = 100.0 * x / column('n')

set multiplot layout 2,2 title 'Lab 2: the run lengths in the file: was every batch of K lines kept whole? (two writers, flock)'
do for [row = 1:2] {
	ex = word('sweep lockstep', row)
	unset logscale
	set autoscale	# stats keeps to the ranges of the last panel otherwise
	stats F using (strcol('experiment') eq ex ? column('lines_written') : NaN) nooutput
	lines = STATS_max
	set grid
	set key bottom right font ',8' opaque
	set title sprintf('%s: median run length (median, min-max)', ex) . \
		(row == 1 ? sprintf(', %.0f lines per writer', lines) : ', 20 batches or more')
	set xlabel 'lines per lock, K (log scale)'
	set ylabel 'median run length (lines)'
	set logscale xy
	set xrange [0.5:20000]
	set yrange [0.5:1e6]
	set format y '10^{%L}'
	set xtics auto
	set style fill empty
	plot x with lines dt 2 lc rgb 'gray40' title 'K: one batch', \
	     blksize / 2 with lines dt 3 lw 2 lc rgb 'black' \
		title sprintf('one stdio buffer: %.0f lines', blksize / 2), \
	     M using (column('lines_per_lock') * 1.1):(mine(1) ? column('median_run_lines_median') : NaN): \
		'median_run_lines_min':'median_run_lines_max' with yerrorbars pt 7 ps 0.7 lc rgb '#d62728' title 'fflush before unlock', \
	     M using (column('lines_per_lock') / 1.1):(mine(0) ? column('median_run_lines_median') : NaN): \
		'median_run_lines_min':'median_run_lines_max' with yerrorbars pt 5 ps 0.7 lc rgb '#1f77b4' title 'no fflush'

	set title sprintf('%s: the trials, as runs --multiple K judged them', ex)
	set ylabel 'trials (%)'
	unset logscale
	set yrange [0:125]
	stats M using (strcol('experiment') eq ex ? log10(column('lines_per_lock')) : NaN) nooutput
	set xrange [STATS_min - 0.6 : STATS_max + 0.6]
	set xtics () nomirror
	do for [e = int(STATS_min):int(STATS_max)] { set xtics add (sprintf('%d', 10**e) e) }
	set format y '%g'
	set style fill solid 0.85 border -1
	set boxwidth 0.35
	set xlabel 'lines per lock, K: left bar fflush before unlock, right bar no fflush'
	set key top center horizontal font ',8'
	# Stacked: kept whole at the bottom, then broken, then untested on top;
	# per K, the left bar with fflush, the right bar without.
	plot M using (slot(1)):(pct(whole(0) + broken(0) + untested(0))) \
		with boxes lc rgb '#bbbbbb' title 'untested (writers never interleaved)', \
	     M using (slot(0)):(pct(whole(0) + broken(0) + untested(0))) with boxes lc rgb '#bbbbbb' notitle, \
	     for [fl = 1:0:-1] M using (slot(fl)):(pct(whole(0) + broken(0))) \
		with boxes lc rgb '#d62728' title (fl ? 'broken (a run not a multiple of K)' : ''), \
	     for [fl = 1:0:-1] M using (slot(fl)):(pct(whole(0))) \
		with boxes lc rgb '#2ca02c' title (fl ? 'kept whole' : '')
}
unset multiplot
