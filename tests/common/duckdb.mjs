// The DuckDB that the Node tests (tests/*/duckdb_*.mjs) check cfile against: the
// npm package ./test installs into DUCKDB_DIR, opened as a one-thread in-memory
// database so scans keep their order.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

// A connection, and rows(sql): the result as JSON-ready row objects. Without the
// package the test is skipped: a line saying so, then exit 77.
export async function openDuckDB(duckdbDir) {
  const apiPath = path.resolve(duckdbDir, 'node_modules/@duckdb/node-api/lib/index.js');
  if (!fs.existsSync(apiPath)) {
    console.log(`skipped: no DuckDB at ${apiPath} (./test installs it)`);
    process.exit(77);
  }
  const { DuckDBInstance } = await import(pathToFileURL(apiPath).href);
  const inst = await DuckDBInstance.create(':memory:', { threads: '1' });
  const con = await inst.connect();
  const rows = async (sql) => (await con.runAndReadAll(sql)).getRowObjectsJson();
  return { con, rows };
}

// s as an SQL string literal.
export const q = (s) => "'" + s.replace(/'/g, "''") + "'";
