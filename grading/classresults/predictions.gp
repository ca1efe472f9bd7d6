# predictions.gp - class figure: what the class predicted (predictions.md,
# written before each lab) against what it measured, for the myths the
# labs test, a panel each: threads and one disk (Lab 4: P4.1 per-file
# threads, P4.3 seq, elapsed), fflush and durability (P2.4 Lab 2's fsync
# per 100 lines, P6.2 Lab 6's safe save, P6.3 its in-place save without
# fsync) and clock() as a stopwatch (P4.2: Lab 4's per-file CPU time, what
# clock() reads). A point per submission and prediction; on the diagonal
# the prediction was right, above it too high, below too low. The keys and
# their measurements: spec.PREDICTIONS (grading/classresults/spec.py).
#   gnuplot -c predictions.gp OUT.png CAPTION_DISK CAPTION_FFLUSH CAPTION_CLOCK   (in CLASS/plot)
set terminal pngcairo size 1500,720 font 'sans,10' noenhanced
set output ARG1
set datafile separator ','
set datafile columnheaders
F = 'predictions.csv'
set multiplot layout 1,3 title "The class's predictions against its measurements (each in the unit its line of predictions.md asks for)" \
	margins 0.05, 0.98, 0.33, 0.88 spacing 0.06
set logscale xy
set format xy '%g'
set grid
set size square
set xlabel 'measured (log scale)'
set ylabel 'predicted (log scale)'
# the keys in a row under each panel's x label, above its caption
set key horizontal maxrows 1 center center
at(i) = 0.05 + (i - 0.5) * 0.31	# a panel's middle, for its key and caption
one(k) = strcol('key') eq k ? column('predicted') : NaN
# the diagonal over the panel's whole range, sampled inside it too (a
# segment whose two ends both fall a rounding outside is not drawn)
set samples 50
# A panel without points: its title, its caption and a note.
empty = 'set xrange [1:10]; set yrange [1:10]; set label 2 "no prediction of these to draw" at graph 0.5, graph 0.5 center; plot NaN notitle; unset label 2; set autoscale xy'
# The points of the keys in ks (space-separated), counted: every row counts
# 0 or 1, so stats always has rows (the figure is drawn only when there are).
mine(ks) = sum [i = 1:words(ks)] (strcol('key') eq word(ks, i) ? 1 : 0)
# The same range on both axes (the diagonal at 45 degrees), from the
# panel's points, predicted and measured, with room around them.
both(ks) = sprintf("stats F using (mine('%s') ? column('measured') : NaN):(mine('%s') ? column('predicted') : NaN) nooutput; " \
	. "lo = (STATS_min_x < STATS_min_y ? STATS_min_x : STATS_min_y) / 2; " \
	. "hi = (STATS_max_x > STATS_max_y ? STATS_max_x : STATS_max_y) * 2; " \
	. "set xrange [lo:hi]; set yrange [lo:hi]", ks, ks)

set title "threads and one disk (Lab 4, fsync'd files)"
set key at screen at(1), screen 0.17
set label 1 ARG2 at screen at(1), screen 0.05 center font ',8'
set autoscale xy
stats F using (mine('P4.1 P4.3')) nooutput
if (STATS_sum == 0) { eval empty } else {
eval both('P4.1 P4.3')
plot F using 'measured':(one('P4.1')) with points pt 7 ps 0.6 lc rgb '#d62728' title 'P4.1 per-file threads, s', \
     F using 'measured':(one('P4.3')) with points pt 5 ps 0.6 lc rgb '#1f77b4' title 'P4.3 seq, s', \
     x with lines dt 2 lc rgb 'gray40' title 'predicted = measured'
}

set title "fflush and durability (Lab 2, Lab 6)"
set key at screen at(2), screen 0.17
set label 1 ARG3 at screen at(2), screen 0.05 center font ',8'
set autoscale xy
stats F using (mine('P2.4 P6.2 P6.3')) nooutput
if (STATS_sum == 0) { eval empty } else {
eval both('P2.4 P6.2 P6.3')
plot F using 'measured':(one('P2.4')) with points pt 7 ps 0.6 lc rgb '#9467bd' title 'P2.4 fsync per 100 lines, s', \
     F using 'measured':(one('P6.2')) with points pt 5 ps 0.6 lc rgb '#2ca02c' title 'P6.2 safe save, us', \
     F using 'measured':(one('P6.3')) with points pt 9 ps 0.7 lc rgb '#ff7f0e' title 'P6.3 in-place save, us', \
     x with lines dt 2 lc rgb 'gray40' title 'predicted = measured'
}

set title "clock() as a stopwatch (Lab 4)"
set key at screen at(3), screen 0.17
set label 1 ARG4 at screen at(3), screen 0.05 center font ',8'
set autoscale xy
stats F using (mine('P4.2')) nooutput
if (STATS_sum == 0) { eval empty } else {
eval both('P4.2')
plot F using 'measured':(one('P4.2')) with points pt 7 ps 0.6 lc rgb '#8c564b' title 'P4.2 per-file CPU time (clock()), s', \
     x with lines dt 2 lc rgb 'gray40' title 'predicted = measured'
}
unset multiplot
