# A/B comparison: per order, A and B side by side with CI whiskers.
# datafile columns: x label a a_lo a_hi b b_lo b_hi
# also: ylabel_text, label_a, label_b
load gp_dir . '/common.gp'
set xlabel 'folio order (folio size)'
set ylabel ylabel_text
set style fill solid 0.85 border lc rgb '#555555'
set boxwidth 0.35
set yrange [0:*]
set offsets 0.5, 0.5, 0, 0
plot datafile using 1:(NaN):xtic(2) notitle, \
     '' using ($1 - 0.18):3 with boxes lc rgb '#1b9e77' title label_a, \
     '' using ($1 + 0.18):6 with boxes lc rgb '#7570b3' title label_b, \
     '' using ($1 - 0.18):3:4:5 with yerrorbars lc rgb c_ci pt 7 ps 0.4 lw 1.5 title '95 % bootstrap CI', \
     '' using ($1 + 0.18):6:7:8 with yerrorbars lc rgb c_ci pt 7 ps 0.4 lw 1.5 notitle
