// Proof by an independent reader: Parquet files written by cfile, read back by DuckDB.
//
// 1. `cfile parquet write` over every Kudu type, nullable or not, scalar and array,
//    under option sets that cover every codec, v1 and v2 pages, dictionary on, off and
//    falling back, page index on and off, bloom filters, many row groups and pages.
//    Every value DuckDB reads, and every value our own reader (`cfile parquet dump
//    --json`) reads, must equal the value written (the JSON lines are the source of truth); DuckDB's parquet_metadata() must show the row groups, codec,
//    encodings and, per row group, min/max statistics equal to the rows' (unsigned
//    order for UINT64); predicates DuckDB prunes with statistics and the page index
//    must count right; parquet_bloom_probe must never exclude a present value.
// 2. `cfile convert` of every golden CFile in ../shared/golden (and of a table at two
//    snapshots): DuckDB's values must equal the case's expected.json.
//
// Usage: node duckdb_writer.mjs CFILE_BIN SHARED_DIR WORK_DIR DUCKDB_DIR
// Exit 0 all good, 1 a mismatch (printed), 77 DuckDB is not installed (skipped).
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

import { openDuckDB, q } from '../common/duckdb.mjs';

const [cfileBin, sharedDir, workRoot, duckdbDir] = process.argv.slice(2);
const { con, rows } = await openDuckDB(duckdbDir);
const work = fs.mkdtempSync(path.join(workRoot, 'pqw-duckdb-'));
let failures = 0, checked = 0;
function fail(msg) {
  failures++;
  if (failures <= 30) console.log('FAIL ' + msg);
}
function cfile(args, input) {
  return execFileSync(cfileBin, args, { input, encoding: 'utf8', stdio: ['pipe', 'pipe', 'pipe'] });
}

// ---- deterministic values ------------------------------------------------------------------
let seed = 0x9e3779b97f4a7c15n;
function rnd64() { // xorshift64*
  seed ^= seed >> 12n; seed ^= (seed << 25n) & 0xffffffffffffffffn; seed ^= seed >> 27n;
  return (seed * 0x2545f4914f6cdd1dn) & 0xffffffffffffffffn;
}
const rnd = (n) => Number(rnd64() % BigInt(n));
const signed = (u, bits) => (u >= 1n << BigInt(bits - 1) ? u - (1n << BigInt(bits)) : u);

const INT = { INT8: [8, true], INT16: [16, true], INT32: [32, true], INT64: [64, true],
  UINT8: [8, false], UINT16: [16, false], UINT32: [32, false], UINT64: [64, false] };
const DEC = { DECIMAL32: [9, 2], DECIMAL64: [18, 4], DECIMAL128: [38, 6] };

