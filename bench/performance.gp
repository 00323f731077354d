# bench/performance.gp - the chart of docs/PERFORMANCE.md, drawn by bench/run_bench.sh:
#   gnuplot -e "datafile='chart.dat'; peerfile='peers.dat'; out='performance.png'" performance.gp
# Top: decode GB/s per data set/encoding (uncompressed files) beside a memcpy of the
# same bytes in the same run. Bottom: p50 point lookup latency, cfile vs the peers.
set terminal pngcairo size 1400,1100 font ",9" noenhanced
set output out
set multiplot layout 2,1
set style data histograms
set style histogram clustered gap 1
set style fill solid 0.8 border -1
set grid ytics
set xtics rotate by -45 scale 0
set key top right
set title "Decode throughput (GB/s, median full scan, 1024-row batches) vs memcpy of the same bytes"
set ylabel "GB/s"
plot datafile using 2:xtic(1) title "cfile decode", '' using 3 title "memcpy"
set title "Point lookups: p50 latency (us, warm, half absent keys), cfile value index vs peers' Get"
set ylabel "p50 us"
set logscale y
plot peerfile using 2:xtic(1) title "p50 us" lc rgb "#4477aa"
unset multiplot
