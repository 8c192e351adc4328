// The SQLite cost of a billing draw alone against several in one transaction (issue 29, ADR 0371): a
// stand-in of the draw's statements (the settlement-key read, the account update with RETURNING, the
// ledger insert with its indexes) in WAL mode with synchronous=NORMAL, as the store runs them, 1, 2, 4 and
// 16 draws per transaction, CPU per draw (process.cpuUsage). A sketch of the schema, not the store itself:
// it says what a commit costs against a statement, not what the server pays.
//   node bench/storage/draw-batch.bench.mjs
import Database from 'better-sqlite3';
import { rmSync } from 'node:fs';
function run(per, n) {
  const f = `/tmp/lectern-draw-batch-${per}.db`; for (const s of ['', '-wal', '-shm']) rmSync(f + s, { force: true });
  const db = new Database(f);
  db.pragma('journal_mode = WAL'); db.pragma('synchronous = NORMAL');
  db.exec(`CREATE TABLE accounts (id INTEGER PRIMARY KEY, balance INTEGER, held INTEGER);
  CREATE TABLE ledger (id INTEGER PRIMARY KEY, account_id INTEGER, delta INTEGER, balance_after INTEGER, operation TEXT, reference TEXT, at INTEGER, settlement TEXT UNIQUE, hold_shrink INTEGER);
  CREATE INDEX l_acc ON ledger(account_id, id); CREATE INDEX l_ref ON ledger(reference);
  INSERT INTO accounts VALUES (1, 1000000000, 0);`);
  const pay = db.prepare('UPDATE accounts SET balance = balance - ? WHERE id = ? RETURNING balance, held');
  const ins = db.prepare('INSERT INTO ledger (account_id, delta, balance_after, operation, reference, at, settlement, hold_shrink) VALUES (?,?,?,?,?,?,?,?)');
  const prior = db.prepare('SELECT id FROM ledger WHERE settlement = ?');
  const one = (i) => { prior.get('k' + i); const a = pay.get(20, 1); ins.run(1, -20, a.balance, 'search', 'req-' + i + '-' + Math.random().toString(36).slice(2), i, 'owner-abc-' + i, 0); };
  const tx = db.transaction((i) => { for (let j = 0; j < per; j++) one(i * per + j); });
  const t = process.cpuUsage();
  for (let i = 0; i < n / per; i++) tx(i);
  const u = process.cpuUsage(t);
  db.close();
  return { per, cpu_us_per_draw: +((u.user + u.system) / n).toFixed(1) };
}
for (let r = 0; r < 3; r++) for (const a of [1, 2, 4, 16]) console.log(JSON.stringify(run(a, 20000)));
