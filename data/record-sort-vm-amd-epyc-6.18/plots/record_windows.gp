# written by mthpscope; redraw with: gnuplot record_windows.gp (in this directory)
term_type = 'png'
outfile = 'record_windows.png'
datafile = 'record_windows.dat'
plot_title = 'mthpscope record: the hottest 2M windows, samples by folio order'
plot_subtitle = 'page-faults (sw), 2267 samples, kernel 6.18.44-fc-v1252'
ylabel_text = 'samples'
ncols = 3
orders = '0 2 4'
nbars = 20

# ---- record_windows.gp
# mthpscope record: the hottest windows (PMD-sized, aligned), most samples
# first, each a bar of its samples stacked by the folio order they hit.
# datafile: label (address, VMA), then samples per order column, partial,
# other, unmapped. also: ncols, orders, nbars.

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
fig_w = nbars * 55 + 300
if (fig_w < 900) { fig_w = 900 }
if (term_type eq 'svg') {
	set terminal svg size fig_w,650 dynamic noenhanced font 'Sans,12' background rgb 'white'
} else {
	set terminal pngcairo size fig_w,650 noenhanced font 'Sans,11' background rgb 'white'
}
set output outfile
set style data histograms
set style histogram rowstacked
set style fill solid 0.85 border rgb '#444444'
set boxwidth 0.8
set yrange [0:*]
set ylabel ylabel_text
set xtics rotate by -45 scale 0 font ',9'
set bmargin 10
set key outside right top vertical box title 'folio order'
set rmargin 20
plot for [i = 1:ncols] datafile using (column(i + 1)):xtic(1) lt i title sprintf('order %s', word(orders, i)), \
	datafile using (column(ncols + 2)) lc rgb '#bbbbbb' title 'partial', \
	datafile using (column(ncols + 3)) lc rgb '#777777' title 'zero/other', \
	datafile using (column(ncols + 4)) lc rgb '#ffffff' title 'unmapped'