// A value: { json: text for the JSON lines, want: what DuckDB gives through expr() }.
function genValue(type, card) {
  const k = BigInt(rnd(card));
  const h = (k * 0x9e3779b97f4a7c15n + 12345n) & 0xffffffffffffffffn;
  if (INT[type]) {
    const [bits, sg] = INT[type];
    let u = h & ((1n << BigInt(bits)) - 1n);
    if (k === 0n) u = (1n << BigInt(bits)) - 1n; // the extreme: -1 or the unsigned max
    const v = sg ? signed(u, bits) : u;
    return { json: v.toString(), want: v.toString() };
  }
  if (DEC[type]) {
    const [p, s] = DEC[type];
    const lim = 10n ** BigInt(p);
    let v = h % (2n * lim - 1n) - (lim - 1n);
    if (k === 0n) v = -(lim - 1n);
    const json = type === 'DECIMAL128' ? JSON.stringify(v.toString()) : v.toString();
    const neg = v < 0n, a = neg ? -v : v, d = a.toString().padStart(s + 1, '0');
    return { json, want: (neg ? '-' : '') + d.slice(0, d.length - s) + '.' + d.slice(d.length - s) };
  }
  switch (type) {
    case 'INT128': {
      const v = signed(((h << 64n) | (h ^ 0x5555n)) & ((1n << 128n) - 1n), 128);
      const u = v < 0n ? v + (1n << 128n) : v;
      return { json: JSON.stringify(v.toString()), want: u.toString(16).padStart(32, '0').toUpperCase() };
    }
    case 'FLOAT': {
      const f = Math.fround(Number(signed(h & 0xffffffn, 24)) / 64);
      return { json: Object.is(f, -0) ? '-0.0' : String(f), want: f };
    }
    case 'DOUBLE': {
      let d = Number(signed(h >> 11n, 53)) / 1024;
      if (k === 1n) d = NaN;
      return { json: Number.isNaN(d) ? '"NaN"' : String(d), want: d };
    }
    case 'BOOL': return { json: String(k % 2n === 1n), want: k % 2n === 1n };
    case 'DATE': {
      const v = Number(h % 3600000n) - 719162; // 0001-01-01 ..
      return { json: String(v), want: String(v) };
    }
    case 'UNIXTIME_MICROS': {
      const v = signed(h, 64) / 1000n; // well inside DuckDB's timestamp range
      return { json: v.toString(), want: v.toString() };
    }
    case 'STRING': case 'VARCHAR': {
      const s = 'v' + k.toString(36) + (k % 7n === 0n ? 'é'.repeat(Number(k % 50n)) : '') +
        (k % 11n === 0n ? 'x'.repeat(80) : '');
      return { json: JSON.stringify(k === 2n ? '' : s), want: k === 2n ? '' : s };
    }
    case 'BINARY': {
      const hex = (h.toString(16) + 'ff00').slice(0, 2 * (1 + Number(k % 9n)));
      return { json: JSON.stringify(hex), want: hex.toUpperCase() };
    }
  }
  throw new Error('type ' + type);
}

// DuckDB expression giving the `want` form of x.
function expr(type, x) {
  if (type === 'DATE') return `CAST(${x} - DATE '1970-01-01' AS VARCHAR)`;
  if (type === 'UNIXTIME_MICROS') return `CASE WHEN isinf(${x}) THEN CAST(${x} AS VARCHAR) ELSE CAST(epoch_us(${x}) AS VARCHAR) END`;
  if (type === 'BINARY' || type === 'INT128') return `hex(${x})`;
  if (type === 'FLOAT' || type === 'DOUBLE') return `CAST(${x} AS DOUBLE)`;
  if (type === 'BOOL' || type === 'STRING' || type === 'VARCHAR') return x;
  return `CAST(${x} AS VARCHAR)`;
}

// `cfile parquet dump --json` form (parsed by parseJson) -> the `want` form of expr()
function ourForm(type, v) {
  if (v === null) return null;
  if (Array.isArray(v)) return v.map((x) => ourForm(type, x));
  if (typeof v === 'object' && v.num !== undefined)
    return type === 'FLOAT' || type === 'DOUBLE' ? Number(v.num) : v.num;
  if (typeof v !== 'string') return v;
  if (type === 'DATE') return String(Math.round(Date.parse(v + 'T00:00:00Z') / 86400000));
  if (type === 'FLOAT' || type === 'DOUBLE') return Number(v);
  if (type === 'BINARY' || type === 'INT128') return v.toUpperCase();
  return v;
}

function same(a, b) {
  if (typeof a === 'number' || typeof b === 'number') {
    const x = typeof a === 'string' ? Number(a) : a, y = typeof b === 'string' ? Number(b) : b;
    return (Number.isNaN(x) && Number.isNaN(y)) || x === y;
  }
  if (Array.isArray(a) || Array.isArray(b)) {
    if (!Array.isArray(a) || !Array.isArray(b) || a.length !== b.length) return false;
    return a.every((v, i) => same(v, b[i]));
  }
  return a === b;
}

