// bench/parquet_write.mjs: cfile's Parquet writer beside DuckDB's
// COPY ... TO (FORMAT parquet), single-threaded, on the same rows.
//
//   node bench/parquet_write.mjs BENCH_BIN [ROWS [RUNS [DIR]]]
//
// BENCH_BIN is bench_parquet_write (build with -DCF_BUILD_BENCH=ON). It times our
// writer on each case (writing to memory) and leaves the file in DIR (default
// /dev/shm, a tmpfs, else /tmp). DuckDB loads that file into a table (the same
// rows), then COPY writes it with the case's codec to DIR, RUNS times, with
// SET threads=1. Both sides are timed in CPU seconds of their process (this
// machine is shared: wall-clock would time the neighbours), best of RUNS, and
// the table shows rows/s and MB/s of the values in memory (8 bytes per int64,
// string bytes + 4, ...) and ours / DuckDB (> 1: we are faster).
// CF_BENCH_JSON=1: no table, one JSON object per case instead (bench/run_bench.sh
// feeds them to bench/report.py): times best and median of both sides, the
// median memcpy of the same bytes ("memcpy_s"), file sizes.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [bin, rowsArg = '1000000', runsArg = '5', dirArg] = process.argv.slice(2);
if (!bin) {
  console.error('usage: node bench/parquet_write.mjs BENCH_BIN [ROWS [RUNS [DIR]]]');
  process.exit(2);
}
const dir = dirArg || (fs.existsSync('/dev/shm') ? '/dev/shm' : '/tmp');
const runs = Number(runsArg);
const api = path.join(here, '../tools/duckdb/node_modules/@duckdb/node-api/lib/index.js');
const { DuckDBInstance } = await import(pathToFileURL(api).href);

const ours = execFileSync(bin, [rowsArg, runsArg, dir], { encoding: 'utf8' })
  .trim().split('\n').map((l) => JSON.parse(l));

const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
const con = await inst.connect();
await con.run('SET threads=1');
await con.run('SET preserve_insertion_order=true');

const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const rowsOut = [];
for (const c of ours) {
  const src = path.join(dir, `${c.case}.parquet`);
  const codec = /zstd/.test(c.case) ? 'zstd' : 'snappy';
  await con.run(`CREATE OR REPLACE TABLE t AS SELECT * FROM read_parquet('${src}')`);
  const out = path.join(dir, `duckdb_${c.case}.parquet`);
  const times = [];
  for (let r = 0; r < runs; r++) {
    const t0 = cpu();
    await con.run(`COPY t TO '${out}' (FORMAT parquet, COMPRESSION ${codec})`);
    times.push(cpu() - t0);
  }
  times.sort((a, b) => a - b);
  const best = times[0];
  const size = fs.statSync(out).size;
  rowsOut.push({
    case: c.case, rows: c.rows,
    ours_rows_s: c.rows_per_s, ours_mb_s: c.mb_per_s, ours_bytes: c.file_bytes,
    duck_rows_s: Math.round(c.rows / best), duck_mb_s: +(c.raw_bytes / best / 1e6).toFixed(1),
    duck_bytes: size, ratio: +(best / c.best_s).toFixed(2),
    ours_median_s: c.median_s, duck_median_s: +times[Math.floor(runs / 2)].toFixed(6),
    ours_best_s: c.best_s, duck_best_s: +best.toFixed(6), raw_bytes: c.raw_bytes,
    memcpy_s: c.memcpy_s,
  });
  fs.rmSync(out, { force: true });
  fs.rmSync(src, { force: true });
}

if (process.env.CF_BENCH_JSON) {
  for (const r of rowsOut) console.log(JSON.stringify(r));
  process.exit(0);
}
const pad = (s, n) => String(s).padEnd(n);
const padl = (s, n) => String(s).padStart(n);
console.log(`${pad('case', 22)}${padl('rows', 9)}${padl('ours rows/s', 13)}${padl('MB/s', 8)}` +
  `${padl('duckdb rows/s', 15)}${padl('MB/s', 8)}${padl('ours/duck', 11)}${padl('bytes ours', 12)}${padl('duckdb', 10)}`);
for (const r of rowsOut)
  console.log(`${pad(r.case, 22)}${padl(r.rows, 9)}${padl(r.ours_rows_s.toExponential(2), 13)}${padl(r.ours_mb_s, 8)}` +
    `${padl(r.duck_rows_s.toExponential(2), 15)}${padl(r.duck_mb_s, 8)}${padl(r.ratio, 11)}${padl(r.ours_bytes, 12)}${padl(r.duck_bytes, 10)}`);
