// Table checks of the real development set (ADR 0342): cells and their relations read from LaTeX tables
// (booktabs with a spanning header, no rules, longtable, unreadable macros), and scored on GFM tables.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cellPasses, cellText, parseColumnSpec, sourceTables, tableChecks } from '../../bench/recognition/realset/tables.js';

const BOOKTABS = String.raw`
\begin{table}\caption{Sales}
\begin{tabular}{@{}l*{2}{r}rr@{}}
\toprule
Region & \multicolumn{2}{c}{Revenue} & \multicolumn{2}{c}{Staff}\\
\cmidrule(lr){2-3}\cmidrule(lr){4-5}
 & 2023 & 2022 & Full & Part \\
\midrule
North & 310 & 295 & 41 & 39\\
South & \textbf{265} & 270 & 35 & 36\\
East & 190 & 181 & $22$ & 21\\
West & 402 & 388 & 58 & \cite{x}\\
\bottomrule
\end{tabular}\end{table}`;

test('a booktabs table with spanning headers: columns, header rows, spans and rules', () => {
  assert.deepEqual(parseColumnSpec('@{}l*{2}{r}rr@{}'), { columns: 5, vertical: false });
  assert.deepEqual(parseColumnSpec('|p{3cm}|c|'), { columns: 2, vertical: true });
  const [t] = sourceTables(BOOKTABS);
  assert.ok(t);
  assert.equal(t.headerRows, 2);
  assert.equal(t.rules, 'horizontal');
  assert.equal(t.spanning, true);
  assert.deepEqual(t.rows[0]!.map((c) => [c.text, c.span]), [['Region', 1], ['Revenue', 2], ['Staff', 2]]);
  assert.equal(t.rows[5]!.at(-1)!.text, null, 'a \\cite is not expanded');
  const checks = tableChecks(t, () => true);
  assert.ok(checks.length >= 4);
  // No check uses the unreadable cell, as cell or neighbour.
  assert.ok(checks.every((c) => ![c.cell, c.left, c.right, c.up, c.down].includes('')));
  // Body cells are headed by their sub-column; a sub-column header (unique in its table) by its spanning one.
  assert.ok(checks.some((c) => c.top_heading === '2022' && c.left !== undefined), JSON.stringify(checks));
  assert.ok(checks.some((c) => c.cell === '2023' && c.top_heading === 'Revenue'), JSON.stringify(checks));
  assert.equal(checks.filter((c) => c.spanning).length, checks.length);
});

test('cell text: font switches and escapes expand, other macros do not', () => {
  assert.equal(cellText('{\\small\\textbf{Net} income}').text, 'Net income');
  assert.equal(cellText('\\num{14641}').text, '14641');
  assert.equal(cellText('12\\,\\%').text, '12 %');
  assert.equal(cellText('$\\pm 3$').text, '± 3');
  assert.equal(cellText('\\cs{foo}').text, null);
  assert.equal(cellText('$\\alpha$').text, null);
  assert.equal(cellText('|\\bibname|').text, null);
});

test('a table without rules has no header; a longtable keeps its first head only; verbatim is skipped', () => {
  const plain = String.raw`\begin{tabular}{ll}
arrow.mf & Source of the font\\ chemarrow.sty & The macros\\ Readme.txt & English readme
\end{tabular}`;
  const [t] = sourceTables(plain);
  assert.equal(t!.rules, 'none');
  assert.equal(t!.headerRows, 0);
  assert.ok(tableChecks(t!, () => true).every((c) => c.top_heading === undefined));
  const long = String.raw`\begin{longtable}{ll}
\caption{Keys}\\ \hline Key & Value\\ \hline \endfirsthead
Key & Value (continued)\\ \endhead
\hline \endfoot
alpha & one\\ beta & two\\ gamma & three\\
\end{longtable}`;
  const [l] = sourceTables(long);
  assert.deepEqual(l!.rows.map((r) => r.map((c) => c.text)), [['Key', 'Value'], ['alpha', 'one'], ['beta', 'two'], ['gamma', 'three']]);
  assert.equal(l!.headerRows, 1);
  assert.equal(sourceTables(String.raw`\begin{verbatim}` + plain + String.raw`\end{verbatim}`).length, 0);
});

test('scoring on GFM: neighbours, a heading over the first of its spanned columns, and plain text', () => {
  const md = ['| Region | Revenue |  | Staff |  |', '| --- | --- | --- | --- | --- |', '|  | 2023 | 2022 | 2023 | 2022 |', '| North | 310 | 295 | 41 | 39 |', '| South | 265 | 270 | 35 | 36 |'].join('\n');
  const base = { kind: 'cell', rules: 'horizontal' } as const;
  assert.ok(cellPasses({ ...base, cell: '270', left: '265', up: '295', top_heading: '2022' }, md));
  assert.ok(cellPasses({ ...base, cell: '270', top_heading: 'Revenue' }, md));
  assert.ok(cellPasses({ ...base, cell: '2022', top_heading: 'Revenue' }, md));
  assert.ok(!cellPasses({ ...base, cell: '41', top_heading: 'Revenue' }, md));
  // Sub-columns merged into one cell fail.
  const merged = md.replace('| 310 | 295 |', '| 310 295 |  |');
  assert.ok(!cellPasses({ ...base, cell: '310', right: '295' }, merged));
  assert.ok(!cellPasses({ ...base, cell: '310', right: '295' }, 'North 310 295 41 39'));
});
