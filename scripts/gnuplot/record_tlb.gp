# mthpscope record: the hottest windows' TLB footprint (source model): per
# window, the entries its memory needs as mapped at the last scan, and what it
# would need at each order the model was asked about; log scale.
# datafile: label (address, VMA), entries now, then entries per order column.
# also: ncols, orders, nbars.
load gp_dir . '/common.gp'
fig_w = nbars * 70 + 300
if (fig_w < 900) { fig_w = 900 }
if (term_type eq 'svg') {
	set terminal svg size fig_w,650 dynamic noenhanced font 'Sans,12' background rgb 'white'
} else {
	set terminal pngcairo size fig_w,650 noenhanced font 'Sans,11' background rgb 'white'
}
set output outfile
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.85 border rgb '#444444'
set logscale y 2
set yrange [0.5:*]
set ylabel ylabel_text
set xtics rotate by -45 scale 0 font ',9'
set bmargin 10
set key outside right top vertical box title 'entries'
set rmargin 22
plot datafile using 2:xtic(1) lc rgb '#333333' title 'as mapped', \
	for [i = 1:ncols] datafile using (column(i + 2)) lt i title sprintf('at order %s', word(orders, i))
