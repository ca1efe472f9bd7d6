# lab2-locks.gp - Lab 2: which lock, and what a sync inside it costs.
# Left: elapsed time per writer with each kind of lock (and none), at each
# batch size K of the locks experiment: the median over the trials (both
# writers), whiskers from the smallest to the largest; the label: in how
# many writer rows (two per trial) every run of the file was a multiple of
# K, counted as the lab's table counts them. Right: flock, with fflush, then
# nothing, fdatasync() or fsync() before each unlock, against K.
set datafile separator ','
F = 'data/lab2.csv'
KINDS = 'none flock fcntl ofd'
SYNCS = 'none fdatasync fsync'

# Medians (min-max) by experiment, sync mode, kind of lock and K (lab2.sh
# writes them with common/table.py), with the count of rows (two per
# trial) whose file had every run a multiple of K, and of those that
# interleaved.
M = 'data/lab2-locks-medians.csv'
kind_x(name) = name eq 'none' ? 1 : name eq 'flock' ? 2 : name eq 'fcntl' ? 3 : 4
# The K of the locks experiment, and the lines per writer at each, as lists.
KL = ''
LL = ''
is_k(k) = strcol('experiment') eq 'locks' && column('lines_per_lock') == k
do for [e = 0:9] {
	stats F using (is_k(10**e) ? 1 : 0) nooutput
	if (STATS_sum > 0) {
		stats F using (is_k(10**e) ? column('lines_written') : NaN) nooutput
		KL = KL . sprintf(' %d', 10**e)
		LL = LL . sprintf(' %d', STATS_max)
	}
}
stats F using (strcol('experiment') eq 'sync' ? column('lines_written') : NaN) nooutput
sync_lines = STATS_max

set multiplot layout 1,2 title 'Lab 2: kinds of lock, and a sync inside the lock (two writers; median, min-max whiskers)'
set grid
set logscale y
set format y '%g'
set ylabel 'elapsed time per writer (s, log scale)'
colors = '#1f77b4 #ff7f0e #2ca02c #9467bd'

set title 'fflush, then unlock'
set xlabel 'kind of lock'
set xrange [0.5:4.5]
set xtics ('none' 1, 'flock' 2, 'fcntl' 3, 'ofd' 4)
set offsets 0, 0, graph 0.12, graph 0.05
set key top right
set label 1 "n/m: in n of m writer rows (two per trial) every run was a multiple of K\n(K = 10000 in lockstep: every batch contended)" \
	at graph 0.03, graph 0.06 font ',8'
nk = words(KL)
dx(i) = nk > 1 ? 0.3 * ((i - 1.0) / (nk - 1) - 0.5) : 0
mine(i) = strcol('experiment') eq 'locks' && column('lines_per_lock') == word(KL, i)
plot for [i = 1:nk] M using (kind_x(strcol('lock')) + dx(i)):(mine(i) ? column('wall_s_median') : NaN): \
	'wall_s_min':'wall_s_max' with yerrorbars pt 7 lc rgb word(colors, i) title sprintf('K = %s, %s lines', word(KL, i), word(LL, i)), \
     for [i = 1:nk] M using (kind_x(strcol('lock')) + dx(i)):(mine(i) ? column('wall_s_max') : NaN): \
	(sprintf('%d/%d', column('runs_multiple_of_k_count'), column('n'))) \
	with labels offset 0, 0.8 font ',8' tc rgb word(colors, i) notitle

unset label 1
set title sprintf('flock and fflush, then a sync; %.0f lines per writer', sync_lines)
set xlabel 'lines per lock, K (log scale)'
set logscale x
set autoscale x
set offsets graph 0.1, graph 0.1, 0, 0
set xtics auto
set key top right
# a row of the sync experiment with sync mode s (the others are left out,
# x and all, so that they do not stretch the axes)
syncs(s) = strcol('experiment') eq 'sync' && strcol('sync') eq s
plot for [i = 1:3] M using (syncs(word(SYNCS, i)) ? column('lines_per_lock') : NaN):'wall_s_median':'wall_s_min':'wall_s_max' \
	with yerrorlines lw 2 pt 7 lc rgb word(colors, i) title word(SYNCS, i) . (i == 1 ? '' : '()')
unset multiplot
