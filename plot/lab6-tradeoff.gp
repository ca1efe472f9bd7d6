# lab6-tradeoff.gp - Lab 6: what each way of saving costs and what it buys.
# Left: the crash states that break the document (holding neither the old
# nor the new one whole, or not the new one once the save had returned),
# per strategy, one bar per persistence model. Right: the median time per
# save (log scale) against those broken states, a point per strategy and
# model (shape: strategy, colour: model): down and to the left is cheap and
# safe, and only safe and log get to zero, by paying for fsync.
# size: 1200,560
set termoption noenhanced	# strategy and model names as written
set datafile separator ','
set datafile columnheaders
states = 'data/lab6-states.csv'
cost = 'data/lab6-cost.csv'
S = 'inplace fflush rename fsync-rename safe log'
M = 'posix ext4-noauto_da_alloc ext4-ordered'

# The median time per save of each strategy, over its trials.
array T[words(S)]
do for [i = 1:words(S)] {
	stats cost using (strcol("strategy") eq word(S, i) ? column("us_per_save") : NaN) nooutput
	T[i] = STATS_median
}
t(s) = sum [i = 1:words(S)] (word(S, i) eq s ? T[i] : 0)
n(s) = sum [i = 1:words(S)] (word(S, i) eq s ? i : 0)
# On the right, a strategy is a point shape (filled circle, square, up and
# down triangles, diamond, pentagon) and a model a colour: names written
# beside the points sat by another strategy's points where two took about
# the same time (inplace and fflush do).
P = '7 5 9 11 13 15'
shape(s) = int(word(P, n(s)))

set multiplot layout 1,2 title 'Lab 6: what fsync buys (data/lab6-states.csv, data/lab6-cost.csv)'
set title 'crash states that break the document'
set ylabel 'broken states'
set yrange [0:*]
set xrange [0.4:words(S) + 0.6]
set xtics () nomirror
do for [i = 1:words(S)] { set xtics add (word(S, i) i) }
set grid ytics
set key top right
set style fill solid 0.8 border -1
set boxwidth 0.25
plot for [m = 1:words(M)] states using (n(strcol("strategy")) + (m - 2) * 0.27):(strcol("model") eq word(M, m) ? column("broken") : NaN) with boxes lc m title word(M, m)

set title 'broken states against the time a save takes (models coloured as on the left)'
set xlabel 'median time per save (us, log scale)'
set logscale x
set autoscale x
set xtics auto
# room below 0 for a name under the points (the tics start at 0)
set yrange [-1:*]
# a tic per state while they are few; beyond 10, gnuplot's own steps (a
# tic per integer up to 61 wrote them over one another)
stats states using 'broken' nooutput
if (STATS_max <= 10) { set ytics 0, 1 } else { set ytics 0, (STATS_max <= 50 ? 5 : 10) }
set offsets graph 0.05, graph 0.1, 1, 0
set key top right title 'strategy (colour: model)' box
# (each model's points are nudged up or down by 0.15 so that none hides
# another)
plot for [m = 1:words(M)] states using (t(strcol("strategy"))):(strcol("model") eq word(M, m) ? column("broken") + (m - 2) * 0.15 : NaN):(shape(strcol("strategy"))) \
	with points pt variable ps 1.5 lc m notitle, \
     for [i = 1:words(S)] NaN with points pt int(word(P, i)) ps 1.5 lc rgb 'black' title word(S, i)
unset multiplot
