ps=$(getconf PAGESIZE 2>/dev/null || echo 4096); top=$((ps / 8 - 1))
mpn=$(echo 0,64,128,255,256,511 | tr , '\n' | awk -v t=$top '$1 <= t' | paste -sd ,)
mthpscope info --json >info.json 2>info.err
mthpscope collapse --mode khugepaged --orders 2-9 --fill 25 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-9-f25.json >khugepaged-o2-9-f25.txt 2>khugepaged-o2-9-f25.err; echo "khugepaged-o2-9-f25 $?" >>status
mthpscope collapse --mode khugepaged --orders 2-9 --fill 50 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-9-f50.json >khugepaged-o2-9-f50.txt 2>khugepaged-o2-9-f50.err; echo "khugepaged-o2-9-f50 $?" >>status
mthpscope collapse --mode khugepaged --orders 2-9 --fill 75 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-9-f75.json >khugepaged-o2-9-f75.txt 2>khugepaged-o2-9-f75.err; echo "khugepaged-o2-9-f75 $?" >>status
mthpscope collapse --mode khugepaged --orders 2-9 --fill 90 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-9-f90.json >khugepaged-o2-9-f90.txt 2>khugepaged-o2-9-f90.err; echo "khugepaged-o2-9-f90 $?" >>status
mthpscope collapse --mode khugepaged --orders 2 --fill 25 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-f25.json >khugepaged-o2-f25.txt 2>khugepaged-o2-f25.err; echo "khugepaged-o2-f25 $?" >>status
mthpscope collapse --mode khugepaged --orders 2 --fill 50 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-f50.json >khugepaged-o2-f50.txt 2>khugepaged-o2-f50.err; echo "khugepaged-o2-f50 $?" >>status
mthpscope collapse --mode khugepaged --orders 2 --fill 75 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-f75.json >khugepaged-o2-f75.txt 2>khugepaged-o2-f75.err; echo "khugepaged-o2-f75 $?" >>status
mthpscope collapse --mode khugepaged --orders 2 --fill 90 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o2-f90.json >khugepaged-o2-f90.txt 2>khugepaged-o2-f90.err; echo "khugepaged-o2-f90 $?" >>status
mthpscope collapse --mode khugepaged --orders 3 --fill 25 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o3-f25.json >khugepaged-o3-f25.txt 2>khugepaged-o3-f25.err; echo "khugepaged-o3-f25 $?" >>status
mthpscope collapse --mode khugepaged --orders 3 --fill 50 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o3-f50.json >khugepaged-o3-f50.txt 2>khugepaged-o3-f50.err; echo "khugepaged-o3-f50 $?" >>status
mthpscope collapse --mode khugepaged --orders 3 --fill 75 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o3-f75.json >khugepaged-o3-f75.txt 2>khugepaged-o3-f75.err; echo "khugepaged-o3-f75 $?" >>status
mthpscope collapse --mode khugepaged --orders 3 --fill 90 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o3-f90.json >khugepaged-o3-f90.txt 2>khugepaged-o3-f90.err; echo "khugepaged-o3-f90 $?" >>status
mthpscope collapse --mode khugepaged --orders 4 --fill 25 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o4-f25.json >khugepaged-o4-f25.txt 2>khugepaged-o4-f25.err; echo "khugepaged-o4-f25 $?" >>status
mthpscope collapse --mode khugepaged --orders 4 --fill 50 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o4-f50.json >khugepaged-o4-f50.txt 2>khugepaged-o4-f50.err; echo "khugepaged-o4-f50 $?" >>status
mthpscope collapse --mode khugepaged --orders 4 --fill 75 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o4-f75.json >khugepaged-o4-f75.txt 2>khugepaged-o4-f75.err; echo "khugepaged-o4-f75 $?" >>status
mthpscope collapse --mode khugepaged --orders 4 --fill 90 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o4-f90.json >khugepaged-o4-f90.txt 2>khugepaged-o4-f90.err; echo "khugepaged-o4-f90 $?" >>status
mthpscope collapse --mode khugepaged --orders 4-9 --fill 25 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o4-9-f25.json >khugepaged-o4-9-f25.txt 2>khugepaged-o4-9-f25.err; echo "khugepaged-o4-9-f25 $?" >>status
mthpscope collapse --mode khugepaged --orders 4-9 --fill 50 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o4-9-f50.json >khugepaged-o4-9-f50.txt 2>khugepaged-o4-9-f50.err; echo "khugepaged-o4-9-f50 $?" >>status
mthpscope collapse --mode khugepaged --orders 4-9 --fill 75 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o4-9-f75.json >khugepaged-o4-9-f75.txt 2>khugepaged-o4-9-f75.err; echo "khugepaged-o4-9-f75 $?" >>status
mthpscope collapse --mode khugepaged --orders 4-9 --fill 90 --span 8M --timeout 10 --max-ptes-none $mpn -o khugepaged-o4-9-f90.json >khugepaged-o4-9-f90.txt 2>khugepaged-o4-9-f90.err; echo "khugepaged-o4-9-f90 $?" >>status
mthpscope collapse --mode madvise --orders 2-9 --fill 25 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o2-9-f25.json >madvise-o2-9-f25.txt 2>madvise-o2-9-f25.err; echo "madvise-o2-9-f25 $?" >>status
mthpscope collapse --mode madvise --orders 2-9 --fill 50 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o2-9-f50.json >madvise-o2-9-f50.txt 2>madvise-o2-9-f50.err; echo "madvise-o2-9-f50 $?" >>status
mthpscope collapse --mode madvise --orders 2-9 --fill 75 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o2-9-f75.json >madvise-o2-9-f75.txt 2>madvise-o2-9-f75.err; echo "madvise-o2-9-f75 $?" >>status
mthpscope collapse --mode madvise --orders 2-9 --fill 90 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o2-9-f90.json >madvise-o2-9-f90.txt 2>madvise-o2-9-f90.err; echo "madvise-o2-9-f90 $?" >>status
mthpscope collapse --mode madvise --orders 2 --fill 25 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o2-f25.json >madvise-o2-f25.txt 2>madvise-o2-f25.err; echo "madvise-o2-f25 $?" >>status
mthpscope collapse --mode madvise --orders 2 --fill 50 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o2-f50.json >madvise-o2-f50.txt 2>madvise-o2-f50.err; echo "madvise-o2-f50 $?" >>status
mthpscope collapse --mode madvise --orders 2 --fill 75 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o2-f75.json >madvise-o2-f75.txt 2>madvise-o2-f75.err; echo "madvise-o2-f75 $?" >>status
mthpscope collapse --mode madvise --orders 2 --fill 90 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o2-f90.json >madvise-o2-f90.txt 2>madvise-o2-f90.err; echo "madvise-o2-f90 $?" >>status
mthpscope collapse --mode madvise --orders 3 --fill 25 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o3-f25.json >madvise-o3-f25.txt 2>madvise-o3-f25.err; echo "madvise-o3-f25 $?" >>status
mthpscope collapse --mode madvise --orders 3 --fill 50 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o3-f50.json >madvise-o3-f50.txt 2>madvise-o3-f50.err; echo "madvise-o3-f50 $?" >>status
mthpscope collapse --mode madvise --orders 3 --fill 75 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o3-f75.json >madvise-o3-f75.txt 2>madvise-o3-f75.err; echo "madvise-o3-f75 $?" >>status
mthpscope collapse --mode madvise --orders 3 --fill 90 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o3-f90.json >madvise-o3-f90.txt 2>madvise-o3-f90.err; echo "madvise-o3-f90 $?" >>status
mthpscope collapse --mode madvise --orders 4 --fill 25 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o4-f25.json >madvise-o4-f25.txt 2>madvise-o4-f25.err; echo "madvise-o4-f25 $?" >>status
mthpscope collapse --mode madvise --orders 4 --fill 50 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o4-f50.json >madvise-o4-f50.txt 2>madvise-o4-f50.err; echo "madvise-o4-f50 $?" >>status
mthpscope collapse --mode madvise --orders 4 --fill 75 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o4-f75.json >madvise-o4-f75.txt 2>madvise-o4-f75.err; echo "madvise-o4-f75 $?" >>status
mthpscope collapse --mode madvise --orders 4 --fill 90 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o4-f90.json >madvise-o4-f90.txt 2>madvise-o4-f90.err; echo "madvise-o4-f90 $?" >>status
mthpscope collapse --mode madvise --orders 4-9 --fill 25 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o4-9-f25.json >madvise-o4-9-f25.txt 2>madvise-o4-9-f25.err; echo "madvise-o4-9-f25 $?" >>status
mthpscope collapse --mode madvise --orders 4-9 --fill 50 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o4-9-f50.json >madvise-o4-9-f50.txt 2>madvise-o4-9-f50.err; echo "madvise-o4-9-f50 $?" >>status
mthpscope collapse --mode madvise --orders 4-9 --fill 75 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o4-9-f75.json >madvise-o4-9-f75.txt 2>madvise-o4-9-f75.err; echo "madvise-o4-9-f75 $?" >>status
mthpscope collapse --mode madvise --orders 4-9 --fill 90 --span 8M --timeout 10 --max-ptes-none $mpn -o madvise-o4-9-f90.json >madvise-o4-9-f90.txt 2>madvise-o4-9-f90.err; echo "madvise-o4-9-f90 $?" >>status
dmesg >dmesg.txt 2>&1
