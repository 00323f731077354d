# bench/performance-big.gp - the chart of files larger than the cache, drawn by bench/bigfile.sh:
#   gnuplot -e "datafile='big.dat'; out='performance-big.png'" performance-big.gp
# Decode GB/s per file (page cache warm, and cold: read from disk) beside a memcpy of the
# same decoded bytes from a buffer of that size in the same run (the DRAM line).
set terminal pngcairo size 1400,600 font ",9" noenhanced
set output out
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set xtics rotate by -30 scale 0
set key top right
set title "Files of > 1 GiB decoded values: decode GB/s (median full scan) vs memcpy of the same bytes"
set ylabel "GB/s"
plot datafile using 2:xtic(1) title "cfile decode, warm", '' using 3 title "cfile decode, cold", \
     '' using 4 title "memcpy (same size)"
