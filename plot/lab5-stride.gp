# Lab 5: throughput against stride (the distance from one I/O's start to the
# next's), for 4 KiB and 128 KiB I/Os: reads (left) and writes (right), with
# the two figures the source quotes for its reads, which came from /dev/zero.
# One point per run: the mean of its trials with the 95% confidence interval
# of the mean (Student t, n-1 degrees of freedom); small dots: every trial.
set datafile separator ','
set datafile columnheaders
set datafile missing NaN	# rows of other curves: skipped, the line goes on
csv = 'data/lab5.csv'
ref = 'data/reference/lab5-iomicrobench.csv'

# Colours as in the other Lab 5 figures: green buffered, blue O_DIRECT;
# solid 4 KiB I/Os, dashed 128 KiB.
# Rows of one curve; the first trial's row also carries the run's summary.
on(e, s) = strcol("experiment") eq e && strcol("series") eq s
mean(e, s) = on(e, s) && column("trial") == 1 ? column("stride_bytes") : NaN
trial(e, s) = on(e, s) ? column("stride_bytes") : NaN

set logscale x 2
set logscale y 10
set format y "%g"
set xtics ("4K" 4096, "16K" 16384, "64K" 65536, "256K" 262144, "1M" 1048576, \
           "4M" 4194304, "16M" 16777216, "64M" 67108864, "256M" 268435456)
set xlabel "stride (bytes from the start of one I/O to the next)"
set ylabel "throughput (bytes/ns = GB/s, log scale)"
set grid
set offsets graph 0.04, graph 0.04, graph 0.3, 0	# room for the key above the data
set key top left samplen 2
set multiplot layout 1,2 title "Lab 5: strided I/O, throughput against stride (4 KiB and 128 KiB I/Os)"

set title "read"
kinds = "cold direct"
plot for [i=1:2] csv using (trial("read-stride", word(kinds, i)."-4K")):"bytes_per_ns" \
         with points pt 7 ps 0.4 lc i + 1 notitle, \
     for [i=1:2] csv using (trial("read-stride", word(kinds, i)."-128K")):"bytes_per_ns" \
         with points pt 5 ps 0.4 lc i + 1 notitle, \
     for [i=1:2] csv using (mean("read-stride", word(kinds, i)."-4K")):"mean_bytes_per_ns":"ci95_bytes_per_ns" \
         with yerrorlines pt 7 lc i + 1 title word(kinds, i)." 4 KiB", \
     for [i=1:2] csv using (mean("read-stride", word(kinds, i)."-128K")):"mean_bytes_per_ns":"ci95_bytes_per_ns" \
         with yerrorlines pt 5 dt 2 lc i + 1 title word(kinds, i)." 128 KiB", \
     ref using (strcol("experiment") eq "read-stride" ? column("stride_bytes") : NaN):"bytes_per_ns" \
         with points pt 9 ps 1.5 lc rgb "black" title "source (/dev/zero, M3)"

set title "write"
kinds = "fsync-end direct"
plot for [i=1:2] csv using (trial("write-stride", word(kinds, i)."-4K")):"bytes_per_ns" \
         with points pt 7 ps 0.4 lc i + 1 notitle, \
     for [i=1:2] csv using (trial("write-stride", word(kinds, i)."-128K")):"bytes_per_ns" \
         with points pt 5 ps 0.4 lc i + 1 notitle, \
     for [i=1:2] csv using (mean("write-stride", word(kinds, i)."-4K")):"mean_bytes_per_ns":"ci95_bytes_per_ns" \
         with yerrorlines pt 7 lc i + 1 title word(kinds, i)." 4 KiB", \
     for [i=1:2] csv using (mean("write-stride", word(kinds, i)."-128K")):"mean_bytes_per_ns":"ci95_bytes_per_ns" \
         with yerrorlines pt 5 dt 2 lc i + 1 title word(kinds, i)." 128 KiB"
unset multiplot
