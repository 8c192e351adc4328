// Answer benchmark of the extractive answerer (issue 9, "Measured"). Usage:
//   node dist/bench/answers/run.js [--write] [--claims N] [--stream-runs N]
// 1. SciFact train claims (../shared/data/ir/scifact, 809 judged claims) over the SciFact corpus, each
//    asked through POST /v2/conversations/: the share of citation markers verified verbatim (each
//    marker's excerpt occurs in the cited document's text and in the snippet it points at; must be
//    100%), citation precision (cited documents judged relevant for the claim, over cited documents) and
//    recall (judged documents among the cited ones, over judged documents), macro-averaged over claims.
// 2. The demo corpus: POST /v2/conversations/stream over a real socket, time to the first event and to
//    the final result (median, p95).
// Peer, in the same run: a retrieve-and-cite baseline over SQLite FTS5 (porter unicode61, bm25 over title and
// abstract): for each claim it cites its top documents, as many as Lectern's answer cited for that claim
// (at least one), so citation precision and recall compare at equal citation counts.
// --write stores bench/results/answers.json with the machine noted.
import { writeFileSync } from 'node:fs';
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import Database from 'better-sqlite3';
import { machine } from '../lib/machine.js';
import { evalDataDir } from '../quality/data-dir.js';
import { loadIrSet } from '../quality/ir-eval.js';
import { testApp } from '../../test/helpers/app.js';
import { doc, seed } from '../../test/helpers/documents.js';
import { repoRoot } from '../../test/helpers/paths.js';

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};
const claimLimit = Number(arg('claims') ?? Infinity);
const streamRuns = Number(arg('stream-runs') ?? 100);
const LIMITS = { rateLimits: { conversations: { capacity: 1_000_000, refillPerSecond: 1_000_000 }, default: { capacity: 1_000_000, refillPerSecond: 1_000_000 } } } as never;

const quantile = (xs: number[], q: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.ceil(q * s.length) - 1)]!;
};
const round = (x: number, d = 4) => Math.round(x * 10 ** d) / 10 ** d;

interface Wire {
  answer: string;
  citations: { citation_index: number; document_index: number; excerpt: string; snippet_index: number | null }[];
  search_documents: { document: { id: string }; snippets: { text: string }[] }[];
}

async function scifact() {
  const set = loadIrSet(join(evalDataDir(), 'ir', 'scifact'), 'scifact-train', 'train');
  const app = await testApp(LIMITS);
  try {
    const acct = await app.account({ credits: 1_000_000_000 });
    const text = new Map<string, string>();
    for (let i = 0; i < set.corpus.length; i += 500) {
      const batch = set.corpus.slice(i, i + 500);
      await seed(app, batch.map((d) => doc(d.id, { title: d.title, abstract: d.text, language: 'en', type: 'journal-article' })));
    }
    for (const d of set.corpus) text.set(d.id, `${d.title}\n${d.text}`);
    await app.indexes!.catchUp();
    const fts = new Database(':memory:');
    fts.exec(`CREATE VIRTUAL TABLE docs USING fts5(id UNINDEXED, title, abstract, tokenize = 'porter unicode61')`);
    const ins = fts.prepare('INSERT INTO docs (id, title, abstract) VALUES (?, ?, ?)');
    fts.transaction(() => set.corpus.forEach((d) => ins.run(d.id, d.title, d.text)))();
    const top = fts.prepare('SELECT id FROM docs WHERE docs MATCH ? ORDER BY bm25(docs) LIMIT ?');
    const ftsQuery = (q: string) => (q.match(/[\p{L}\p{N}]+/gu) ?? []).map((w) => `"${w}"`).join(' OR ');
    const peer = { precision: 0, recall: 0, claims: 0 };
    let markers = 0;
    let verified = 0;
    let precision = 0;
    let recall = 0;
    let withCitations = 0;
    let claims = 0;
    let failures = 0;
    const ms: number[] = [];
    for (const [qid, rels] of set.qrels) {
      const claim = set.queries.get(qid);
      if (claim === undefined) continue;
      if (claims >= claimLimit) break;
      claims++;
      const t0 = performance.now();
      const res = await app.http.inject({ method: 'POST', url: '/v2/conversations/', headers: { 'x-api-key': acct.key }, payload: { query: claim, llm_config: { model_name: 'lectern-extractive' } } });
      ms.push(performance.now() - t0);
      if (res.statusCode !== 200) {
        failures++;
        continue;
      }
      const r = res.json() as Wire;
      const found = r.answer.match(/\[\d+\]/g) ?? [];
      markers += found.length;
      found.forEach((m, i) => {
        const c = r.citations[i];
        if (!c || m !== `[${c.document_index}]`) return;
        const sd = r.search_documents[c.document_index - 1];
        if (!sd || c.snippet_index === null) return;
        if (text.get(sd.document.id)?.includes(c.excerpt) && sd.snippets[c.snippet_index]?.text.includes(c.excerpt)) verified++;
      });
      const cited = new Set(r.citations.map((c) => r.search_documents[c.document_index - 1]!.document.id));
      const relevant = [...rels].filter(([, s]) => s > 0).map(([d]) => d);
      if (cited.size > 0) {
        withCitations++;
        precision += [...cited].filter((d) => rels.get(d)! > 0).length / cited.size;
      }
      recall += relevant.length === 0 ? 0 : relevant.filter((d) => cited.has(d)).length / relevant.length;
      const q = ftsQuery(claim);
      const peerCited = q === '' ? [] : (top.all(q, Math.max(1, cited.size)) as { id: string }[]).map((x) => x.id);
      peer.claims++;
      if (peerCited.length > 0) peer.precision += peerCited.filter((d) => (rels.get(d) ?? 0) > 0).length / peerCited.length;
      peer.recall += relevant.length === 0 ? 0 : relevant.filter((d) => peerCited.includes(d)).length / relevant.length;
    }
    fts.close();
    return {
      set: 'scifact-train',
      claims,
      failures,
      claims_with_citations: withCitations,
      markers,
      verified_markers: verified,
      verified_marker_share: markers === 0 ? null : round(verified / markers),
      citation_precision: withCitations === 0 ? null : round(precision / withCitations),
      citation_recall: round(recall / claims),
      turn_ms: { median: round(quantile(ms, 0.5), 2), p95: round(quantile(ms, 0.95), 2) },
      peer: {
        name: 'SQLite FTS5 retrieve-and-cite (bm25 top documents, as many as Lectern cited for the claim), in process, same run',
        citation_precision: round(peer.precision / Math.max(1, peer.claims)),
        citation_recall: round(peer.recall / Math.max(1, peer.claims)),
      },
    };
  } finally {
    await app.dispose();
  }
}

