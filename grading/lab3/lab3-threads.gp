# lab3-threads.gp - class figure, Lab 3. Left: the speedup of fillcopy's fill
# (xoshiro, prefaulted) with 2 and 4 threads over 1, by the machine's cores.
# Right: what first touch costs: each submission's fill time at 1 thread
# with page faults minus prefaulted, per GiB, by CPU model.
#   gnuplot -c lab3-threads.gp OUT.png CAPTION_LEFT CAPTION_RIGHT  (in CLASS/plot)
# An empty caption: that panel has no data, and is left out.
set terminal pngcairo size 1400,700 font 'sans,10' noenhanced
set output ARG1
set datafile separator ','
set datafile columnheaders

left = strlen(ARG2) > 0
right = strlen(ARG3) > 0
set multiplot layout 1,(left + right) title "Lab 3, the class: threads and page faults" margins 0.07, 0.98, 0.2, 0.9 spacing 0.2
set grid ytics
if (left) {

stats 'lab3-speedup-boxes.dat' using 'x' nooutput
set xrange [0.4:STATS_max + 0.6]
set title "fill speedup over 1 thread, by cores"
set ylabel "speedup (median time, 1 thread / N threads)"
set yrange [0:*]
set boxwidth 0.5 absolute
set xtics rotate by -30 font ',9'
set key top left
set label 1 ARG2 at screen (right ? 0.27 : 0.5), screen 0.03 center font ',9'
plot 'lab3-speedup-boxes.dat' using 'x':'q1':'min':'max':'q3':xtic(sprintf("%s (%d)", strcol('label'), column('n'))) \
	with candlesticks whiskerbars lw 1.5 lc rgb '#1f77b4' title 'quartiles, min to max', \
     '' using 'x':'median':'median':'median':'median' with candlesticks lw 3 lc rgb 'black' title 'median', \
     'lab3-speedup-points.dat' using 'x':'value' with points pt 7 ps 0.4 lc rgb '#d62728' title 'each submission', \
     2 with lines dt 2 lc rgb 'gray40' title '2x', 4 with lines dt 3 lc rgb 'gray40' title '4x'
}

if (right) {
unset label 1
unset xtics
set xtics auto rotate by 0 font ',10'
set grid xtics ytics
stats 'lab3-touch-boxes.dat' using 'x' nooutput
# an empty row at the top for the key: it hides no CPU's points
set yrange [0.4:STATS_max + 1.6]
set xrange [*:*]
set title "first-touch cost per GiB of fill, by CPU"
set ylabel ""
set xlabel "seconds per GiB (1 thread: first touch minus prefaulted)"
set ytics font ',8'
set key top right opaque box
set label 2 ARG3 at screen (left ? 0.77 : 0.5), screen 0.03 center font ',9'
plot 'lab3-touch-boxes.dat' using 'median':'x':'min':'max':ytic(sprintf("%s (%d)", strcol('label'), column('n'))) \
	with xerrorbars pt 9 ps 2 lc rgb 'black' title 'median, min to max', \
     'lab3-touch-points.dat' using 'value':'x' with points pt 7 ps 0.4 lc rgb '#d62728' title 'each submission'
}
unset multiplot
