ps=$(awk '/^KernelPageSize:/ { print $2 * 1024; exit }' /proc/self/smaps); top=$((${ps:-4096} / 8 - 1))
mpn=$(echo 0,64,511,1024,2047 | tr , '\n' | awk -v t=$top '$1 <= t' | paste -sd ,)
mthpscope info --json >info.json 2>info.err
mthpscope collapse --mode khugepaged --orders 2-11 --fill 25 --span 32M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-11-f25.json >khugepaged-o2-11-f25.txt 2>khugepaged-o2-11-f25.err; echo "khugepaged-o2-11-f25 $?" >>status
mthpscope collapse --mode khugepaged --orders 2-11 --fill 50 --span 32M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-11-f50.json >khugepaged-o2-11-f50.txt 2>khugepaged-o2-11-f50.err; echo "khugepaged-o2-11-f50 $?" >>status
mthpscope collapse --mode khugepaged --orders 2-11 --fill 75 --span 32M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-11-f75.json >khugepaged-o2-11-f75.txt 2>khugepaged-o2-11-f75.err; echo "khugepaged-o2-11-f75 $?" >>status
mthpscope collapse --mode khugepaged --orders 2-11 --fill 90 --span 32M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-11-f90.json >khugepaged-o2-11-f90.txt 2>khugepaged-o2-11-f90.err; echo "khugepaged-o2-11-f90 $?" >>status
mthpscope collapse --mode khugepaged --orders 2 --fill 25 --span 32M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-f25.json >khugepaged-o2-f25.txt 2>khugepaged-o2-f25.err; echo "khugepaged-o2-f25 $?" >>status
mthpscope collapse --mode khugepaged --orders 2 --fill 50 --span 32M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-f50.json >khugepaged-o2-f50.txt 2>khugepaged-o2-f50.err; echo "khugepaged-o2-f50 $?" >>status
mthpscope collapse --mode khugepaged --orders 2 --fill 75 --span 32M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-f75.json >khugepaged-o2-f75.txt 2>khugepaged-o2-f75.err; echo "khugepaged-o2-f75 $?" >>status
mthpscope collapse --mode khugepaged --orders 2 --fill 90 --span 32M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-f90.json >khugepaged-o2-f90.txt 2>khugepaged-o2-f90.err; echo "khugepaged-o2-f90 $?" >>status
mthpscope collapse --mode khugepaged --orders 4 --fill 25 --span 32M --timeout 10 --max-ptes-none $mpn -o khugepaged-o4-f25.json >khugepaged-o4-f25.txt 2>khugepaged-o4-f25.err; echo "khugepaged-o4-f25 $?" >>status
mthpscope collapse --mode khugepaged --orders 4 --fill 50 --span 32M --timeout 10 --max-ptes-none $mpn -o khugepaged-o4-f50.json >khugepaged-o4-f50.txt 2>khugepaged-o4-f50.err; echo "khugepaged-o4-f50 $?" >>status
mthpscope collapse --mode khugepaged --orders 4 --fill 75 --span 32M --timeout 10 --max-ptes-none $mpn -o khugepaged-o4-f75.json >khugepaged-o4-f75.txt 2>khugepaged-o4-f75.err; echo "khugepaged-o4-f75 $?" >>status
mthpscope collapse --mode khugepaged --orders 4 --fill 90 --span 32M --timeout 10 --max-ptes-none $mpn -o khugepaged-o4-f90.json >khugepaged-o4-f90.txt 2>khugepaged-o4-f90.err; echo "khugepaged-o4-f90 $?" >>status
mthpscope collapse --mode khugepaged --orders 7 --fill 25 --span 32M --timeout 10 --max-ptes-none $mpn -o khugepaged-o7-f25.json >khugepaged-o7-f25.txt 2>khugepaged-o7-f25.err; echo "khugepaged-o7-f25 $?" >>status
mthpscope collapse --mode khugepaged --orders 7 --fill 50 --span 32M --timeout 10 --max-ptes-none $mpn -o khugepaged-o7-f50.json >khugepaged-o7-f50.txt 2>khugepaged-o7-f50.err; echo "khugepaged-o7-f50 $?" >>status
mthpscope collapse --mode khugepaged --orders 7 --fill 75 --span 32M --timeout 10 --max-ptes-none $mpn -o khugepaged-o7-f75.json >khugepaged-o7-f75.txt 2>khugepaged-o7-f75.err; echo "khugepaged-o7-f75 $?" >>status
mthpscope collapse --mode khugepaged --orders 7 --fill 90 --span 32M --timeout 10 --max-ptes-none $mpn -o khugepaged-o7-f90.json >khugepaged-o7-f90.txt 2>khugepaged-o7-f90.err; echo "khugepaged-o7-f90 $?" >>status
dmesg >dmesg.txt 2>&1
mthpscope collapse --mode madvise --orders 2-11 --fill 50 --span 32M --timeout 10 --max-ptes-none 0,2047 -o madvise-o2-11-f50.json >madvise-o2-11-f50.txt 2>madvise-o2-11-f50.err
mthpscope collapse --orders 7 --max-ptes-none 0 --fill 75 --span 32M --hold 120 -o hold.json >hold.txt 2>hold.err & p=$!
i=0; while [ $i -lt 100 ] && ! grep -q "holds the span" hold.err; do sleep 1; i=$((i+1)); done
mthpscope scan --pid $p --cont 2M >scan2m.txt 2>&1; mthpscope scan --pid $p --cont 2M --json >scan2m.json 2>&1
kill $p; wait $p; true
