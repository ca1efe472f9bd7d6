# lab5-iops.gp - class figure, Lab 5: 4 KiB random reads with O_DIRECT, IOPS
# (median of each submission's trials) by the file system of its scratch
# directory; beside it, when the lab has a queue depth (an iodepth column),
# IOPS against the depth.
#   gnuplot -c lab5-iops.gp OUT.png CAPTION CAPTION_DEPTH   (in CLASS/plot)
# An empty caption: that panel has no data, and is left out.
set terminal pngcairo size 1400,700 font 'sans,10' noenhanced
set output ARG1
set datafile separator ','
set datafile columnheaders
fs = strlen(ARG2) > 0
depth = strlen(ARG3) > 0
set multiplot layout 1,(fs + depth) title "Lab 5, the class: 4 KiB random reads, O_DIRECT" margins 0.07, 0.98, 0.2, 0.9 spacing 0.1
set logscale y
set format y '%g'
set grid ytics
set boxwidth 0.5 absolute
# each panel's key in one row under its x label, above its caption: clear
# of the boxes and points
set key horizontal maxrows 1 center center

if (fs) {
stats 'lab5-iops-boxes.dat' using 'x' nooutput
set xrange [0.4:STATS_max + 0.6]
set title "IOPS by the scratch directory's file system"
set ylabel "IOPS (median of the trials; log scale)"
set label 1 ARG2 at screen (depth ? 0.27 : 0.5), screen 0.03 center font ',9'
set key at screen (depth ? 0.27 : 0.5), screen 0.08
plot 'lab5-iops-boxes.dat' using 'x':'q1':'min':'max':'q3':xtic(sprintf("%s (%d)", strcol('label'), column('n'))) \
	with candlesticks whiskerbars lw 1.5 lc rgb '#1f77b4' title 'quartiles, min to max', \
     '' using 'x':'median':'median':'median':'median' with candlesticks lw 3 lc rgb 'black' title 'median', \
     'lab5-iops-points.dat' using 'x':'value' with points pt 7 ps 0.4 lc rgb '#d62728' title 'each submission'
}

if (depth) {
	unset label 1
	stats 'lab5-depth-boxes.dat' using 'x' nooutput
	set xrange [0.4:STATS_max + 0.6]
	set title "IOPS by queue depth"
	set xlabel "requests in flight (submissions drawn)"
	set label 2 ARG3 at screen (fs ? 0.77 : 0.5), screen 0.03 center font ',9'
	set key at screen (fs ? 0.77 : 0.5), screen 0.08
	plot 'lab5-depth-boxes.dat' using 'x':'q1':'min':'max':'q3':xtic(sprintf("%s (%d)", strcol('label'), column('n'))) \
		with candlesticks whiskerbars lw 1.5 lc rgb '#1f77b4' title 'quartiles, min to max', \
	     '' using 'x':'median':'median':'median':'median' with candlesticks lw 3 lc rgb 'black' title 'median', \
	     'lab5-depth-points.dat' using 'x':'value' with points pt 7 ps 0.4 lc rgb '#d62728' title 'each submission'
}
unset multiplot
