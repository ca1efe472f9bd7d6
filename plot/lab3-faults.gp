# lab3-faults.gp - Lab 3: what page faults cost. The xoshiro fill and copy
# with 4 KiB pages faulted on first touch inside the timing, the same
# prefaulted (--prefault), and with huge pages faulted on first touch
# (--pages huge: one fault maps 2 MiB where the kernel allows it). Left:
# elapsed time; right: the page faults counted in the same phases. Lines:
# medians of the trials; points: each trial.
set datafile separator ','
F = 'data/lab3.csv'

# Column col of the xoshiro rows of one phase, page size and prefault
# setting, with t threads (t = 0: any); the other rows give 1/0.
val(col, phase, pages, pre, t) = strcol('rng') eq 'xoshiro' && strcol('phase') eq phase && \
	strcol('pages') eq pages && column('prefault') == pre && \
	(t == 0 || column('threads') == t) ? column(col) : 1/0
# per pass over the buffer: prefaulted runs go --passes times over it
ms(phase, pages, pre, t) = 1000 * val('wall_s', phase, pages, pre, t) / val('passes', phase, pages, pre, t)
# Faults + 1: a prefaulted phase has none, which a log scale cannot show.
nf(phase, pages, pre, t) = val('faults', phase, pages, pre, t) + 1

stats F using 'bytes' nooutput
mib = STATS_max / 1048576
stats F using 'threads' nooutput
N = int(STATS_max)

# Medians per thread count: time (ms) and faults + 1 of the fill (f) and
# copy (c), 4 KiB first touch (4k), prefaulted (pre) and huge pages (huge).
set print $MED
print 'threads,f4k,c4k,fpre,cpre,fhuge,chuge,nf4k,nc4k,nfpre,ncpre,nfhuge,nchuge'
do for [t = 1:N] {
	stats F using (ms('fill', '4k', 0, t)) nooutput; f4k = STATS_median
	stats F using (ms('copy', '4k', 0, t)) nooutput; c4k = STATS_median
	stats F using (ms('fill', '4k', 1, t)) nooutput; fpre = STATS_median
	stats F using (ms('copy', '4k', 1, t)) nooutput; cpre = STATS_median
	stats F using (ms('fill', 'huge', 0, t)) nooutput; fhuge = STATS_median
	stats F using (ms('copy', 'huge', 0, t)) nooutput; chuge = STATS_median
	stats F using (nf('fill', '4k', 0, t)) nooutput; nf4k = STATS_median
	stats F using (nf('copy', '4k', 0, t)) nooutput; nc4k = STATS_median
	stats F using (nf('fill', '4k', 1, t)) nooutput; nfpre = STATS_median
	stats F using (nf('copy', '4k', 1, t)) nooutput; ncpre = STATS_median
	stats F using (nf('fill', 'huge', 0, t)) nooutput; nfhuge = STATS_median
	stats F using (nf('copy', 'huge', 0, t)) nooutput; nchuge = STATS_median
	print sprintf('%d,%g,%g,%g,%g,%g,%g,%g,%g,%g,%g,%g,%g', t, f4k, c4k, fpre, cpre, fhuge, chuge, \
		      nf4k, nc4k, nfpre, ncpre, nfhuge, nchuge)
}
set print

set multiplot layout 1,2 title sprintf('Lab 3: page faults and what they cost (fillcopy, xoshiro, %.3g MiB; solid: fill, dashed: copy; lines: medians)', mib)
set xlabel 'threads'
set logscale y
set grid
set xrange [0.5:N + 0.5]
set xtics 1
# the keys below the panels, clear of the points; the same bottom margin
# in both, so that their plots line up
set key below font ',8' maxcols 1
set bmargin 6
A = '#d62728'; P = '#1f77b4'; H = '#2ca02c'

set title 'elapsed time per pass over the buffer'
set ylabel 'elapsed time per pass (ms, log scale)'
plot $MED using 'threads':'f4k' with lines lw 2 lc rgb A title '4 KiB pages, first touch', \
     $MED using 'threads':'c4k' with lines lw 2 dt 2 lc rgb A notitle, \
     $MED using 'threads':'fpre' with lines lw 2 lc rgb P title '4 KiB pages, --prefault', \
     $MED using 'threads':'cpre' with lines lw 2 dt 2 lc rgb P notitle, \
     $MED using 'threads':'fhuge' with lines lw 2 lc rgb H title 'huge pages, first touch', \
     $MED using 'threads':'chuge' with lines lw 2 dt 2 lc rgb H notitle, \
     F using 'threads':(ms('fill', '4k', 0, 0)) with points pt 7 ps 0.4 lc rgb A notitle, \
     F using 'threads':(ms('copy', '4k', 0, 0)) with points pt 6 ps 0.4 lc rgb A notitle, \
     F using 'threads':(ms('fill', '4k', 1, 0)) with points pt 7 ps 0.4 lc rgb P notitle, \
     F using 'threads':(ms('copy', '4k', 1, 0)) with points pt 6 ps 0.4 lc rgb P notitle, \
     F using 'threads':(ms('fill', 'huge', 0, 0)) with points pt 7 ps 0.4 lc rgb H notitle, \
     F using 'threads':(ms('copy', 'huge', 0, 0)) with points pt 6 ps 0.4 lc rgb H notitle

set title 'page faults in the phase'
set ylabel 'minor page faults + 1 (log scale)'
plot $MED using 'threads':'nf4k' with linespoints lw 2 pt 7 lc rgb A title '4 KiB pages, first touch', \
     $MED using 'threads':'nc4k' with linespoints lw 2 dt 2 pt 6 lc rgb A notitle, \
     $MED using 'threads':'nfpre' with linespoints lw 2 pt 7 lc rgb P title '4 KiB pages, --prefault', \
     $MED using 'threads':'ncpre' with linespoints lw 2 dt 2 pt 6 lc rgb P notitle, \
     $MED using 'threads':'nfhuge' with linespoints lw 2 pt 7 lc rgb H title 'huge pages, first touch', \
     $MED using 'threads':'nchuge' with linespoints lw 2 dt 2 pt 6 lc rgb H notitle
unset multiplot
