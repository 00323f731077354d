// bench/import_duckdb.mjs: DuckDB loading a CSV into a table with a primary key,
// the peer of `cfile table import` in bench/import_scaling.sh.
//
//   node bench/import_duckdb.mjs CSV THREADS
//
// Creates an in-memory table t (id BIGINT PRIMARY KEY, name VARCHAR, v INTEGER)
// and runs INSERT INTO t SELECT * FROM read_csv(CSV) once, with SET threads=THREADS
// (0: DuckDB's default). Prints one JSON line: wall and CPU seconds of the insert
// (CPU of this process: every DuckDB thread), rows, and the process's peak RSS.
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const [csv, threadsArg = '1'] = process.argv.slice(2);
if (!csv) {
  console.error('usage: node bench/import_duckdb.mjs CSV THREADS');
  process.exit(2);
}
const root = process.env.CF_DUCKDB_DIR || path.join(here, '../tools/duckdb');
const api = path.join(root, 'node_modules/@duckdb/node-api/lib/index.js');
if (!fs.existsSync(api)) {
  console.error(`no DuckDB at ${root} (tools/duckdb/README.md)`);
  process.exit(3);
}
const { DuckDBInstance } = await import(pathToFileURL(api).href);
const threads = Number(threadsArg);
const inst = await DuckDBInstance.create(':memory:', threads > 0 ? { threads: String(threads) } : {});
const con = await inst.connect();
const used = (await (await con.runAndReadAll("SELECT current_setting('threads')")).getRows())[0][0];
await con.run('CREATE TABLE t (id BIGINT PRIMARY KEY, name VARCHAR, v INTEGER)');
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1e6; };
const t0 = performance.now(), c0 = cpu();
await con.run(`INSERT INTO t SELECT * FROM read_csv('${csv}', header = true,
  columns = {'id': 'BIGINT', 'name': 'VARCHAR', 'v': 'INTEGER'})`);
const wall = (performance.now() - t0) / 1e3, cpus = cpu() - c0;
const rows = Number((await (await con.runAndReadAll('SELECT count(*) FROM t')).getRows())[0][0]);
console.log(JSON.stringify({ threads: Number(used), rows, wall_s: +wall.toFixed(3),
  cpu_s: +cpus.toFixed(3), peak_rss_mb: Math.round(process.resourceUsage().maxRSS / 1024) }));
