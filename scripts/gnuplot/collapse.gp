# mthpscope collapse: order mass over time, one panel per max_ptes_none run,
# stacked areas (the top of each band is the cumulative MiB up to its order).
# datafile: one block per run, two blank lines between; columns: t_s, then
# the cumulative MiB up to each order, ascending.
# also: nruns, ncols, orders ('0 9': the order of each column), titles
# ('511 0': max_ptes_none of each run), ylabel_text, ymax (MiB: the span, or
# the most any sample holds) and xmax (s: the end of the longest timeline)
load gp_dir . '/common.gp'
# Up to 8 runs: one column of wide panels. More (a --max-ptes-none sweep
# has up to 32): a grid of 8 rows; past 64 runs (a document written some
# other way) a square grid. The figure stays readable and inside cairo's
# 32767-pixel limit (one column of 130 panels was 33930 pixels high and
# failed; its panel titles had been cut off by a fixed buffer as well).
lay_per_col = nruns <= 64 ? 8 : int(ceil(sqrt(nruns)))
lay_cols = nruns <= 8 ? 1 : int(ceil(nruns * 1.0 / lay_per_col))
lay_rows = int(ceil(nruns * 1.0 / lay_cols))
fig_w = lay_cols == 1 ? 1100 : 560 * lay_cols
fig_h = 260 * lay_rows + 130
if (term_type eq 'svg') {
	set terminal svg size fig_w,fig_h dynamic noenhanced font 'Sans,12' background rgb 'white'
} else {
	set terminal pngcairo size fig_w,fig_h noenhanced font 'Sans,11' background rgb 'white'
}
set output outfile
unset title
set bmargin -1
# Every panel keeps the same right margin, so the axes line up; the key
# (the same orders and colours in every panel) is drawn once, beside the
# first panel, in that margin.
set rmargin 18
set key outside right top vertical box title 'folio order'
set xlabel 'time since the collapse started (s)'
set ylabel ylabel_text
# One scale in every panel, so that panels compare at a glance: RSS that
# doubles from one max_ptes_none to the next shows as twice the height (each
# panel's own autoscale drew both full height).
if (ymax > 0) { set yrange [0:ymax] } else { set yrange [0:*] }
if (xmax > 0) { set xrange [0:xmax] }
set style fill solid 0.85 noborder
set multiplot layout lay_rows, lay_cols rowsfirst title plot_title . "\n" . plot_subtitle
do for [k = 0:nruns - 1] {
	set title sprintf('max_ptes_none %s', word(titles, k + 1))
	if (k > 0) { unset key }
	# Largest cumulative first: each lower band is drawn over the one above.
	# Columns are the same orders in every panel, so colours agree.
	plot for [i = ncols:1:-1] datafile index k using 1:(column(i + 1)) \
		with filledcurves x1 lt i \
		title sprintf('order %s', word(orders, i))
}
unset multiplot
