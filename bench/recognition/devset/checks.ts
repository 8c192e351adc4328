// olmOCR-bench style checks of the development set on a tool's output (Markdown or plain text): text present
// or absent, reading-order pairs, table cell relations (GFM tables only) and text outside code fences.
import type { DevCheck } from './documents.js';
import { normalizeForDistance } from '../metrics.js';

/** Text for matching checks: NFKC, Markdown escapes and emphasis removed, white space collapsed, lower case. */
const flat = (s: string): string => normalizeForDistance(s).replace(/\s+/g, ' ').toLowerCase();

/** GFM tables of a Markdown text as rows of trimmed cells. */
export function tables(md: string): string[][][] {
  const out: string[][][] = [];
  let cur: string[][] = [];
  for (const line of [...md.split('\n'), '']) {
    if (/^\s*\|.*\|\s*$/.test(line)) {
      const cells = line.trim().slice(1, -1).split('|').map((c) => c.trim());
      if (!cells.every((c) => /^:?-{3,}:?$/.test(c))) cur.push(cells);
    } else if (cur.length) {
      out.push(cur);
      cur = [];
    }
  }
  return out;
}

export function check(c: DevCheck, out: string): boolean {
  const f = flat(out);
  switch (c.kind) {
    case 'present':
      return f.includes(flat(c.text));
    case 'absent':
      return c.text.startsWith('#') ? !new RegExp(`^\\s{0,3}#{1,6}\\s+${c.text.slice(2)}\\s*$`, 'mi').test(out) : !f.includes(flat(c.text));
    case 'order': {
      const a = f.indexOf(flat(c.before));
      const b = f.indexOf(flat(c.after));
      return a >= 0 && b > a;
    }
    case 'no-code': {
      const fenced = [...out.matchAll(/```[^\n]*\n([\s\S]*?)```/g)].map((m) => flat(m[1]!));
      return f.includes(flat(c.text)) && !fenced.some((x) => x.includes(flat(c.text)));
    }
    case 'cell':
      return tables(out).some((t) => {
        const col = t.map((r) => r.indexOf(c.column)).find((i) => i > 0);
        return col !== undefined && t.some((r) => r[0] === c.row && r[col] === c.value);
      });
  }
}

