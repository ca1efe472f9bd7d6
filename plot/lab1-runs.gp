# Lab 1: the run length follows the stdio buffer size.
# Each point is the median run length of one writer in one trial.
set datafile separator ','
set title "Lab 1: two writers, one file: how long are the runs?"
set xlabel "stdio buffer size (bytes, log scale)"
set ylabel "median run length (lines, log scale)"
set logscale xy 2
set format x "2^{%L}"
set format y "2^{%L}"
set key top left
set grid

# stdio's default buffer is the file's st_blksize, recorded in data/machine.txt.
blksize = real(system("sed -n 's/^scratch_dir_st_blksize: //p' data/machine.txt"))
csv = 'data/lab1.csv'

# Columns: 1 experiment, 3 buffer_bytes, 5 writer, 16 median_run_lines.
# Unbuffered (-b 0) writes each 2-byte line alone: drawn at 2 bytes.
plot x / 2 with lines dashtype 2 lc rgb "gray40" title "one full buffer per run (2 bytes a line)", \
     csv skip 1 using (strcol(1) eq "buffer" && $3 > 0 ? $3 : NaN):16 \
         with points pt 7 ps 0.8 lc rgb "#1f77b4" title "-b BYTES", \
     csv skip 1 using (strcol(1) eq "buffer" && $3 == 0 ? 2 : NaN):16 \
         with points pt 5 ps 1 lc rgb "#d62728" title "-b 0 (unbuffered)", \
     csv skip 1 using (strcol(1) eq "default" ? blksize : NaN):16 \
         with points pt 9 ps 1.5 lc rgb "#2ca02c" title sprintf("stdio default (st\\_blksize = %d)", blksize)
