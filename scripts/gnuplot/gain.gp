# Per-order gain against order 0 with CI whiskers and the materiality line.
# datafile columns: x label gain% lo% hi% recommended(0/1) fit% (NaN: no fit)
# also: ylabel_text, rec_title, threshold (in %), gain_title (optional: how the
# gain was estimated; the unpaired median when absent), fit_title (optional:
# set when the verdict rests on an isotonic fit that differs from the raw gains)
load gp_dir . '/common.gp'
set xlabel 'folio order (folio size)'
set ylabel ylabel_text
set style fill solid 0.85 border lc rgb '#555555'
set boxwidth 0.65
set offsets 0.5, 0.5, 0, 0
set yrange [*<0:*]  # 0 always shown: gains sit on the zero line, losses below
set xzeroaxis lt -1
# the fit only where set: a line of all-undefined points would warn
fit_plot = exists('fit_title') ? ", datafile using 1:7 with linespoints lw 2 pt 5 ps 0.8 lc rgb '#e7298a' title fit_title" : ''
plot datafile using 1:3:xtic(2) with boxes lc rgb c_bar title (exists('gain_title') ? gain_title : 'gain (median)'), \
     '' using 1:($6 == 1 ? $3 : 1/0) with boxes lc rgb c_rec title rec_title, \
     '' using 1:3:4:5 with yerrorbars lc rgb c_ci pt 7 ps 0.4 lw 1.5 title '95 % bootstrap CI', \
     threshold with lines dt 2 lw 2 lc rgb '#7570b3' title sprintf('materiality threshold (%g %%)', threshold) @fit_plot
