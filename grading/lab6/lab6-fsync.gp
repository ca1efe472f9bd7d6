# lab6-fsync.gp - class figure, Lab 6: what durability costs, by the kind
# of storage under each submission's scratch directory (machine.txt's
# scratch_dir_storage): the median time per save of the saver's strategies
# that fsync (fsync-rename, safe, log) beside that of those that do not
# (inplace, fflush, rename). Boxes: quartiles, whiskers: min-max, black:
# the median; points: every submission.
#   gnuplot -c lab6-fsync.gp OUT.png CAPTION      (in CLASS/plot)
set terminal pngcairo size 1100,650 font 'sans,10' noenhanced
set output ARG1
set datafile separator ','
set datafile columnheaders

stats 'lab6-save-kinds.dat' using 'x' nooutput
set xrange [0.4:STATS_max + 0.6]
set title "Lab 6, the class: time per save, with fsync and without, by the storage under the scratch directory"
set xlabel "storage (submissions drawn)"
set ylabel "microseconds per save (median of each submission's strategies; log scale)"
set logscale y
set format y '%g'
set grid ytics
set boxwidth 0.3 absolute
set style fill empty
set bmargin 7
set key top left
set offsets 0, 0, graph 0.15, 0	# room at the top for the key, above every point
set label 1 ARG2 at screen 0.5, screen 0.03 center font ',9'
B = 'lab6-save-boxes.dat'
P = 'lab6-save-points.dat'
plot 'lab6-save-kinds.dat' using 'x':(NaN):xtic(sprintf("%s (%d)", strcol('label'), column('n'))) notitle, \
     B using 'x':(column('sync') == 1 ? column('q1') : NaN):'min':'max':'q3' \
	with candlesticks whiskerbars lw 1.5 lc rgb '#d62728' title 'fsync-rename, safe, log (fsync)', \
     B using 'x':(column('sync') == 0 ? column('q1') : NaN):'min':'max':'q3' \
	with candlesticks whiskerbars lw 1.5 lc rgb '#1f77b4' title 'inplace, fflush, rename (no fsync)', \
     B using 'x':'median':'median':'median':'median' with candlesticks lw 3 lc rgb 'black' title 'median', \
     P using 'x':(column('sync') == 1 ? column('value') : NaN) with points pt 7 ps 0.4 lc rgb '#d62728' notitle, \
     P using 'x':(column('sync') == 0 ? column('value') : NaN) with points pt 7 ps 0.4 lc rgb '#1f77b4' notitle