// ---- 1. the matrix ---------------------------------------------------------------------------
const TYPES = ['INT8', 'INT16', 'INT32', 'INT64', 'UINT8', 'UINT16', 'UINT32', 'UINT64', 'FLOAT',
  'DOUBLE', 'BOOL', 'STRING', 'VARCHAR', 'BINARY', 'DATE', 'UNIXTIME_MICROS', 'DECIMAL32',
  'DECIMAL64', 'DECIMAL128', 'INT128'];
const cols = [];
TYPES.forEach((t, i) => {
  const card = i % 2 ? 50 : 100000; // half the columns fall back from the dictionary
  const decl = DEC[t] ? `${t}(${DEC[t][0]},${DEC[t][1]})` : t;
  cols.push({ name: `c_${t.toLowerCase()}`, type: t, decl, nullable: false, array: false, card });
  cols.push({ name: `n_${t.toLowerCase()}`, type: t, decl, nullable: true, array: false, card });
  if (i % 3 === 0 || t === 'STRING' || t === 'DECIMAL128')
    cols.push({ name: `a_${t.toLowerCase()}`, type: t, decl, nullable: i % 2 === 0, array: true, card: 300 });
});
const NROWS = 2500;
const table = []; // table[r][c] = want (null, or array of wants)
const lines = [];
for (let r = 0; r < NROWS; r++) {
  const row = [], parts = [];
  for (const c of cols) {
    let want, json;
    if (c.nullable && rnd(5) === 0) { want = null; json = 'null'; }
    else if (c.array) {
      const n = rnd(4), js = [];
      want = [];
      for (let j = 0; j < n; j++) {
        if (rnd(6) === 0) { want.push(null); js.push('null'); continue; }
        const v = genValue(c.type, c.card);
        want.push(v.want); js.push(v.json);
      }
      json = '[' + js.join(',') + ']';
    } else {
      const v = genValue(c.type, c.card);
      want = v.want; json = v.json;
    }
    row.push(want);
    if (json !== 'null' || rnd(2)) parts.push(JSON.stringify(c.name) + ': ' + json); // missing = NULL
  }
  table.push(row);
  lines.push('{' + parts.join(', ') + '}');
}
const schema = cols.map((c) => `${c.name} ${c.decl}${c.array ? '[]' : ''}${c.nullable ? ' NULL' : ''}`).join(', ');
const input = path.join(work, 'rows.jsonl');
fs.writeFileSync(input, lines.join('\n') + '\n');

const OPTION_SETS = [
  { args: [], codec: 'SNAPPY' },
  { args: ['--codec', 'none', '--v2', '--no-dictionary'], codec: 'UNCOMPRESSED' },
  { args: ['--codec', 'gzip', '--page-rows', '100', '--row-group-rows', '700', '--dict-bytes', '2000'], codec: 'GZIP', rgs: 4 },
  { args: ['--codec', 'zstd', '--v2', '--page-bytes', '1000', '--row-group-rows', '500', '--bloom', 'all'], codec: 'ZSTD', rgs: 5, bloom: true },
  { args: ['--codec', 'lz4_raw', '--no-page-index', '--no-statistics', '--no-crc'], codec: 'LZ4_RAW', nostats: true },
  { args: ['--codec', 'brotli', '--v2', '--row-group-bytes', '30000', '--dict-bytes', '500'], codec: 'BROTLI' },
];

function cmpBig(a, b) { const x = BigInt(a), y = BigInt(b); return x < y ? -1 : x > y ? 1 : 0; }

