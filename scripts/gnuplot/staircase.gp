# The span staircase: the primary metric against the span (log x), one line
# per order. datafile: one block per order (two blank lines between), first
# line the order's title in quotes; columns: span_MiB median lo hi.
# also: ylabel_text, nblocks
load gp_dir . '/common.gp'
set logscale x 2
set xlabel 'span (MiB, log scale)'
set ylabel ylabel_text
set bmargin -1
set key outside right top vertical
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot for [i=0:nblocks-1] datafile index i using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 0.8 \
     title columnheader(1)
