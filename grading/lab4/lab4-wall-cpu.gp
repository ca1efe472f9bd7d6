# lab4-wall-cpu.gp - class figure, Lab 4: elapsed time against CPU time per
# MiB written by pwriters (medians over strategies and trials at each
# submission's largest file count), with and without fsync. On the dashed
# line the two agree; above it the program waits (for the disk), which a
# clock() stopwatch never shows.
#   gnuplot -c lab4-wall-cpu.gp OUT.png CAPTION      (in CLASS/plot)
set terminal pngcairo size 1100,700 font 'sans,10' noenhanced
set output ARG1
set datafile separator ','
set datafile columnheaders

set title "Lab 4, the class: elapsed time against CPU time, per MiB written"
set xlabel "CPU seconds per MiB (what clock() measures; log scale)"
set ylabel "elapsed seconds per MiB (log scale)"
set logscale xy
set format xy '%g'
set grid
set key top left
set offsets 0, 0, graph 0.15, 0	# room at the top for the key, above every point
set bmargin 7
set label 1 ARG2 at screen 0.5, screen 0.03 center font ',9'
F = 'lab4-wallcpu.csv'
plot F using 'cpu_s_per_mib':(column('fsync') == 1 ? column('wall_s_per_mib') : NaN) \
	with points pt 7 ps 0.6 lc rgb '#d62728' title 'fsync of every file', \
     F using 'cpu_s_per_mib':(column('fsync') == 0 ? column('wall_s_per_mib') : NaN) \
	with points pt 5 ps 0.6 lc rgb '#1f77b4' title 'no fsync (into the page cache)', \
     x with lines dt 2 lc rgb 'gray40' title 'elapsed = CPU'
