# lab3-speedup.gp - Lab 3: speedup of each fillcopy phase against the number of
# threads, prefaulted runs: the median time with 1 thread divided by each
# trial's time (points), and by the median time (lines). Beside them, dashed,
# the speedups in the source's published table (i5-3470, 4 cores, Windows 10:
# data/reference/lab3-i5.csv), and the ideal: N threads, N times faster.
set datafile separator ','
F = 'data/lab3.csv'
R = 'data/reference/lab3-i5.csv'

# Elapsed time per pass over the buffer (every phase of a prefaulted
# xoshiro run goes --passes times over it) of the rows of one phase and generator, with t
# threads (t = 0: any); the other rows give 1/0, which gnuplot leaves out.
# 4 KiB pages only. rand() runs only at the thread counts the lab ran it at.
wall(phase, rng, t) = strcol('phase') eq phase && strcol('rng') eq rng && \
	column('prefault') == 1 && strcol('pages') eq '4k' && \
	(t == 0 || column('threads') == t) ? column('wall_s') / column('passes') : 1/0

stats F using 'threads' nooutput
N = int(STATS_max)
stats F using (strcol('rng') eq 'rand' && column('prefault') == 1 ? column('threads') : 0) nooutput
RN = STATS_max
stats F using (wall('fill', 'xoshiro', 1)) nooutput; fill_x1 = STATS_median
stats F using (wall('fill', 'rand', 1)) nooutput; fill_r1 = STATS_median
stats F using (wall('copy', 'xoshiro', 1)) nooutput; copy_1 = STATS_median
stats F using (wall('dump', 'xoshiro', 1)) nooutput; dump_1 = STATS_median
# The source's 1-thread times: its first row.
stats R using 'fill_ms' every ::0::0 nooutput; i5_fill1 = STATS_max
stats R using 'copy_ms' every ::0::0 nooutput; i5_copy1 = STATS_max
stats R using 'dump_ms' every ::0::0 nooutput; i5_dump1 = STATS_max

# Speedups of the medians, as a table $MED whose columns are named like the series.
set print $MED
print 'threads,fill_x,fill_r,copy,dump'
do for [t = 1:N] {
	stats F using (wall('fill', 'xoshiro', t)) nooutput; fill_x = fill_x1 / STATS_median
	fill_r = NaN
	if (t <= RN) { stats F using (wall('fill', 'rand', t)) nooutput; fill_r = fill_r1 / STATS_median }
	stats F using (wall('copy', 'xoshiro', t)) nooutput; copy = copy_1 / STATS_median
	stats F using (wall('dump', 'xoshiro', t)) nooutput; dump = dump_1 / STATS_median
	print sprintf('%d,%g,%g,%g,%g', t, fill_x, fill_r, copy, dump)
}
set print

# The machine's core count, from the description the lab writes beside the
# data ("key: value" lines, read as data split at ':'; 0 if it is missing).
set datafile separator ':'
stats 'data/machine.txt' using (strcol(1) eq 'cores' ? column(2) : 0) nooutput
cores = STATS_max
set datafile separator ','
if (cores > 0) {
	set arrow from cores, graph 0 to cores, graph 1 nohead dt 3 lc rgb 'gray40'
	set label sprintf('%d cores', cores) at cores, graph 0.97 left offset 0.5, 0 textcolor rgb 'gray40'
}

set title 'Lab 3: speedup against threads: this machine, prefaulted (solid), and the source''s i5-3470 (dashed)'
set xlabel 'threads'
set ylabel 'speedup (time with 1 thread / time with N)'
set xrange [0.5:(N > 9 ? N : 9) + 0.5]
set yrange [0:*]
set xtics 1
set grid
set key top left font ',9'

plot x with lines lw 1 lc rgb 'black' title 'ideal: N times faster', \
     $MED using 'threads':'fill_x' with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'fill, xoshiro', \
     $MED using 'threads':'fill_r' with linespoints lw 2 pt 7 lc rgb '#d62728' title 'fill, rand()', \
     $MED using 'threads':'copy' with linespoints lw 2 pt 7 lc rgb '#2ca02c' title 'copy, memcpy', \
     $MED using 'threads':'dump' with linespoints lw 2 pt 7 lc rgb '#9467bd' title 'dump', \
     F using 'threads':(fill_x1 / wall('fill', 'xoshiro', 0)) with points pt 7 ps 0.4 lc rgb '#1f77b4' notitle, \
     F using 'threads':(fill_r1 / wall('fill', 'rand', 0)) with points pt 7 ps 0.4 lc rgb '#d62728' notitle, \
     F using 'threads':(copy_1 / wall('copy', 'xoshiro', 0)) with points pt 7 ps 0.4 lc rgb '#2ca02c' notitle, \
     F using 'threads':(dump_1 / wall('dump', 'xoshiro', 0)) with points pt 7 ps 0.4 lc rgb '#9467bd' notitle, \
     R using 'threads':(i5_fill1 / column('fill_ms')) with linespoints lw 1.5 dt 2 pt 6 lc rgb '#d62728' title 'i5: fill, MSVC rand() (a state per thread)', \
     R using 'threads':(i5_copy1 / column('copy_ms')) with linespoints lw 1.5 dt 2 pt 6 lc rgb '#2ca02c' title 'i5: copy, byte loop', \
     R using 'threads':(i5_dump1 / column('dump_ms')) with linespoints lw 1.5 dt 2 pt 6 lc rgb '#9467bd' title 'i5: dump'
