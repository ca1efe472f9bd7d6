# lab2-locks.gp - Lab 2: which lock, and what a sync inside it costs.
# Left: mean elapsed time per writer with each kind of lock (and none), at
# each batch size K of the locks experiment; error bars: one sample standard
# deviation over the trials (both writers); the label: in how many trials
# every run of the file was a multiple of K. Right: flock, with fflush, then
# nothing, fdatasync() or fsync() before each unlock, against K.
set datafile separator ','
F = 'data/lab2.csv'
KINDS = 'none flock fcntl ofd'
SYNCS = 'none fdatasync fsync'

# Elapsed seconds of a row of experiment ex with K = k and the lock (or sync)
# named v in column c, else NaN. is() is 1 for those rows, 0 for the others;
# rows() for every row of the experiment with K = k.
is(ex, k, c, v) = strcol('experiment') eq ex && column('lines_per_lock') == k && \
	strcol(c) eq v ? 1 : 0
secs(ex, k, c, v) = is(ex, k, c, v) ? column('wall_s') : NaN
rows(ex, k) = strcol('experiment') eq ex && column('lines_per_lock') == k ? 1 : 0

# $LOCKS: a row per K and kind of lock: mean, sd, the trials whose runs
# were all multiples of K, the trials (two writers, so two rows, per trial).
KL = ''
set print $LOCKS
print 'k,kind,x,mean,sd,intact,trials'
do for [e = 0:9] {
	k = 10**e
	stats F using (rows('locks', k)) nooutput
	if (STATS_sum > 0) {
		KL = KL . sprintf(' %d', k)
		do for [i = 1:4] {
			kind = word(KINDS, i)
			stats F using (secs('locks', k, 'lock', kind)) nooutput
			m = STATS_mean; s = STATS_ssd; n = STATS_records
			stats F using (is('locks', k, 'lock', kind) * \
				column('runs_multiple_of_k')) nooutput
			print sprintf('%d,%s,%d,%g,%g,%d,%d', k, kind, i, m, s, STATS_sum / 2, n / 2)
		}
	}
}
# $SYNC: a row per K: mean and sd with each sync mode.
KS = ''
set print $SYNC
print 'k,none_mean,none_sd,fdatasync_mean,fdatasync_sd,fsync_mean,fsync_sd'
do for [e = 0:9] {
	k = 10**e
	stats F using (rows('sync', k)) nooutput
	if (STATS_sum > 0) {
		KS = KS . sprintf(' %d', k)
		line = sprintf('%d', k)
		do for [i = 1:3] {
			stats F using (secs('sync', k, 'sync', word(SYNCS, i))) nooutput
			line = line . sprintf(',%g,%g', STATS_mean, STATS_ssd)
		}
		print line
	}
}
set print
stats F using (strcol('experiment') eq 'locks' ? column('lines_written') : NaN) nooutput
lock_lines = STATS_max
stats F using (strcol('experiment') eq 'sync' ? column('lines_written') : NaN) nooutput
sync_lines = STATS_max

set multiplot layout 1,2 title 'Lab 2: kinds of lock, and a sync inside the lock (two writers, mean {/Symbol \261} sd over the trials)'
set grid
set logscale y
set format y '%g'
set ylabel 'elapsed time per writer (s, log scale)'
colors = '#1f77b4 #ff7f0e #2ca02c #9467bd'

set title sprintf('fflush, then unlock; %.0f lines per writer', lock_lines)
set xlabel 'kind of lock'
set xrange [0.5:4.5]
set xtics ('none' 1, 'flock' 2, 'fcntl' 3, 'ofd' 4)
set offsets 0, 0, graph 0.12, graph 0.05
set key top right
set label 1 "n/m ok: in n of m trials, every run\nof the file was a multiple of K" \
	at graph 0.03, graph 0.06 font ',8'
nk = words(KL)
dx(i) = nk > 1 ? 0.3 * ((i - 1.0) / (nk - 1) - 0.5) : 0
plot for [i = 1:nk] $LOCKS using ($3 + dx(i)):(column('k') == word(KL, i) ? $4 : NaN):5 \
	with yerrorbars pt 7 lc rgb word(colors, i) title sprintf('K = %s', word(KL, i)), \
     for [i = 1:nk] $LOCKS using ($3 + dx(i)):(column('k') == word(KL, i) ? $4 + $5 : NaN): \
	(sprintf('%d/%d ok', $6, $7)) with labels offset 0, 0.8 font ',8' tc rgb word(colors, i) notitle

unset label 1
set title sprintf('flock and fflush, then a sync; %.0f lines per writer', sync_lines)
set xlabel 'lines per lock, K (log scale)'
set logscale x
set autoscale x
set offsets graph 0.1, graph 0.1, 0, 0
set xtics auto
set key top right
plot for [i = 1:3] $SYNC using 1:(column(2 * i)):(column(2 * i + 1)) with yerrorlines \
	lw 2 pt 7 lc rgb word(colors, i) title word(SYNCS, i) . (i == 1 ? '' : '()')
unset multiplot
