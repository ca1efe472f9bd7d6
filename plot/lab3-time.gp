# lab3-time.gp - Lab 3: elapsed time of each fillcopy phase against the number
# of threads. Every trial is a point, the line joins the medians. Solid, filled
# points: the buffers were prefaulted; dashed, open points: the first-touch
# page faults are inside the time. 4 KiB pages (lab3-faults.png has the huge
# ones). The copy panel adds membw's plain memcpy() of prefaulted buffers with
# as many threads (median): the copy's floor. rand() runs only at the thread
# counts the lab ran it at (1 and 2 at quick scale, prefaulted: the key
# names only the lines drawn).
set datafile separator ','
F = 'data/lab3.csv'
M = 'data/lab3-membw.csv'

# A row's passes over the buffer: the phases of a prefaulted xoshiro run
# go --passes times over it in one timed phase (the dump rewrites its files).
passes(phase) = column('passes')
# Elapsed ms per pass of the rows of one phase, generator, prefault setting and thread
# count (t = 0: any); the other rows give 1/0, which gnuplot leaves out.
ms(phase, rng, pre, t) = strcol('phase') eq phase && strcol('rng') eq rng && \
	column('prefault') == pre && strcol('pages') eq '4k' && \
	(t == 0 || column('threads') == t) ? 1000 * column('wall_s') / passes(phase) : 1/0
# The most threads of the rows of rand() with prefault setting pre (0: none).
rand_max(pre) = strcol('rng') eq 'rand' && column('prefault') == pre ? column('threads') : 0

stats F using 'bytes' nooutput
mib = STATS_max / 1048576
stats F using 'threads' nooutput
N = int(STATS_max)
stats F using (rand_max(1)) nooutput; R1 = STATS_max
stats F using (rand_max(0)) nooutput; R0 = STATS_max

# The median of every series at every thread count, as a table $MED whose
# columns are named like the series.
set print $MED
print 'threads,fill_r1,fill_r0,fill_x1,fill_x0,copy_1,copy_0,dump_1,dump_0,membw'
do for [t = 1:N] {
	fill_r1 = NaN; fill_r0 = NaN
	if (t <= R1) { stats F using (ms('fill', 'rand', 1, t)) nooutput; fill_r1 = STATS_median }
	if (t <= R0) { stats F using (ms('fill', 'rand', 0, t)) nooutput; fill_r0 = STATS_median }
	stats F using (ms('fill', 'xoshiro', 1, t)) nooutput; fill_x1 = STATS_median
	stats F using (ms('fill', 'xoshiro', 0, t)) nooutput; fill_x0 = STATS_median
	stats F using (ms('copy', 'xoshiro', 1, t)) nooutput; copy_1 = STATS_median
	stats F using (ms('copy', 'xoshiro', 0, t)) nooutput; copy_0 = STATS_median
	stats F using (ms('dump', 'xoshiro', 1, t)) nooutput; dump_1 = STATS_median
	stats F using (ms('dump', 'xoshiro', 0, t)) nooutput; dump_0 = STATS_median
	stats M using (strcol('op') eq 'copy' && column('threads') == t ? 1000 * column('wall_s') / column('passes') : 1/0) nooutput
	membw = STATS_median
	print sprintf('%d,%g,%g,%g,%g,%g,%g,%g,%g,%g', t, fill_r1, fill_r0, fill_x1, fill_x0, \
		      copy_1, copy_0, dump_1, dump_0, membw)
}
set print

set multiplot layout 1,3 title sprintf('Lab 3: time per phase and pass against threads (fillcopy, %.3g MiB buffer, 10 files, 4 KiB pages; lines: medians)', mib)
set xlabel 'threads'
set ylabel 'elapsed time per pass (ms, log scale)'
set logscale y
set grid
set xrange [0.5:N + 0.5]
set xtics 1
# the keys below the panels, clear of the points; the same bottom margin
# in the three, so that their plots line up
set key below font ',8' maxcols 1
set bmargin 8

set title 'fill: random bytes'
plot $MED using 'threads':'fill_r1' with lines lw 2 lc rgb '#d62728' title 'rand(), prefaulted', \
     $MED using 'threads':'fill_r0' with lines lw 2 dt 2 lc rgb '#d62728' title (R0 > 0 ? 'rand(), first touch' : ''), \
     $MED using 'threads':'fill_x1' with lines lw 2 lc rgb '#1f77b4' title 'xoshiro, prefaulted', \
     $MED using 'threads':'fill_x0' with lines lw 2 dt 2 lc rgb '#1f77b4' title 'xoshiro, first touch', \
     F using 'threads':(ms('fill', 'rand', 1, 0)) with points pt 7 ps 0.5 lc rgb '#d62728' notitle, \
     F using 'threads':(ms('fill', 'rand', 0, 0)) with points pt 6 ps 0.5 lc rgb '#d62728' notitle, \
     F using 'threads':(ms('fill', 'xoshiro', 1, 0)) with points pt 7 ps 0.5 lc rgb '#1f77b4' notitle, \
     F using 'threads':(ms('fill', 'xoshiro', 0, 0)) with points pt 6 ps 0.5 lc rgb '#1f77b4' notitle

set title 'copy: memcpy per chunk (xoshiro runs)'
plot $MED using 'threads':'copy_1' with lines lw 2 lc rgb '#2ca02c' title 'prefaulted', \
     $MED using 'threads':'copy_0' with lines lw 2 dt 2 lc rgb '#2ca02c' title 'first touch', \
     $MED using 'threads':'membw' with lines lw 1.5 dt 3 lc rgb 'black' title 'plain memcpy (membw)', \
     F using 'threads':(ms('copy', 'xoshiro', 1, 0)) with points pt 7 ps 0.5 lc rgb '#2ca02c' notitle, \
     F using 'threads':(ms('copy', 'xoshiro', 0, 0)) with points pt 6 ps 0.5 lc rgb '#2ca02c' notitle

set title 'dump: write the files (xoshiro runs)'
plot $MED using 'threads':'dump_1' with lines lw 2 lc rgb '#9467bd' title 'prefaulted', \
     $MED using 'threads':'dump_0' with lines lw 2 dt 2 lc rgb '#9467bd' title 'first touch', \
     F using 'threads':(ms('dump', 'xoshiro', 1, 0)) with points pt 7 ps 0.5 lc rgb '#9467bd' notitle, \
     F using 'threads':(ms('dump', 'xoshiro', 0, 0)) with points pt 6 ps 0.5 lc rgb '#9467bd' notitle
unset multiplot
