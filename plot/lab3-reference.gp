# lab3-reference.gp - Lab 3: this machine beside the source's published table
# (data/reference/lab3-i5.csv: 255 MiB on an i5-3470, 4 cores, Windows 10,
# MSVC 2017; see data/reference/README.md). The buffer sizes may differ, so
# both are drawn as throughput: MiB per second of elapsed time. Solid: this
# machine, prefaulted runs, medians of the trials; dashed, open points: the
# i5. Dotted: membw's plain memcpy() with as many threads (median).
set datafile separator ','
F = 'data/lab3.csv'
M = 'data/lab3-membw.csv'
R = 'data/reference/lab3-i5.csv'

# MiB/s of the prefaulted rows (4 KiB pages) of one phase and generator with
# t threads. rand() runs only at the thread counts the lab ran it at.
mib_s(phase, rng, t) = strcol('phase') eq phase && strcol('rng') eq rng && \
	column('prefault') == 1 && strcol('pages') eq '4k' && column('threads') == t ? \
	column('mib_s') : 1/0
# The i5's MiB/s from its milliseconds in column col.
i5(col) = column('bytes') / 1048576 / (column(col) / 1000)

stats F using 'threads' nooutput
N = int(STATS_max)
stats F using (strcol('rng') eq 'rand' && column('prefault') == 1 ? column('threads') : 0) nooutput
RN = STATS_max

set print $MED
print 'threads,fill_x,fill_r,copy,dump,membw'
do for [t = 1:N] {
	stats F using (mib_s('fill', 'xoshiro', t)) nooutput; fill_x = STATS_median
	fill_r = NaN
	if (t <= RN) { stats F using (mib_s('fill', 'rand', t)) nooutput; fill_r = STATS_median }
	stats F using (mib_s('copy', 'xoshiro', t)) nooutput; copy = STATS_median
	stats F using (mib_s('dump', 'xoshiro', t)) nooutput; dump = STATS_median
	stats M using (strcol('op') eq 'copy' && column('threads') == t ? column('mib_s') : 1/0) nooutput
	print sprintf('%d,%g,%g,%g,%g,%g', t, fill_x, fill_r, copy, dump, STATS_median)
}
set print

set title 'Lab 3: throughput per phase: this machine, prefaulted (solid), and the source''s i5-3470 (dashed)'
set xlabel 'threads'
set ylabel 'MiB/s of elapsed time (log scale)'
set logscale y
set xrange [0.5:(N > 9 ? N : 9) + 0.5]
set xtics 1
set grid
set key below center maxrows 3 font ',9'

plot $MED using 'threads':'fill_x' with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'fill, xoshiro', \
     $MED using 'threads':'fill_r' with linespoints lw 2 pt 7 lc rgb '#d62728' title 'fill, rand()', \
     $MED using 'threads':'copy' with linespoints lw 2 pt 7 lc rgb '#2ca02c' title 'copy, memcpy', \
     $MED using 'threads':'dump' with linespoints lw 2 pt 7 lc rgb '#9467bd' title 'dump', \
     $MED using 'threads':'membw' with lines lw 1.5 dt 3 lc rgb 'black' title 'plain memcpy (membw)', \
     R using 'threads':(i5('fill_ms')) with linespoints lw 1.5 dt 2 pt 6 lc rgb '#d62728' title 'i5: fill, MSVC rand()', \
     R using 'threads':(i5('copy_ms')) with linespoints lw 1.5 dt 2 pt 6 lc rgb '#2ca02c' title 'i5: copy, byte loop', \
     R using 'threads':(i5('dump_ms')) with linespoints lw 1.5 dt 2 pt 6 lc rgb '#9467bd' title 'i5: dump'
