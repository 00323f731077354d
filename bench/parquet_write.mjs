// bench/parquet_write.mjs: cfile's Parquet writer beside DuckDB's
// COPY ... TO (FORMAT parquet) on the same rows, at one thread each and at
// each one's default (ours: one per CPU; DuckDB: its threads setting).
//
//   node bench/parquet_write.mjs BENCH_BIN [ROWS [RUNS [DIR]]]
//
// BENCH_BIN is bench_parquet_write (build with -DCF_BUILD_BENCH=ON). It times our
// writer on each case (writing to memory) and leaves the file in DIR (default
// /dev/shm, a tmpfs, else /tmp). DuckDB loads that file into a table (the same
// rows), then COPY writes it with the case's codec to DIR, RUNS rounds
// alternated with ours. The first table is CPU seconds at one thread (best of
// RUNS): rows/s and MB/s of the values in memory (8 bytes per int64, string
// bytes + 4, ...) and ours / DuckDB (> 1: we are faster). The second is the
// medians of wall seconds at one thread and at each side's default, and CPU
// seconds at the default, with the load average (on a shared machine the wall
// times measure the neighbours too: repeat on a quiet one).
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

// The first call leaves every case's file in dir (DuckDB's input); then each
// of RUNS rounds runs, in turn: our writer (one run at threads=1 and one at one
// per CPU, a process of its own), DuckDB's COPY at threads=1, and DuckDB's
// COPY at its default thread count, so that load from the neighbours falls on
// all alike. Medians of the rounds; CPU seconds are every thread's.
const ours0 = execFileSync(bin, [rowsArg, '1', dir], { encoding: 'utf8' })
  .trim().split('\n').map((l) => JSON.parse(l));

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const dflt = (await (await con.run("SELECT current_setting('threads') AS t")).getRows())[0][0];
await con.run('SET preserve_insertion_order=true');

const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const wall = () => Number(process.hrtime.bigint()) / 1e9;
const med = (a) => { const b = [...a].sort((x, y) => x - y); return b[Math.floor(b.length / 2)]; };
const rowsOut = [];
for (const c0 of ours0) {
  const src = path.join(dir, `${c0.case}.parquet`);
  const codec = /zstd/.test(c0.case) ? 'zstd' : 'snappy';
  await con.run(`CREATE OR REPLACE TABLE t AS SELECT * FROM read_parquet('${src}')`);
  const out = path.join(dir, `duckdb_${c0.case}.parquet`);
  const o = { cpu1: [], wall1: [], wallN: [], cpuN: [] };
  const d = { cpu1: [], wall1: [], wallN: [], cpuN: [] };
  let c = c0;
  for (let r = 0; r < runs; r++) {
    c = JSON.parse(execFileSync(bin, [rowsArg, '1'], {
      encoding: 'utf8', env: { ...process.env, CF_BENCH_FILTER: c0.case },
    }).trim());
    o.cpu1.push(c.best_s); o.wall1.push(c.wall1_s); o.wallN.push(c.walln_s); o.cpuN.push(c.cpun_s);
    for (const [th, k] of [[1, '1'], [dflt, 'N']]) {
      await con.run(`SET threads=${th}`);
      const t0 = cpu(), w0 = wall();
      await con.run(`COPY t TO '${out}' (FORMAT parquet, COMPRESSION ${codec})`);
      d[`cpu${k}`].push(cpu() - t0); d[`wall${k}`].push(wall() - w0);
    }
  }
  const best = Math.min(...d.cpu1);
  const size = fs.statSync(out).size;
  rowsOut.push({
    case: c.case, rows: c.rows,
    ours_rows_s: Math.round(c.rows / Math.min(...o.cpu1)),
    ours_mb_s: +(c.raw_bytes / Math.min(...o.cpu1) / 1e6).toFixed(1), ours_bytes: c.file_bytes,
    duck_rows_s: Math.round(c.rows / best), duck_mb_s: +(c.raw_bytes / best / 1e6).toFixed(1),
    duck_bytes: size, ratio: +(best / Math.min(...o.cpu1)).toFixed(2),
    ours_median_s: med(o.cpu1), duck_median_s: +med(d.cpu1).toFixed(6),
    ours_best_s: Math.min(...o.cpu1), duck_best_s: +best.toFixed(6), raw_bytes: c.raw_bytes,
    memcpy_s: c.memcpy_s,
    threads_ours: c.threads, threads_duck: Number(dflt),
    ours_wall1_s: +med(o.wall1).toFixed(4), duck_wall1_s: +med(d.wall1).toFixed(4),
    ours_walln_s: +med(o.wallN).toFixed(4), duck_walln_s: +med(d.wallN).toFixed(4),
    ours_cpun_s: +med(o.cpuN).toFixed(4), duck_cpun_s: +med(d.cpuN).toFixed(4),
  });
  fs.rmSync(out, { force: true });
  fs.rmSync(src, { force: true });
}
const load = fs.existsSync('/proc/loadavg') ? fs.readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ') : '?';

if (process.env.CF_BENCH_JSON) {
  for (const r of rowsOut) console.log(JSON.stringify(r));
  process.exit(0);
}
const pad = (s, n) => String(s).padEnd(n);
const padl = (s, n) => String(s).padStart(n);
console.log('CPU seconds at one thread (best of the rounds):');
console.log(`${pad('case', 22)}${padl('rows', 9)}${padl('ours rows/s', 13)}${padl('MB/s', 8)}` +
  `${padl('duckdb rows/s', 15)}${padl('MB/s', 8)}${padl('ours/duck', 11)}${padl('bytes ours', 12)}${padl('duckdb', 10)}`);
for (const r of rowsOut)
  console.log(`${pad(r.case, 22)}${padl(r.rows, 9)}${padl(r.ours_rows_s.toExponential(2), 13)}${padl(r.ours_mb_s, 8)}` +
    `${padl(r.duck_rows_s.toExponential(2), 15)}${padl(r.duck_mb_s, 8)}${padl(r.ratio, 11)}${padl(r.ours_bytes, 12)}${padl(r.duck_bytes, 10)}`);
console.log(`\nMedians of ${runs} alternated rounds, seconds (load average ${load}; ` +
  `threads: ours up to ${Math.max(...rowsOut.map((r) => r.threads_ours))} (one per CPU, at most one per column), DuckDB ${dflt}):`);
console.log(`${pad('case', 22)}${padl('wall 1 ours', 12)}${padl('duck', 8)}${padl('wall N ours', 12)}` +
  `${padl('duck', 8)}${padl('cpu N ours', 11)}${padl('duck', 8)}${padl('N: duck/ours', 14)}`);
for (const r of rowsOut)
  console.log(`${pad(r.case, 22)}${padl(r.ours_wall1_s.toFixed(3), 12)}${padl(r.duck_wall1_s.toFixed(3), 8)}` +
    `${padl(r.ours_walln_s.toFixed(3), 12)}${padl(r.duck_walln_s.toFixed(3), 8)}` +
    `${padl(r.ours_cpun_s.toFixed(3), 11)}${padl(r.duck_cpun_s.toFixed(3), 8)}` +
    `${padl((r.duck_walln_s / r.ours_walln_s).toFixed(2), 14)}`);