for (const [k, set] of OPTION_SETS.entries()) {
  const out = path.join(work, `m${k}.parquet`);
  cfile(['parquet', 'write', '--quiet', '--schema', schema, '--input', input, ...set.args, out]);
  const label = `set ${k} (${set.args.join(' ') || 'defaults'})`;
  // every value
  const sel = cols.map((c) => (c.array ? `list_transform(${c.name}, x -> ${expr(c.type, 'x')})` : expr(c.type, c.name)) + ` AS ${c.name}`).join(', ');
  const got = await rows(`SELECT ${sel} FROM read_parquet(${q(out)})`);
  if (got.length !== NROWS) fail(`${label}: ${got.length} rows, want ${NROWS}`);
  for (let r = 0; r < Math.min(got.length, NROWS); r++)
    cols.forEach((c, i) => {
      checked++;
      const w = table[r][i], g = got[r][c.name];
      if (!(w === null ? g === null : same(g, w)))
        fail(`${label}: row ${r} column ${c.name} (${c.type}): DuckDB ${JSON.stringify(g)}, wrote ${JSON.stringify(w)}`);
    });
  // our own reader: `cfile parquet dump --json` (shared/parquet/README.md value forms)
  const dump = parseJson(execFileSync(cfileBin, ['parquet', 'dump', '--json', out],
    { encoding: 'utf8', maxBuffer: 1 << 30 }));
  if (dump.rows.length !== NROWS) fail(`${label}: our reader gives ${dump.rows.length} rows`);
  for (let r = 0; r < Math.min(dump.rows.length, NROWS); r++)
    cols.forEach((c, i) => {
      checked++;
      const w = table[r][i], g = ourForm(c.type, dump.rows[r][i]);
      if (!(w === null ? g === null : same(g, w)))
        fail(`${label}: row ${r} column ${c.name} (${c.type}): our reader ${JSON.stringify(g)}, wrote ${JSON.stringify(w)}`);
    });
  // metadata: row groups, codec, statistics per row group
  const md = await rows(`SELECT * FROM parquet_metadata(${q(out)}) ORDER BY row_group_id, column_id`);
  const rgRows = new Map();
  for (const m of md) rgRows.set(Number(m.row_group_id), Number(m.row_group_num_rows));
  if (set.rgs && rgRows.size < set.rgs) fail(`${label}: ${rgRows.size} row groups, want >= ${set.rgs}`);
  let first = 0;
  const starts = [];
  for (const [g, n] of [...rgRows.entries()].sort((a, b) => a[0] - b[0])) { starts[g] = [first, n]; first += n; }
  if (first !== NROWS) fail(`${label}: row groups hold ${first} rows`);
  let dictFallback = 0;
  for (const m of md) {
    if (m.compression !== set.codec) fail(`${label}: codec ${m.compression}, want ${set.codec}`);
    const ci = cols.findIndex((c) => c.name === m.path_in_schema.split(',')[0]);
    const c = cols[ci];
    if (/PLAIN/.test(m.encodings) && /RLE_DICTIONARY/.test(m.encodings) && c.card > 1000) dictFallback++;
    if (c.array || !(INT[c.type] || c.type === 'STRING')) continue;
    const [s0, n] = starts[Number(m.row_group_id)];
    let mn = null, mx = null;
    for (let r = s0; r < s0 + n; r++) {
      const v = table[r][ci];
      if (v === null) continue;
      const lt = INT[c.type] ? (a, b) => cmpBig(a, b) < 0 : (a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)) < 0;
      if (mn === null || lt(v, mn)) mn = v;
      if (mx === null || lt(mx, v)) mx = v;
    }
    checked++;
    if (set.nostats) {
      if (m.stats_min_value !== null) fail(`${label}: statistics written with --no-statistics`);
    } else if (m.stats_min_value !== mn || m.stats_max_value !== mx) {
      fail(`${label}: row group ${m.row_group_id} ${c.name}: stats ${m.stats_min_value}..${m.stats_max_value}, rows ${mn}..${mx}`);
    }
  }
  if (!/no-dictionary/.test(set.args.join(' ')) && dictFallback === 0) fail(`${label}: no chunk fell back from the dictionary to PLAIN`);
  // predicates DuckDB prunes with statistics (and the page index): counts must be right
  for (const [ci, c] of cols.entries()) {
    if (c.array || !(c.type === 'INT64' || c.type === 'UINT64' || c.type === 'STRING')) continue;
    for (const r of [0, 17, NROWS - 1]) {
      const v = table[r][ci];
      if (v === null) continue;
      const lit = c.type === 'STRING' ? q(v) : `${v}::${c.type === 'UINT64' ? 'UBIGINT' : 'BIGINT'}`;
      const want = table.filter((row) => row[ci] === v).length;
      const [{ n }] = await rows(`SELECT count(*)::INTEGER AS n FROM read_parquet(${q(out)}) WHERE ${c.name} = ${lit}`);
      checked++;
      if (n !== want) fail(`${label}: ${c.name} = ${v}: DuckDB counts ${n}, want ${want}`);
    }
  }
  // bloom filters: a present value is never excluded from its row group
  if (set.bloom) {
    for (const [ci, c] of cols.entries()) {
      if (c.array || !['INT32', 'INT64', 'STRING', 'DOUBLE', 'UINT64'].includes(c.type)) continue;
      for (const r of [3, 1234]) {
        const v = table[r][ci];
        if (v === null || Number.isNaN(v)) continue;
        const g = [...starts.entries()].find(([, [s0, n]]) => r >= s0 && r < s0 + n)[0];
        const lit = c.type === 'STRING' ? q(v) : c.type === 'DOUBLE' ? `${v}::DOUBLE` : v;
        const res = await rows(`SELECT row_group_id, bloom_filter_excludes FROM parquet_bloom_probe(${q(out)}, ${q(c.name)}, ${lit})`);
        const mine = res.find((x) => Number(x.row_group_id) === g);
        checked++;
        if (!mine || mine.bloom_filter_excludes !== false) fail(`${label}: bloom of ${c.name} excludes ${v} from row group ${g}: ${JSON.stringify(res)}`);
      }
      // an absent value is excluded from most row groups
      const res = await rows(`SELECT bloom_filter_excludes AS x FROM parquet_bloom_probe(${q(out)}, ${q(c.name)}, ${c.type === 'STRING' ? "'absent value'" : c.type === 'DOUBLE' ? '0.123456789::DOUBLE' : '1234567'})`);
      if (res.filter((x) => x.x === true).length === 0) fail(`${label}: bloom of ${c.name} excludes nothing`);
    }
  }
  const [{ cb }] = await rows(`SELECT created_by AS cb FROM parquet_file_metadata(${q(out)})`);
  if (!/^cfile version \d+\.\d+\.\d+$/.test(cb)) fail(`${label}: created_by ${cb}`);
}

