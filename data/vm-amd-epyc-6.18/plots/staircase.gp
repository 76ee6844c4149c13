# written by mthpscope; redraw with: gnuplot staircase.gp (in this directory)
term_type = 'png'
outfile = 'staircase.png'
datafile = 'staircase.dat'
plot_title = 'Span staircase: ns_per_access against the span, per folio order'
plot_subtitle = 'AMD EPYC, Linux 6.18.44-fc-v1045 (VM), PMU none' . "\n" . 'pattern chase-tlb, span 128 MiB; verdict: inconclusive'
ylabel_text = 'ns/access (median, 95 % CI)'
nblocks = 9

# ---- staircase.gp
# The span staircase: the primary metric against the span (log x), one line
# per order. datafile: one block per order (two blank lines between), first
# line the order's title in quotes; columns: span_MiB median lo hi.
# also: ylabel_text, nblocks

# ---- common.gp
# Shared by every mthpscope plot. mthpscope writes NAME.gp with the variables
# term_type ('png' or 'svg'), outfile, datafile, plot_title, plot_subtitle,
# ylabel_text (and a template's own), then a copy of the template in which
# the template's "load gp_dir . '/common.gp'" line is replaced by this file:
# NAME.gp needs nothing else to redraw the figure.
if (term_type eq 'svg') {
	set terminal svg size 1100,650 dynamic noenhanced font 'Sans,12' background rgb 'white'
} else {
	set terminal pngcairo size 1100,650 noenhanced font 'Sans,11' background rgb 'white'
}
set output outfile
set title plot_title . "\n" . plot_subtitle font ',12'
set grid ytics lc rgb '#dddddd'
set border 3
set tics nomirror
set format y '%g'
# the key below the x label, where it hides no bar
set bmargin 7
set key at screen 0.5, screen 0.015 center bottom horizontal box
c_bar = '#1b9e77'
c_rec = '#d95f02'
c_ci = '#222222'
# ten distinguishable colours (the default eight repeat for nine orders)
set linetype 1 lc rgb '#1b9e77' lw 2
set linetype 2 lc rgb '#d95f02' lw 2
set linetype 3 lc rgb '#7570b3' lw 2
set linetype 4 lc rgb '#e7298a' lw 2
set linetype 5 lc rgb '#66a61e' lw 2
set linetype 6 lc rgb '#e6ab02' lw 2
set linetype 7 lc rgb '#a6761d' lw 2
set linetype 8 lc rgb '#666666' lw 2
set linetype 9 lc rgb '#1f78b4' lw 2
set linetype 10 lc rgb '#000000' lw 2
set logscale x 2
set xlabel 'span (MiB, log scale)'
set ylabel ylabel_text
set bmargin -1
set key outside right top vertical
set yrange [0:*]
set offsets graph 0.05, graph 0.05, 0, 0
plot for [i=0:nblocks-1] datafile index i using 1:2:3:4 with yerrorlines lw 2 pt 7 ps 0.8 \
     title columnheader(1)
