# The TLB model: entries each level needs per folio order (log y), against
# each level's capacity (dashed lines). Source: model.
# datafile columns: x label entries_level1 [entries_level2 [entries_level3]]
# also: nlevels, lvname1..3, cap1..3 (0: not known), ylabel_text, same (1:
# every level needs the same entries: one line)
load gp_dir . '/common.gp'
set xlabel 'folio order (folio size)'
set ylabel ylabel_text
set logscale y 2
set style data linespoints
set offsets 0.5, 0.5, 0, 0
set key outside right top vertical
lvname(i) = i == 1 ? lvname1 : (i == 2 ? lvname2 : lvname3)
cap(i) = i == 1 ? cap1 : (i == 2 ? cap2 : cap3)
ltitle(i) = same ? 'entries needed, every level (model)' : lvname(i) . ' entries needed (model)'
plot for [i=1:(same ? 1 : nlevels)] datafile using 1:(column(i + 2)):xtic(2) lw 2 pt 7 \
         title ltitle(i), \
     for [i=1:nlevels] (cap(i) > 0 ? cap(i) : 1/0) dt 2 lw 1.5 \
         title lvname(i) . ' capacity'