// ---- 2. golden CFiles converted ---------------------------------------------------------------
// expected.json keeps int64 values as JSON numbers: parse numbers as their text.
function parseJson(text) {
  let i = 0;
  const ws = () => { while (/\s/.test(text[i])) i++; };
  function val() {
    ws();
    const ch = text[i];
    if (ch === '{') {
      i++; const o = {}; ws();
      if (text[i] === '}') { i++; return o; }
      for (;;) { ws(); const k = val(); ws(); i++; o[k] = val(); ws(); if (text[i++] === '}') return o; }
    }
    if (ch === '[') {
      i++; const a = []; ws();
      if (text[i] === ']') { i++; return a; }
      for (;;) { a.push(val()); ws(); if (text[i++] === ']') return a; }
    }
    if (ch === '"') {
      let j = i + 1;
      while (text[j] !== '"') j += text[j] === '\\' ? 2 : 1;
      const s = JSON.parse(text.slice(i, j + 1)); i = j + 1; return s;
    }
    for (const [lit, v] of [['true', true], ['false', false], ['null', null]])
      if (text.startsWith(lit, i)) { i += lit.length; return v; }
    const m = /^-?\d+(\.\d+)?([eE][-+]?\d+)?/.exec(text.slice(i, i + 64));
    i += m[0].length;
    return { num: m[0] };
  }
  return val();
}
// expected.json form -> the `want` form of expr()
function goldenWant(type, v) {
  if (v === null) return null;
  if (Array.isArray(v)) return v.map((x) => goldenWant(type, x));
  if (type === 'FLOAT' || type === 'DOUBLE') {
    if (typeof v === 'string') return /^0x/.test(v) ? NaN : Number(v);
    return Number(v.num);
  }
  if (type === 'BINARY') return v.toUpperCase();
  if (type === 'INT128') {
    const b = BigInt(v), u = b < 0n ? b + (1n << 128n) : b;
    return u.toString(16).padStart(32, '0').toUpperCase();
  }
  if (type === 'STRING' || type === 'VARCHAR' || type === 'BOOL') return typeof v === 'object' && v.hex !== undefined ? { hex: v.hex } : v;
  return typeof v === 'object' ? v.num : v; // integers, DECIMAL128 strings
}

