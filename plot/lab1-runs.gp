# Lab 1: the run length follows the stdio buffer size.
# Each point: the median over the trials (both writers) of each writer's
# median run length; whiskers: the smallest and largest. Only trials in
# which the writers interleaved count; the others (one writer's lines all
# before the other's: they tested nothing) are drawn apart, as crosses.
# Diamonds: the run unit, gcd(run_unit_lines) of the setting: every run is
# a whole number of it, even where the scheduler let a writer make many
# writes in a row and the median run is many buffers long.
# size: 960,680
set datafile separator ','
set title "Lab 1: two writers, one file: how long are the runs? (median, min-max whiskers; run unit)"
set xlabel "stdio buffer size (bytes, log scale)"
set ylabel "run length (lines, log scale)"
set logscale xy 2
set format x "2^{%L}"
set format y "2^{%L}"
# the key below the plot, clear of the points
set key below left maxrows 3
set grid
set xrange [1:200000]

# stdio's default buffer is the file's st_blksize, recorded in data/machine.txt.
# machine.txt's "key: value" lines, read as data split at ':' (0 if the key is missing)
set datafile separator ':'
stats 'data/machine.txt' using (strcol(1) eq 'scratch_dir_st_blksize' ? column(2) : 0) nooutput
blksize = STATS_max
set datafile separator ','
csv = 'data/lab1.csv'
# Medians over the interleaved trials, by experiment and buffer (lab1.sh
# writes them with common/table.py).
M = 'data/lab1-runs-medians.csv'
# Where a buffer is drawn: unbuffered (-b 0) writes each 2-byte line alone,
# at 2 bytes; stdio's default at st_blksize.
x(ex, b) = ex eq "default" ? blksize : (b > 0 ? b : 2)
stats csv using (strcol('mode') eq 'append' && column('interleaved') == 0 ? 1 : 0) nooutput
untested = STATS_sum

plot x / 2 with lines dashtype 2 lc rgb "gray40" title "one full buffer per run (2 bytes a line)", \
     M using (strcol("experiment") eq "buffer" ? x("buffer", column("buffer_bytes")) : NaN):'median_run_lines_median':'median_run_lines_min':'median_run_lines_max' \
         with yerrorbars pt 7 ps 0.9 lc rgb "#1f77b4" title "-b BYTES (-b 0: unbuffered, drawn at 2)", \
     M using (strcol("experiment") eq "default" ? blksize : NaN):'median_run_lines_median':'median_run_lines_min':'median_run_lines_max' \
         with yerrorbars pt 9 ps 1.5 lc rgb "#2ca02c" title sprintf("stdio default (st\\_blksize = %d)", blksize), \
     M using (x(strcol("experiment"), column("buffer_bytes"))):(column('run_unit_lines_gcd') > 0 ? column('run_unit_lines_gcd') : NaN) \
         with points pt 13 ps 1.6 lc rgb "#d62728" title "run unit: gcd of the runs' lengths (table's gcd(run\\_unit\\_lines))", \
     csv using (strcol('mode') eq 'append' && column('interleaved') == 0 ? \
         x(strcol('experiment'), column('buffer_bytes')) : NaN):'median_run_lines' \
         with points pt 2 ps 1 lc rgb "gray50" title sprintf("not interleaved: tested nothing (%d writer rows)", untested)
