# Gain against memory cost per order: x the sparse RSS as a multiple of
# order 0's (log), y the gain in % with its CI; points labelled with sizes.
# datafile columns: bloat_x label gain% lo% hi% recommended(0/1) fit% (not drawn here)
load gp_dir . '/common.gp'
set logscale x 2
set xlabel 'sparse-access RSS as a multiple of order 0 (log scale; cost)'
set ylabel ylabel_text
set offsets graph 0.05, graph 0.08, graph 0.08, graph 0.05
plot datafile using 1:3:4:5 with yerrorbars lc rgb c_bar pt 7 ps 1.2 title 'gain with 95 % CI', \
     '' using 1:($6 == 1 ? $3 : 1/0) with points lc rgb c_rec pt 7 ps 2 title rec_title, \
     '' using 1:3:2 with labels offset 0,1.2 notitle
