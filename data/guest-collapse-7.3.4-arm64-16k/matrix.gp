set terminal pngcairo noenhanced size 1600,1140 font ",9"
set output "data/guest-collapse-7.3.4-arm64-16k/matrix.png"
set multiplot layout 3,2 title "collapse matrix: 7.3.4+deb13-arm64-16k (16384-byte pages); bars: share of mapped pages per folio order at the end; points: RSS growth % (right axis)"
set style data histograms
set style histogram rowstacked
set style fill solid 0.9 border -1
set boxwidth 0.8
set yrange [0:100]
set ylabel 'share %'
set y2range [0:*]
set y2tics
set y2label 'RSS growth %'
set xtics rotate by 90 right font ',8'
set bmargin 6
set key outside right font ',7'
set grid y
set title "khugepaged, target orders 2 (cells: fill%/max_ptes_none)"
plot 'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 0 using 2:xtic(1) title 'order 0' lc rgb '#bbbbbb', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 0 using 3:xtic(1) title 'order 1' lc rgb '#e41a1c', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 0 using 4:xtic(1) title 'order 2' lc rgb '#ff7f00', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 0 using 5:xtic(1) title 'order 3' lc rgb '#ffcc00', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 0 using 6:xtic(1) title 'order 4' lc rgb '#4daf4a', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 0 using 7:xtic(1) title 'order 5' lc rgb '#00cccc', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 0 using 8:xtic(1) title 'order 6' lc rgb '#377eb8', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 0 using 9:xtic(1) title 'order 7' lc rgb '#984ea3', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 0 using 10:xtic(1) title 'order 8' lc rgb '#f781bf', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 0 using 11:xtic(1) title 'order 9' lc rgb '#000000', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 0 using 12:xtic(1) title 'order 10' lc rgb '#a65628', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 0 using 13:xtic(1) title 'order 11' lc rgb '#666666', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 0 using 0:14 axes x1y2 with points pt 7 ps 0.8 lc rgb 'black' title 'RSS growth'
set title "khugepaged, target orders 2-11 (cells: fill%/max_ptes_none)"
plot 'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 1 using 2:xtic(1) title '' lc rgb '#bbbbbb', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 1 using 3:xtic(1) title '' lc rgb '#e41a1c', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 1 using 4:xtic(1) title '' lc rgb '#ff7f00', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 1 using 5:xtic(1) title '' lc rgb '#ffcc00', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 1 using 6:xtic(1) title '' lc rgb '#4daf4a', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 1 using 7:xtic(1) title '' lc rgb '#00cccc', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 1 using 8:xtic(1) title '' lc rgb '#377eb8', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 1 using 9:xtic(1) title '' lc rgb '#984ea3', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 1 using 10:xtic(1) title '' lc rgb '#f781bf', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 1 using 11:xtic(1) title '' lc rgb '#000000', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 1 using 12:xtic(1) title '' lc rgb '#a65628', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 1 using 13:xtic(1) title '' lc rgb '#666666', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 1 using 0:14 axes x1y2 with points pt 7 ps 0.8 lc rgb 'black' title ''
set title "khugepaged, target orders 4 (cells: fill%/max_ptes_none)"
plot 'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 2 using 2:xtic(1) title '' lc rgb '#bbbbbb', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 2 using 3:xtic(1) title '' lc rgb '#e41a1c', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 2 using 4:xtic(1) title '' lc rgb '#ff7f00', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 2 using 5:xtic(1) title '' lc rgb '#ffcc00', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 2 using 6:xtic(1) title '' lc rgb '#4daf4a', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 2 using 7:xtic(1) title '' lc rgb '#00cccc', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 2 using 8:xtic(1) title '' lc rgb '#377eb8', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 2 using 9:xtic(1) title '' lc rgb '#984ea3', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 2 using 10:xtic(1) title '' lc rgb '#f781bf', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 2 using 11:xtic(1) title '' lc rgb '#000000', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 2 using 12:xtic(1) title '' lc rgb '#a65628', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 2 using 13:xtic(1) title '' lc rgb '#666666', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 2 using 0:14 axes x1y2 with points pt 7 ps 0.8 lc rgb 'black' title ''
set title "khugepaged, target orders 7 (cells: fill%/max_ptes_none)"
plot 'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 3 using 2:xtic(1) title '' lc rgb '#bbbbbb', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 3 using 3:xtic(1) title '' lc rgb '#e41a1c', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 3 using 4:xtic(1) title '' lc rgb '#ff7f00', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 3 using 5:xtic(1) title '' lc rgb '#ffcc00', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 3 using 6:xtic(1) title '' lc rgb '#4daf4a', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 3 using 7:xtic(1) title '' lc rgb '#00cccc', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 3 using 8:xtic(1) title '' lc rgb '#377eb8', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 3 using 9:xtic(1) title '' lc rgb '#984ea3', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 3 using 10:xtic(1) title '' lc rgb '#f781bf', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 3 using 11:xtic(1) title '' lc rgb '#000000', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 3 using 12:xtic(1) title '' lc rgb '#a65628', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 3 using 13:xtic(1) title '' lc rgb '#666666', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 3 using 0:14 axes x1y2 with points pt 7 ps 0.8 lc rgb 'black' title ''
set title "madvise, target orders 2-11 (cells: fill%/max_ptes_none)"
plot 'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 4 using 2:xtic(1) title '' lc rgb '#bbbbbb', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 4 using 3:xtic(1) title '' lc rgb '#e41a1c', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 4 using 4:xtic(1) title '' lc rgb '#ff7f00', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 4 using 5:xtic(1) title '' lc rgb '#ffcc00', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 4 using 6:xtic(1) title '' lc rgb '#4daf4a', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 4 using 7:xtic(1) title '' lc rgb '#00cccc', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 4 using 8:xtic(1) title '' lc rgb '#377eb8', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 4 using 9:xtic(1) title '' lc rgb '#984ea3', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 4 using 10:xtic(1) title '' lc rgb '#f781bf', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 4 using 11:xtic(1) title '' lc rgb '#000000', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 4 using 12:xtic(1) title '' lc rgb '#a65628', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 4 using 13:xtic(1) title '' lc rgb '#666666', \
     'data/guest-collapse-7.3.4-arm64-16k/matrix.dat' index 4 using 0:14 axes x1y2 with points pt 7 ps 0.8 lc rgb 'black' title ''
unset multiplot
