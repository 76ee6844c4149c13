# The measured span staircase (solid, left axis) with the TLB model's
# predicted last-level miss ratio over it (dashed, right axis), per order.
# datafile: 2 * nblocks blocks (two blank lines between), first line the
# block's title in quotes: the measured blocks (span_MiB median lo hi), then
# the model's (span_MiB miss_ratio) in the same order of orders.
# also: ylabel_text, y2label_text, nblocks
load gp_dir . '/common.gp'
set logscale x 2
set xlabel 'span (MiB, log scale)'
set ylabel ylabel_text
set y2label y2label_text
set y2range [0:1.05]
set y2tics
set ytics nomirror
set yrange [0:*]
set bmargin -1
set key outside right top vertical
set offsets graph 0.05, graph 0.05, 0, 0
plot for [i=0:nblocks-1] datafile index i using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 0.8 \
         lc i + 1 title columnheader(1), \
     for [i=0:nblocks-1] datafile index (i + nblocks) using 1:2 axes x1y2 with linespoints \
         dt 2 lw 1.5 pt 6 ps 0.8 lc i + 1 title columnheader(1)
