// CSV (and JSON lines) as DuckDB writes them, imported by `cfile table import`,
// checked by DuckDB (issue 30 item 6): every type DuckDB shares with Kudu
// (integers signed and unsigned, HUGEINT as INT128, FLOAT, DOUBLE, BOOLEAN,
// VARCHAR, DATE, TIMESTAMP and TIMESTAMPTZ as UNIXTIME_MICROS, DECIMAL at the
// three widths), edge values and a few thousand generated rows, NULL in every
// column.
//
// 1. COPY ... TO csv, `cfile table import`: `table scan --format csv --raw-values`
//    (days, microseconds, unscaled integers) equals what DuckDB computes from its
//    own values (date - 1970-01-01, epoch_us, the decimal's digits), row for row.
// 2. `table scan --format csv` (the human forms) read by DuckDB as the source's
//    types equals the source table.
// 2b. COPY ... TO json (JSON lines) imports to the same values as the CSV.
// 3. That CSV imports into a new table to the same values (`scan --json` equal).
// Not shared: BLOB (DuckDB's CSV writes bytes as \xNN text, cfile's BINARY CSV
// form is hex), float infinities and NaN (DuckDB writes inf/nan; cfile's forms
// are Infinity/NaN and refuse the others with an error).
//
// Usage: node duckdb_values.mjs CFILE_BIN WORK_DIR DUCKDB_DIR
// Exit 0 all good, 1 a mismatch (printed), 77 DuckDB is not installed (skipped).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { openDuckDB, q } from '../common/duckdb.mjs';

const [cfileBin, workRoot, duckdbDir] = process.argv.slice(2);
const { con, rows } = await openDuckDB(duckdbDir);
const work = fs.mkdtempSync(path.join(workRoot, 'duckdb-values-'));
let failures = 0;
function fail(msg) {
  failures++;
  console.log('FAIL ' + msg);
}
function cfile(args) {
  return execFileSync(cfileBin, args, { encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'],
    maxBuffer: 1 << 28 });
}

// A zone away from UTC, so TIMESTAMPTZ values are written with an offset (+05).
// A fixed one: for dates before a region's standard time DuckDB writes the local
// mean time (Asia/Kolkata's 05:53:28 in year 1) with the offset cut to +05:53,
// text that does not hold DuckDB's own value.
await con.run("SET TimeZone='Etc/GMT-5'");

const cols = [
  // name, DuckDB type, Kudu type, DuckDB expression of the raw integer form
  ['i8', 'TINYINT', 'INT8'], ['i16', 'SMALLINT', 'INT16'], ['i32', 'INTEGER', 'INT32'],
  ['i64', 'BIGINT', 'INT64'], ['u8', 'UTINYINT', 'UINT8'], ['u16', 'USMALLINT', 'UINT16'],
  ['u32', 'UINTEGER', 'UINT32'], ['u64', 'UBIGINT', 'UINT64'], ['h', 'HUGEINT', 'INT128'],
  ['f', 'FLOAT', 'FLOAT'], ['d', 'DOUBLE', 'DOUBLE'], ['b', 'BOOLEAN', 'BOOL'],
  ['s', 'VARCHAR', 'STRING'],
  ['dt', 'DATE', 'DATE', 'BIGINT', "(dt - DATE '1970-01-01')::BIGINT"],
  ['ts', 'TIMESTAMP', 'UNIXTIME_MICROS', 'BIGINT', 'epoch_us(ts)'],
  ['tz', 'TIMESTAMPTZ', 'UNIXTIME_MICROS', 'BIGINT', 'epoch_us(tz)'],
  ['d9', 'DECIMAL(9,2)', 'DECIMAL32(9,2)', 'BIGINT', "replace(d9::VARCHAR, '.', '')::BIGINT"],
  ['d18', 'DECIMAL(18,4)', 'DECIMAL64(18,4)', 'BIGINT', "replace(d18::VARCHAR, '.', '')::BIGINT"],
  ['d38', 'DECIMAL(38,10)', 'DECIMAL128(38,10)', 'HUGEINT',
    "replace(d38::VARCHAR, '.', '')::HUGEINT"],
];
const names = ['id', ...cols.map((c) => c[0])];
await con.run(`CREATE TABLE src (id INTEGER, ${cols.map((c) => `${c[0]} ${c[1]}`).join(', ')})`);