async function demoStreams() {
  const app = await testApp({ ...(LIMITS as object), loadDemoCorpus: true } as never);
  try {
    await app.loadDemoCorpusIfEmpty();
    await app.indexes!.catchUp();
    const acct = await app.account({ credits: 1_000_000_000 });
    await app.http.listen({ port: 0, host: '127.0.0.1' });
    const port = (app.http.server.address() as AddressInfo).port;
    // Questions from the demo corpus's own titles (every n-th work), so each has something to find.
    const ids: string[] = [];
    const all = await app.storage.documents.getMany(await sampleIds(app, streamRuns));
    for (const d of all.values()) ids.push(d.title.split(/\s+/).slice(0, 8).join(' '));
    const first: number[] = [];
    const total: number[] = [];
    let errors = 0;
    for (const q of ids) {
      const r = await streamOnce(port, acct.key, `What is known about ${q}?`);
      if (r.ok) {
        first.push(r.firstMs);
        total.push(r.totalMs);
      } else errors++;
    }
    return {
      corpus: 'demo',
      documents: await app.storage.documents.count(),
      runs: first.length,
      errors,
      first_event_ms: { median: round(quantile(first, 0.5), 2), p95: round(quantile(first, 0.95), 2) },
      final_result_ms: { median: round(quantile(total, 0.5), 2), p95: round(quantile(total, 0.95), 2) },
    };
  } finally {
    await app.dispose();
  }
}

/** `n` document ids spread over the store's change log (every k-th scholarly document). */
async function sampleIds(app: Awaited<ReturnType<typeof testApp>>, n: number): Promise<string[]> {
  const docs = (await app.storage.documents.changesSince(0, 100_000)).flatMap((c) => (c.deleted || c.doc.index !== 'documents' ? [] : [c.doc.id]));
  const step = Math.max(1, Math.floor(docs.length / n));
  return docs.filter((_, i) => i % step === 0).slice(0, n);
}

function streamOnce(port: number, key: string, query: string): Promise<{ ok: boolean; firstMs: number; totalMs: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    let firstMs = -1;
    let body = '';
    const req = httpRequest({ host: '127.0.0.1', port, path: '/v2/conversations/stream', method: 'POST', headers: { 'x-api-key': key, 'content-type': 'application/json' } }, (res) => {
      res.setEncoding('utf8');
      res.on('data', (c: string) => {
        if (firstMs < 0 && c.includes('event: ')) firstMs = performance.now() - t0;
        body += c;
      });
      res.on('end', () => resolve({ ok: res.statusCode === 200 && body.includes('event: result'), firstMs, totalMs: performance.now() - t0 }));
    });
    req.on('error', reject);
    req.end(JSON.stringify({ query, llm_config: { model_name: 'lectern-extractive' } }));
  });
}

const m = machine();
const sci = await scifact();
console.log(JSON.stringify(sci));
const demo = await demoStreams();
console.log(JSON.stringify(demo));
if (args.includes('--write')) {
  writeFileSync(join(repoRoot, 'bench', 'results', 'answers.json'), JSON.stringify({ benchmark: 'answers', answerer: 'lectern-extractive', scifact: sci, demo_streams: demo, machine: m }, null, 2) + '\n');
}
