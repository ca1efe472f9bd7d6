# lab3-ceiling.gp - Lab 3: the fill and the copy against the machine's
# ceiling. fillcopy's prefaulted fill (xoshiro) and copy (memcpy), 4 KiB
# pages, as a fraction of membw's store (memset) and copy (memcpy)
# bandwidth with as many threads: medians of MiB/s divided. 1 is all the
# memory system gives; far below it, something else (the generator, the
# cores) sets the pace. The dotted line is make bench's goal, 0.8.
set datafile separator ','
F = 'data/lab3.csv'
M = 'data/lab3-membw.csv'

fc(phase, t) = strcol('rng') eq 'xoshiro' && strcol('phase') eq phase && strcol('pages') eq '4k' && \
	column('prefault') == 1 && column('threads') == t ? column('mib_s') : 1/0
mb(op, t) = strcol('op') eq op && column('threads') == t ? column('mib_s') : 1/0

stats F using 'bytes' nooutput
mib = STATS_max / 1048576
stats F using 'threads' nooutput
N = int(STATS_max)

set print $MED
print 'threads,fill,copy,store_mib_s,copy_mib_s'
top = 1.3	# the y axis reaches the highest fraction (a busy spell of membw can pass 1.3)
do for [t = 1:N] {
	stats F using (fc('fill', t)) nooutput; fill = STATS_median
	stats F using (fc('copy', t)) nooutput; copy = STATS_median
	stats M using (mb('store', t)) nooutput; store_bw = STATS_median
	stats M using (mb('copy', t)) nooutput; copy_bw = STATS_median
	print sprintf('%d,%g,%g,%g,%g', t, fill / store_bw, copy / copy_bw, store_bw, copy_bw)
	if (fill / store_bw + 0.12 > top) { top = fill / store_bw + 0.12 }
	if (copy / copy_bw + 0.12 > top) { top = copy / copy_bw + 0.12 }
}
set print

# Each point's label goes on the side away from the other line's point at
# the same thread count (above the higher one, below the lower), a line of
# text from its point, so that the two labels never sit on each other
# however close the lines come (equal: the copy's above). A label drawn on
# the other side gives NaN.
above(mine) = (mine eq 'copy') == (column('copy') >= column('fill')) ? column(mine) : NaN
below(mine) = (mine eq 'copy') != (column('copy') >= column('fill')) ? column(mine) : NaN

set title sprintf("Lab 3: fill and copy as a fraction of membw's bandwidth with as many threads\n(%.3g MiB, prefaulted, 4 KiB pages; medians; labels: membw's MiB/s)", mib)
set xlabel 'threads'
set ylabel 'fillcopy MiB/s / membw MiB/s'
set xrange [0.5:N + 0.5]
# room below 0 for the labels under a fill near 0 (the tics start at 0)
set yrange [-0.12:top]
set ytics 0, 0.2
set xtics 1
set grid
# the key below the plot, clear of the points
set key below font ',9'

plot 1 with lines lw 1 lc rgb 'black' title 'the ceiling (membw)', \
     0.8 with lines lw 1 dt 3 lc rgb 'gray40' title 'make bench goal (0.8)', \
     $MED using 'threads':'fill' with linespoints lw 2 pt 7 lc rgb '#1f77b4' title 'fill (xoshiro) / store (memset)', \
     $MED using 'threads':'copy' with linespoints lw 2 pt 7 lc rgb '#2ca02c' title 'copy / copy (memcpy)', \
     $MED using 'threads':(above('fill')):(sprintf('%.0f', column('store_mib_s'))) with labels offset 0,1 font ',8' tc rgb '#1f77b4' notitle, \
     $MED using 'threads':(below('fill')):(sprintf('%.0f', column('store_mib_s'))) with labels offset 0,-1 font ',8' tc rgb '#1f77b4' notitle, \
     $MED using 'threads':(above('copy')):(sprintf('%.0f', column('copy_mib_s'))) with labels offset 0,1 font ',8' tc rgb '#2ca02c' notitle, \
     $MED using 'threads':(below('copy')):(sprintf('%.0f', column('copy_mib_s'))) with labels offset 0,-1 font ',8' tc rgb '#2ca02c' notitle