// Edge rows: the ends of every range, leap days, subnormals, -0.0, odd strings.
const edge = [
  [-128, -32768, -2147483648, '-9223372036854775808', 0, 0, 0, '0',
    "'-170141183460469231731687303715884105728'::HUGEINT", "'-3.4028235e38'::FLOAT",
    "'-1.7976931348623157e308'::DOUBLE", 'false', "''", "DATE '0001-01-01'",
    "TIMESTAMP '0001-01-01 00:00:00'", "TIMESTAMPTZ '0001-01-01 05:00:00+05'",
    '-9999999.99', '-99999999999999.9999', "'-9999999999999999999999999999.9999999999'"],
  [127, 32767, 2147483647, '9223372036854775807', 255, 65535, 4294967295,
    '18446744073709551615', "'170141183460469231731687303715884105727'::HUGEINT",
    "'3.4028235e38'::FLOAT", "'1.7976931348623157e308'::DOUBLE", 'true',
    "'a,\"b\"\n''c''\r\nd é ✓'", "DATE '9999-12-31'", "TIMESTAMP '9999-12-31 23:59:59.999999'",
    "TIMESTAMPTZ '9999-12-31 18:59:59.999999+00'", '9999999.99', '99999999999999.9999',
    "'9999999999999999999999999999.9999999999'"],
  [0, 0, 0, '0', 1, 1, 1, '1', '0', "'1e-45'::FLOAT", "'5e-324'::DOUBLE", 'true',
    "'NULL'", "DATE '2000-02-29'", "TIMESTAMP '1969-12-31 23:59:59.999999'",
    "TIMESTAMPTZ '1970-01-01 00:00:00+00'", '-0.01', '0.0001', "'-0.0000000001'"],
  [-1, -1, -1, '-1', 2, 2, 2, '2', '-1', "'-0.0'::FLOAT", "'-0.0'::DOUBLE", 'false',
    "' lead and trail '", "DATE '1900-03-01'", "TIMESTAMP '1900-02-28 12:00:00.5'",
    "TIMESTAMPTZ '2024-02-29 23:59:59.000001-08:00'", '0', '-0.0001', "'0'"],
  [1, 1, 1, '1', 3, 3, 3, '3', '1', "'1.1754944e-38'::FLOAT", "'2.2250738585072014e-308'::DOUBLE",
    'true', "'x'", "DATE '1970-01-01'", "TIMESTAMP '2024-01-02 03:04:05.000006'",
    "TIMESTAMPTZ '2024-01-02 03:04:05.000006+00'", '12.34', '12.3', "'12.34'"],
];
let id = 0;
for (const e of edge)
  await con.run(`INSERT INTO src VALUES (${id++}, ${e.join(', ')})`);
await con.run(`INSERT INTO src VALUES (${id++}${', NULL'.repeat(cols.length)})`);

// Generated rows: values spread over each range from hash(i); about a tenth NULL.
const n = 3000;
const gen = {
  i8: '(hash(i) % 256)::INTEGER - 128', i16: '(hash(i) % 65536)::INTEGER - 32768',
  i32: '(hash(i) % 4294967296)::BIGINT - 2147483648',
  i64: '(hash(i) >> 1)::BIGINT * (CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END)',
  u8: 'hash(i) % 256', u16: 'hash(i) % 65536', u32: 'hash(i) % 4294967296', u64: 'hash(i)',
  h: '(hash(i)::HUGEINT << 62) * (CASE WHEN i % 3 = 0 THEN -1 ELSE 1 END) + hash(i + 7)',
  f: "((hash(i) % 2000001)::FLOAT - 1000000) / pow(10, (hash(i + 1) % 40)::INTEGER - 20)::FLOAT",
  d: "((hash(i) % 20000000001)::DOUBLE - 10000000000) / pow(10, (hash(i + 1) % 580)::INTEGER - 290)",
  b: 'hash(i) % 2 = 0',
  s: "repeat(chr((65 + hash(i) % 1000)::INTEGER), (hash(i + 1) % 5)::INTEGER) || " +
    "CASE WHEN i % 7 = 0 THEN ',\"' ELSE '' END",
  dt: "DATE '0001-01-01' + (hash(i) % 3652059)::INTEGER",
  ts: 'make_timestamp((hash(i) % 315537897600000000)::BIGINT - 62135596800000000)',
  tz: "make_timestamp((hash(i + 3) % 315537897600000000)::BIGINT - 62135596800000000)::TIMESTAMPTZ",
  d9: '((hash(i) % 1999999999)::BIGINT - 999999999)::DECIMAL(9,0) / 100',
  d18: '((hash(i) % 1999999999999999999)::HUGEINT - 999999999999999999)::DECIMAL(18,0) / 10000',
  d38: "((hash(i)::HUGEINT << 60) + hash(i + 1))::DECIMAL(38,0) / 10000000000 * " +
    "(CASE WHEN i % 2 = 0 THEN 1 ELSE -1 END)",
};
const genSel = cols.map((c, k) =>
  `CASE WHEN hash(i * 31 + ${k}) % 10 = 0 THEN NULL ELSE (${gen[c[0]]})::${c[1]} END`);
await con.run(`INSERT INTO src SELECT i, ${genSel.join(', ')} FROM range(${id}, ${id + n}) t(i)`);
const total = id + n;

const srcCsv = path.join(work, 'src.csv');
await con.run(`COPY src TO ${q(srcCsv)} (HEADER)`);