const golden = path.join(sharedDir, 'golden');
let goldenFiles = 0;
for (const dir of fs.readdirSync(golden).sort()) {
  const d = path.join(golden, dir);
  if (!fs.statSync(d).isDirectory() || dir.startsWith('bloom-')) continue;
  const cf = fs.readdirSync(d).find((f) => f.endsWith('.cfile'));
  if (!cf) continue;
  const exp = parseJson(fs.readFileSync(path.join(d, 'expected.json'), 'utf8'));
  const out = path.join(work, `g_${dir}.parquet`);
  const type = exp.type;
  let want = exp.values.map((v) => goldenWant(type, v));
  // Bytes that are not UTF-8 in a STRING: Parquet's STRING must be UTF-8, so cfile refuses
  // the column unless told to write it as binary; DuckDB reads that as BLOB.
  const hasHex = JSON.stringify(want).includes('"hex"');
  if (hasHex) {
    let refused = false;
    try { cfile(['convert', '--quiet', '--name', 'v', path.join(d, cf), out]); } catch (err) {
      refused = err.status === 1 && /not UTF-8/.test(err.stderr);
    }
    checked++;
    if (!refused || fs.existsSync(out)) fail(`golden ${dir}: a STRING that is not UTF-8 was not refused`);
  }
  cfile(['convert', '--quiet', '--name', 'v', ...(hasHex ? ['--binary', 'v'] : []), path.join(d, cf), out]);
  goldenFiles++;
  // DuckDB reads the timestamps INT64_MAX and -INT64_MAX as its infinities.
  if (type === 'UNIXTIME_MICROS')
    want = want.map(function inf(x) {
      return Array.isArray(x) ? x.map(inf) : x === '9223372036854775807' ? 'infinity' : x === '-9223372036854775807' ? '-infinity' : x;
    });
  let e = exp.is_array ? `list_transform(v, x -> ${expr(type, 'x')})` : expr(type, 'v');
  if (hasHex) {
    e = exp.is_array ? 'list_transform(v, x -> hex(x))' : 'hex(v)';
    const toHex = (x) => (x === null ? null : Array.isArray(x) ? x.map(toHex) : typeof x === 'object' ? x.hex.toUpperCase() : Buffer.from(x, 'utf8').toString('hex').toUpperCase());
    want = want.map(toHex);
  }
  const from = `read_parquet(${q(out)})`;
  let got;
  try {
    got = await rows(`SELECT ${e} AS v FROM ${from}`);
  } catch (err) {
    fail(`golden ${dir}: DuckDB: ${err.message.split('\n')[0]}`);
    continue;
  }
  if (got.length !== want.length) { fail(`golden ${dir}: ${got.length} rows, want ${want.length}`); continue; }
  let bad = 0;
  for (let r = 0; r < want.length; r++) {
    checked++;
    const w = want[r], g = got[r].v;
    if (!(w === null ? g === null : same(g, w)) && bad++ < 3)
      fail(`golden ${dir}: row ${r}: DuckDB ${JSON.stringify(g)}, expected ${JSON.stringify(w)}`);
  }
}
if (goldenFiles < 100) fail(`only ${goldenFiles} golden CFiles found under ${golden}`);

