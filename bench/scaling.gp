# bench/scaling.gp - the scaling chart of docs/PERFORMANCE.md, drawn by bench/scaling_report.py:
#   gnuplot -e "datafile='scaling.dat'; out='performance-scaling.png'" scaling.gp
# One block per step (rows, CPU ns per row, peak RSS MiB). Left: CPU ns per row
# (per key for get, per returned row for the key range) against rows; a flat
# line is linear time. Right: the process's peak RSS against rows.
set terminal pngcairo size 1200,480 font ",9" noenhanced
set output out
set multiplot layout 1,2
# eleven steps, eleven distinct colours (the default cycle repeats after eight)
set linetype 9 lc rgb "#888888"
set linetype 10 lc rgb "#aa5500"
set linetype 11 lc rgb "#00aaaa"
set logscale x 10
set logscale y 10
set grid
set key outside bottom center horizontal maxrows 4 font ",8"
set xlabel "rows"
set format x "%.0s%c"
set ylabel "CPU ns per row"
set title "Time per row (user+sys) as the data grows"
plot for [i=0:10] datafile index i using 1:2 with linespoints lt i+1 lw 2 pt 7 title columnheader(1)
set ylabel "peak RSS MiB"
set title "Peak memory (RSS) as the data grows"
plot for [i=0:10] datafile index i using 1:3 with linespoints lt i+1 lw 2 pt 7 title columnheader(1)
unset multiplot
