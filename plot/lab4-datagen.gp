# lab4-datagen.gp - datagen: the run times of every run, four writer threads
# versus -z (the main thread writes), as box plots (median, middle half,
# whiskers from min to max) with every run as a point.
# Elapsed time is filling the buffers (the main thread alone, in both modes)
# plus writing them (the only part the threads can overlap); CPU time adds
# up every thread.
set datafile separator ','
set title 'Lab 4: datagen, four writer threads versus sequential (-z): median, middle half, min-max, every run'
set ylabel 'time per run (ms)'
set yrange [0:*]
set xrange [0:12]
set xtics ('elapsed (wall\_s)' 1.5, 'filling buffers (fill\_s)' 4.5, \
	   'writing (write\_s)' 7.5, 'CPU, all threads (cpu\_s)' 10.5) nomirror
set grid ytics
set key top right
set offsets 0, 0, graph 0.12, 0	# room at the top for the key, above every run
# Box: the middle half of the runs, a line at the median; whiskers: min to max.
set style boxplot nooutliers fraction 1.0
set boxwidth 0.6
set jitter spread 0.5
# The value of column col in ms, in rows of the given mode only.
ms(mode, col) = strcol(2) eq mode ? column(col) * 1000 : 1/0
F = 'data/lab4-datagen.csv'

plot F using (1):(ms('threaded', 8)) with boxplot lc 1 title 'four writer threads', \
     F using (2):(ms('sequential', 8)) with boxplot lc 2 title 'sequential (-z)', \
     F using (4):(ms('threaded', 10)) with boxplot lc 1 notitle, \
     F using (5):(ms('sequential', 10)) with boxplot lc 2 notitle, \
     F using (7):(ms('threaded', 11)) with boxplot lc 1 notitle, \
     F using (8):(ms('sequential', 11)) with boxplot lc 2 notitle, \
     F using (10):(ms('threaded', 9)) with boxplot lc 1 notitle, \
     F using (11):(ms('sequential', 9)) with boxplot lc 2 notitle, \
     F using (1):(ms('threaded', 8)) with points pt 7 ps 0.4 lc 1 notitle, \
     F using (2):(ms('sequential', 8)) with points pt 7 ps 0.4 lc 2 notitle, \
     F using (4):(ms('threaded', 10)) with points pt 7 ps 0.4 lc 1 notitle, \
     F using (5):(ms('sequential', 10)) with points pt 7 ps 0.4 lc 2 notitle, \
     F using (7):(ms('threaded', 11)) with points pt 7 ps 0.4 lc 1 notitle, \
     F using (8):(ms('sequential', 11)) with points pt 7 ps 0.4 lc 2 notitle, \
     F using (10):(ms('threaded', 9)) with points pt 7 ps 0.4 lc 1 notitle, \
     F using (11):(ms('sequential', 9)) with points pt 7 ps 0.4 lc 2 notitle
