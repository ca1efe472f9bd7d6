# Lab 1: what a small buffer costs: elapsed time per writer against buffer size.
set datafile separator ','
set title "Lab 1: time to write the lines, by stdio buffer size"
set xlabel "stdio buffer size (bytes, log scale; unbuffered drawn at 2)"
set ylabel "elapsed time per writer (s, log scale)"
set logscale xy
set key top right
set grid

csv = 'data/lab1.csv'
# Columns: 1 experiment, 3 buffer_bytes, 7 wall_s, 8 user_s, 9 sys_s.
plot csv skip 1 using (strcol(1) eq "buffer" ? ($3 > 0 ? $3 : 2) : NaN):7 \
         with points pt 7 lc rgb "#1f77b4" title "elapsed", \
     csv skip 1 using (strcol(1) eq "buffer" ? ($3 > 0 ? $3 : 2) : NaN):9 \
         with points pt 6 lc rgb "#d62728" title "system CPU", \
     csv skip 1 using (strcol(1) eq "buffer" ? ($3 > 0 ? $3 : 2) : NaN):8 \
         with points pt 4 lc rgb "#2ca02c" title "user CPU"
