# lab1-lost.gp - class figure, Lab 1: how many lines each writer lost in
# overwrite mode (no O_APPEND), every writer of every trial of the class.
# Run by grading/classresults (make class) in CLASS/plot:
#   gnuplot -c lab1-lost.gp OUT.png CAPTION
set terminal pngcairo size 1100,650 font 'sans,10' noenhanced
set output ARG1
set datafile separator ','
set datafile columnheaders

# the note under the title, clear of the bars however tall they grow
set title "Lab 1, the class: lines lost without O_APPEND (overwrite mode)\n\nTogether the two writers lose one writer's worth (the file keeps one writer's length):\nwhat varies is how the loss splits between them."
set xlabel "lines lost by one writer in one trial (% of the lines it wrote; bins of 5%)"
set ylabel "writers x trials"
set xrange [0:100]
set yrange [0:*]
set grid ytics
set style fill solid 0.7 border -1
set boxwidth 4.6
set bmargin 7
set label 2 ARG2 at screen 0.5, screen 0.03 center font ',9'
plot 'lab1-lost-bins.dat' using 'pct':'count' with boxes lc rgb '#1f77b4' notitle
