ps=$(getconf PAGESIZE 2>/dev/null || echo 4096); top=$((ps / 8 - 1))
mpn=$(echo 0,64,256,511 | tr , '\n' | awk -v t=$top '$1 <= t' | paste -sd ,)
mthpscope info --json >info.json 2>info.err
mthpscope collapse --mode khugepaged --orders 2-9 --fill 25 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-9-f25.json >khugepaged-o2-9-f25.txt 2>khugepaged-o2-9-f25.err; echo "khugepaged-o2-9-f25 $?" >>status
mthpscope collapse --mode khugepaged --orders 2-9 --fill 50 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-9-f50.json >khugepaged-o2-9-f50.txt 2>khugepaged-o2-9-f50.err; echo "khugepaged-o2-9-f50 $?" >>status
mthpscope collapse --mode khugepaged --orders 2-9 --fill 75 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-9-f75.json >khugepaged-o2-9-f75.txt 2>khugepaged-o2-9-f75.err; echo "khugepaged-o2-9-f75 $?" >>status
mthpscope collapse --mode khugepaged --orders 2-9 --fill 90 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-9-f90.json >khugepaged-o2-9-f90.txt 2>khugepaged-o2-9-f90.err; echo "khugepaged-o2-9-f90 $?" >>status
mthpscope collapse --mode khugepaged --orders 4 --fill 25 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o4-f25.json >khugepaged-o4-f25.txt 2>khugepaged-o4-f25.err; echo "khugepaged-o4-f25 $?" >>status
mthpscope collapse --mode khugepaged --orders 4 --fill 50 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o4-f50.json >khugepaged-o4-f50.txt 2>khugepaged-o4-f50.err; echo "khugepaged-o4-f50 $?" >>status
mthpscope collapse --mode khugepaged --orders 4 --fill 75 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o4-f75.json >khugepaged-o4-f75.txt 2>khugepaged-o4-f75.err; echo "khugepaged-o4-f75 $?" >>status
mthpscope collapse --mode khugepaged --orders 4 --fill 90 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o4-f90.json >khugepaged-o4-f90.txt 2>khugepaged-o4-f90.err; echo "khugepaged-o4-f90 $?" >>status
mthpscope collapse --mode madvise --orders 2-9 --fill 25 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o2-9-f25.json >madvise-o2-9-f25.txt 2>madvise-o2-9-f25.err; echo "madvise-o2-9-f25 $?" >>status
mthpscope collapse --mode madvise --orders 2-9 --fill 50 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o2-9-f50.json >madvise-o2-9-f50.txt 2>madvise-o2-9-f50.err; echo "madvise-o2-9-f50 $?" >>status
mthpscope collapse --mode madvise --orders 2-9 --fill 75 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o2-9-f75.json >madvise-o2-9-f75.txt 2>madvise-o2-9-f75.err; echo "madvise-o2-9-f75 $?" >>status
mthpscope collapse --mode madvise --orders 2-9 --fill 90 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o2-9-f90.json >madvise-o2-9-f90.txt 2>madvise-o2-9-f90.err; echo "madvise-o2-9-f90 $?" >>status
mthpscope collapse --mode madvise --orders 4 --fill 25 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o4-f25.json >madvise-o4-f25.txt 2>madvise-o4-f25.err; echo "madvise-o4-f25 $?" >>status
mthpscope collapse --mode madvise --orders 4 --fill 50 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o4-f50.json >madvise-o4-f50.txt 2>madvise-o4-f50.err; echo "madvise-o4-f50 $?" >>status
mthpscope collapse --mode madvise --orders 4 --fill 75 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o4-f75.json >madvise-o4-f75.txt 2>madvise-o4-f75.err; echo "madvise-o4-f75 $?" >>status
mthpscope collapse --mode madvise --orders 4 --fill 90 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o4-f90.json >madvise-o4-f90.txt 2>madvise-o4-f90.err; echo "madvise-o4-f90 $?" >>status
dmesg >dmesg.txt 2>&1
mthpscope collapse --orders 4 --max-ptes-none 0 --fill 50 --span 8M --hold 120 -o hold.json >hold.txt 2>hold.err & p=$!
i=0; while [ $i -lt 100 ] && ! grep -q "holds the span" hold.err; do sleep 1; i=$((i+1)); done
mthpscope scan --pid $p --cont 64K >scan64k.txt 2>&1; mthpscope scan --pid $p --cont 64K --json >scan64k.json 2>&1
kill $p; wait $p
