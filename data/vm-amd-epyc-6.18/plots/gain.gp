# written by mthpscope; redraw with: gnuplot gain.gp (in this directory)
term_type = 'png'
outfile = 'gain.png'
datafile = 'gain.dat'
plot_title = 'Gain against order 0 in ns_per_access (timing)'
plot_subtitle = 'AMD EPYC, Linux 6.18.44-fc-v1045 (VM), PMU none' . "\n" . 'pattern chase-tlb, span 128 MiB; verdict: inconclusive'
ylabel_text = 'ns/access saved vs order 0 (%)'
rec_title = ''
threshold = 5

# ---- gain.gp
# Per-order gain against order 0 with CI whiskers and the materiality line.
# datafile columns: x label gain% lo% hi% recommended(0/1)
# also: ylabel_text, rec_title, threshold (in %)

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
set xlabel 'folio order (folio size)'
set ylabel ylabel_text
set style fill solid 0.85 border lc rgb '#555555'
set boxwidth 0.65
set offsets 0.5, 0.5, 0, 0
set yrange [*<0:*]  # 0 always shown: gains sit on the zero line, losses below
set xzeroaxis lt -1
plot datafile using 1:3:xtic(2) with boxes lc rgb c_bar title 'gain (median)', \
     '' using 1:($6 == 1 ? $3 : 1/0) with boxes lc rgb c_rec title rec_title, \
     '' using 1:3:4:5 with yerrorbars lc rgb c_ci pt 7 ps 0.4 lw 1.5 title '95 % bootstrap CI', \
     threshold with lines dt 2 lw 2 lc rgb '#7570b3' title sprintf('materiality threshold (%g %%)', threshold)
