# Lab 5: random I/O (offsets drawn uniformly, with replacement), throughput
# against I/O size: reads (left) and writes (right), with the source's best
# random-write figure (an fsync after every write, on an M3 MacBook Air SSD).
# One point per run: the mean of its trials with the 95% confidence interval
# of the mean (Student t, n-1 degrees of freedom); small dots: every trial.
set datafile separator ','
set datafile columnheaders
set datafile missing NaN	# rows of other curves: skipped, the line goes on
csv = 'data/lab5.csv'
ref = 'data/reference/lab5-iomicrobench.csv'

# Rows of one curve; the first trial's row also carries the run's summary.
on(e, s) = strcol("experiment") eq e && strcol("series") eq s
mean(e, s) = on(e, s) && column("trial") == 1 ? column("io_bytes") : NaN
trial(e, s) = on(e, s) ? column("io_bytes") : NaN

stats ref using (strcol("experiment") eq "random-write" ? column("bytes_per_ns") : NaN) nooutput
source_best = STATS_max

set logscale x 2
set logscale y 10
set format y "%g"
set xtics ("4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1048576, \
           "4M" 4194304, "16M" 16777216, "64M" 67108864, "128M" 134217728)
set xlabel "I/O size (bytes)"
set ylabel "throughput (bytes/ns = GB/s, log scale)"
set grid
set offsets graph 0.04, graph 0.04, graph 0.3, 0	# room for the key above the data
set key top left samplen 2
set multiplot layout 1,2 title "Lab 5: random I/O, throughput against I/O size"

set title "read"
reads = "cached cold direct"
plot for [i=1:words(reads)] csv using (trial("random-read", word(reads, i))):"bytes_per_ns" \
         with points pt 7 ps 0.4 lc i notitle, \
     for [i=1:words(reads)] csv using (mean("random-read", word(reads, i))):"mean_bytes_per_ns":"ci95_bytes_per_ns" \
         with yerrorlines pt 7 lc i title word(reads, i)

set title "write"
writes = "cached fsync-end direct fsync-each"
plot for [i=1:words(writes)] csv using (trial("random-write", word(writes, i))):"bytes_per_ns" \
         with points pt 7 ps 0.4 lc i notitle, \
     for [i=1:words(writes)] csv using (mean("random-write", word(writes, i))):"mean_bytes_per_ns":"ci95_bytes_per_ns" \
         with yerrorlines pt 7 lc i title word(writes, i), \
     source_best with lines dt 2 lw 2 lc rgb "black" title "source's best (fsync each, M3)"
unset multiplot