// ---- a table at two snapshots ----------------------------------------------------------------
const tdir = path.join(work, 'tb');
cfile(['table', 'create', tdir, '--schema', 'id INT64 KEY, s STRING NULL, l INT32[] NULL']);
fs.writeFileSync(path.join(work, 't.jsonl'), '{"id": 1, "s": "a", "l": [1, 2]}\n{"id": 2, "s": null, "l": []}\n{"id": 3, "s": "c"}\n');
cfile(['table', 'import', tdir, path.join(work, 't.jsonl'), '--ts', '10']);
cfile(['table', 'update', tdir, '--key', '1', '--set', 's=z', '--ts', '20']);
cfile(['convert', '--quiet', tdir, path.join(work, 't_now.parquet')]);
cfile(['convert', '--quiet', '--as-of', '10', tdir, path.join(work, 't_10.parquet')]);
const tNow = await rows(`SELECT id::INTEGER AS id, s, l FROM read_parquet(${q(path.join(work, 't_now.parquet'))}) ORDER BY id`);
const t10 = await rows(`SELECT id::INTEGER AS id, s, l FROM read_parquet(${q(path.join(work, 't_10.parquet'))}) ORDER BY id`);
const wantNow = [{ id: 1, s: 'z', l: [1, 2] }, { id: 2, s: null, l: [] }, { id: 3, s: 'c', l: null }];
checked += 2;
if (JSON.stringify(tNow) !== JSON.stringify(wantNow)) fail(`table now: ${JSON.stringify(tNow)}`);
wantNow[0].s = 'a';
if (JSON.stringify(t10) !== JSON.stringify(wantNow)) fail(`table as of 10: ${JSON.stringify(t10)}`);

// ---- crash safety: a writer killed half-way leaves OUT as it was -----------------------------
{
  const out = path.join(work, 'kill.parquet');
  cfile(['parquet', 'write', '--quiet', '--schema', 'x INT64', out], '{"x": 1}\n{"x": 2}\n');
  const before = fs.readFileSync(out);
  const { spawn } = await import('node:child_process');
  let sawTmp = 0;
  for (let round = 0; round < 3; round++) {
    const p = spawn(cfileBin, ['parquet', 'write', '--quiet', '--row-group-rows', '1000', '--schema', 'x INT64', out]);
    const exited = new Promise((res) => p.on('exit', res));
    p.stdin.on('error', () => {});
    let chunk = '';
    for (let i = 0; i < 5000; i++) chunk += `{"x": ${i}}\n`;
    for (let i = 0; i < 20 + 40 * round; i++) p.stdin.write(chunk); // row groups reach the temporary file
    await new Promise((res) => setTimeout(res, 200 + 100 * round));
    p.kill('SIGKILL');
    await exited;
    checked++;
    if (!fs.readFileSync(out).equals(before)) fail(`kill round ${round}: OUT changed under a killed writer`);
    const [{ n }] = await rows(`SELECT count(*)::INTEGER AS n FROM read_parquet(${q(out)})`);
    if (n !== 2) fail(`kill round ${round}: OUT reads ${n} rows`);
    for (const f of fs.readdirSync(work).filter((f) => f.startsWith('kill.parquet.tmp.'))) {
      sawTmp++; // the writer was killed with its temporary file open: a real mid-write kill
      fs.rmSync(path.join(work, f));
    }
  }
  if (sawTmp === 0) fail('no kill round caught the writer mid-file');
}

fs.rmSync(work, { recursive: true, force: true });
console.log(`${checked} values and facts checked, ${OPTION_SETS.length} option sets, ${goldenFiles} golden CFiles, ${failures} failures`);
process.exit(failures ? 1 : 0);
