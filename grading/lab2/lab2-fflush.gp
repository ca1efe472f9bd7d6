# lab2-fflush.gp - class figure, Lab 2: what fflush() before every unlock
# costs, per batch size K: each submission's median time with the flush over
# its median time without (sweep experiment). Boxes: quartiles, whiskers:
# min-max, black: the median; points: every submission.
#   gnuplot -c lab2-fflush.gp OUT.png CAPTION      (in CLASS/plot)
set terminal pngcairo size 1100,650 font 'sans,10' noenhanced
set output ARG1
set datafile separator ','
set datafile columnheaders

stats 'lab2-fflush-boxes.dat' using 'x' nooutput
set xrange [0.4:STATS_max + 0.6]
set title "Lab 2, the class: the cost of fflush before every unlock, per batch size K"
set xlabel "lines per lock, K (submissions drawn)"
set ylabel "elapsed time with fflush / without (medians of each submission; log scale)"
set logscale y
set format y '%g'
set grid ytics
set boxwidth 0.5 absolute
set style fill empty
set bmargin 7
set key top right
set offsets 0, 0, graph 0.15, 0	# room at the top for the key, above every point
set label 1 ARG2 at screen 0.5, screen 0.03 center font ',9'
plot 'lab2-fflush-boxes.dat' using 'x':'q1':'min':'max':'q3':xtic(sprintf("K = %s (%d)", strcol('label'), column('n'))) \
	with candlesticks whiskerbars lw 1.5 lc rgb '#1f77b4' title 'quartiles, min to max', \
     '' using 'x':'median':'median':'median':'median' with candlesticks lw 3 lc rgb 'black' title 'median', \
     'lab2-fflush-points.dat' using 'x':'value' with points pt 7 ps 0.4 lc rgb '#d62728' title 'each submission', \
     1 with lines dt 2 lc rgb 'gray40' title 'no cost'
