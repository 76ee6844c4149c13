# mthpscope record: per VMA two stacked bars, the share of its samples and
# the share of its memory at each folio order (then partial, zero/other,
# unmapped), an empty bar between VMAs.
# datafile: label, then % per order column, partial, other, unmapped.
# also: ncols, orders ('0 4': the order of each column), nbars.
load gp_dir . '/common.gp'
fig_w = nbars * 45 + 300
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
set yrange [0:100]
set ylabel ylabel_text
set xtics rotate by -45 scale 0 font ',9'
set bmargin 10
set key outside right top vertical box title 'folio order'
set rmargin 20
plot for [i = 1:ncols] datafile using (column(i + 1)):xtic(1) lt i title sprintf('order %s', word(orders, i)), \
	datafile using (column(ncols + 2)) lc rgb '#bbbbbb' title 'partial', \
	datafile using (column(ncols + 3)) lc rgb '#777777' title 'zero/other', \
	datafile using (column(ncols + 4)) lc rgb '#ffffff' title 'unmapped'
