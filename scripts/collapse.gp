# Order mass over time, one panel per max_ptes_none value (stacked areas).
# Called by plot_collapse() (src/plot.c) with:
#   datafile  blocks separated by two blank lines, one per run; columns:
#             t_s, then the cumulative MiB up to each order (ascending)
#   outfile, term ("pngcairo", "svg", "pdfcairo")
#   nruns, ncols  runs (blocks) and order columns
#   orders    the orders of the columns, space separated ("0 4 9")
#   titles    max_ptes_none of each run, space separated
#   header    the plot title
set terminal term size 900, (280 * nruns + 60)
set output outfile
set termoption noenhanced
set datafile separator whitespace
set key outside right top title "folio order"
set xlabel "time since collapse started (s)"
set ylabel "span memory (MiB)"
set grid ytics
set style fill solid 0.85 noborder
set multiplot layout nruns, 1 title header
do for [k = 0:nruns - 1] {
	set title sprintf("max_ptes_none %s", word(titles, k + 1))
	# Largest cumulative first: each lower layer is drawn over the one above.
	plot for [i = ncols:1:-1] datafile index k using 1:(column(i + 1)) \
		with filledcurves x1 lc i title sprintf("order %s", word(orders, i))
}
unset multiplot