// ---- 1. import; the raw forms equal DuckDB's own ---------------------------------------
const schema = 'id INT32 KEY, ' + cols.map((c) => `${c[0]} ${c[2]} NULL`).join(', ');
const t1 = path.join(work, 't1');
try {
  cfile(['table', 'import', t1, '--schema', schema, srcCsv]);
} catch (e) {
  fail('import of DuckDB\'s CSV: ' + e.stderr);
  process.exit(1);
}
const rawCsv = path.join(work, 'raw.csv');
fs.writeFileSync(rawCsv, cfile(['table', 'scan', t1, '--format', 'csv', '--raw-values']));
const rawTypes = '{' + [["'id'", "'INTEGER'"], ...cols.map((c) => [q(c[0]), q(c[3] || c[1])])]
  .map(([a, b]) => `${a}: ${b}`).join(', ') + '}';
// "" is the empty string, an empty field NULL (csv.h), as DuckDB wrote them.
const csvOpts = "header = true, quote = '\"', escape = '\"', nullstr = '', " +
  'allow_quoted_nulls = false, auto_detect = false';
await con.run(`CREATE TABLE raw AS SELECT * FROM read_csv(${q(rawCsv)}, ${csvOpts}, ` +
  `columns = ${rawTypes})`);
// FLOAT/DOUBLE compared by their text (bit-exact, -0.0 apart from 0.0).
const rawWant = ['id', ...cols.map((c) => c[4] ? `${c[4]} AS ${c[0]}`
  : c[1] === 'FLOAT' || c[1] === 'DOUBLE' ? `${c[0]}::VARCHAR AS ${c[0]}` : c[0])].join(', ');
const rawGot = names.map((nm) => {
  const c = cols.find((x) => x[0] === nm);
  return c && (c[1] === 'FLOAT' || c[1] === 'DOUBLE') ? `${nm}::VARCHAR AS ${nm}` : nm;
}).join(', ');
async function compare(what, want, got) {
  const count = await rows(`SELECT (SELECT count(*) FROM (${got})) AS n`);
  if (Number(count[0].n) !== total)
    fail(`${what}: ${count[0].n} rows, want ${total}`);
  const missing = await rows(`(${want}) EXCEPT (${got}) ORDER BY id LIMIT 5`);
  const extra = await rows(`(${got}) EXCEPT (${want}) ORDER BY id LIMIT 5`);
  for (const r of missing) fail(`${what}: DuckDB has ${JSON.stringify(r)}`);
  for (const r of extra) fail(`${what}: cfile has ${JSON.stringify(r)}`);
}
await compare('raw values', `SELECT ${rawWant} FROM src`, `SELECT ${rawGot} FROM raw`);

// ---- 2. the human forms, read by DuckDB as the source's types ---------------------------
const humanCsv = path.join(work, 'human.csv');
fs.writeFileSync(humanCsv, cfile(['table', 'scan', t1, '--format', 'csv']));
const srcTypes = '{' + [["'id'", "'INTEGER'"], ...cols.map((c) => [q(c[0]), q(c[1])])]
  .map(([a, b]) => `${a}: ${b}`).join(', ') + '}';
await con.run(`CREATE TABLE human AS SELECT * FROM read_csv(${q(humanCsv)}, ${csvOpts}, ` +
  `columns = ${srcTypes})`);
const fl = names.map((nm) => {
  const c = cols.find((x) => x[0] === nm);
  return c && (c[1] === 'FLOAT' || c[1] === 'DOUBLE') ? `${nm}::VARCHAR AS ${nm}` : nm;
}).join(', ');
await compare('human forms', `SELECT ${fl} FROM src`, `SELECT ${fl} FROM human`);

// ---- 2b. JSON lines as DuckDB writes them import to the same values ----------------------
// (dates and timestamps as strings, decimals and HUGEINT as JSON numbers, FLOAT as
// the double's shortest text).
const srcJsonl = path.join(work, 'src.jsonl');
await con.run(`COPY src TO ${q(srcJsonl)} (FORMAT JSON)`);
const tj = path.join(work, 'tj');
try {
  cfile(['table', 'import', tj, '--schema', schema, srcJsonl]);
  if (cfile(['table', 'scan', tj, '--json']) !== cfile(['table', 'scan', t1, '--json']))
    fail('DuckDB\'s JSON lines import to other values than its CSV');
} catch (e) {
  fail('import of DuckDB\'s JSON lines: ' + e.stderr);
}

// ---- 3. the human CSV imports back to the same values -----------------------------------
const t2 = path.join(work, 't2');
try {
  cfile(['table', 'import', t2, '--schema', schema, humanCsv]);
  if (cfile(['table', 'scan', t2, '--json']) !== cfile(['table', 'scan', t1, '--json']))
    fail('scan --format csv imported again: the values differ');
} catch (e) {
  fail('import of scan --format csv: ' + e.stderr);
}

if (!failures) fs.rmSync(work, { recursive: true, force: true });
if (failures) {
  console.log(`${failures} failure(s)`);
  process.exit(1);
}
console.log(`ok: ${total} rows of ${cols.length} columns through DuckDB's CSV and back`);
