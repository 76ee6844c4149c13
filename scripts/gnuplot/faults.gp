# Fault side: page faults per trial per order (log y), with CI whiskers,
# each bar labelled with the faults saved against order 0.
# datafile columns: x label median lo hi saving_label
load gp_dir . '/common.gp'
set xlabel 'folio order (folio size)'
set ylabel ylabel_text
set logscale y 10
set style fill solid 0.85 border lc rgb '#555555'
set boxwidth 0.65
set offsets 0.5, 0.5, 0, 0
set yrange [*:*]
plot datafile using 1:3:xtic(2) with boxes lc rgb c_bar title 'page faults per trial (median)', \
     '' using 1:3:4:5 with yerrorbars lc rgb c_ci pt 7 ps 0.4 lw 1.5 title '95 % bootstrap CI', \
     '' using 1:3:6 with labels offset 0,0.8 notitle
