# mthpscope collapse: order mass over time, one panel per max_ptes_none run,
# stacked areas (the top of each band is the cumulative MiB up to its order).
# datafile: one block per run, two blank lines between; columns: t_s, then
# the cumulative MiB up to each order, ascending.
# also: nruns, ncols, orders ('0 9': the order of each column), titles
# ('511 0': max_ptes_none of each run), ylabel_text
load gp_dir . '/common.gp'
fig_h = 260 * nruns + 130
if (term_type eq 'svg') {
	set terminal svg size 1100,fig_h dynamic noenhanced font 'Sans,12' background rgb 'white'
} else {
	set terminal pngcairo size 1100,fig_h noenhanced font 'Sans,11' background rgb 'white'
}
set output outfile
unset title
set bmargin -1
set key outside right top vertical box title 'folio order'
set xlabel 'time since the collapse started (s)'
set ylabel ylabel_text
set yrange [0:*]
set style fill solid 0.85 noborder
set multiplot layout nruns, 1 title plot_title . "\n" . plot_subtitle
do for [k = 0:nruns - 1] {
	set title sprintf('max_ptes_none %s', word(titles, k + 1))
	# Largest cumulative first: each lower band is drawn over the one above.
	# Columns are the same orders in every panel, so colours agree.
	plot for [i = ncols:1:-1] datafile index k using 1:(column(i + 1)) \
		with filledcurves x1 lt i \
		title sprintf('order %s', word(orders, i))
}
unset multiplot
