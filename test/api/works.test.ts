// Works as researchers think of them (issue 13, docs/works.md), end to end: records ingested from
// Lectern JSONL, then read over HTTP (by-uri, documents, search hits) and MCP (search, fetch).
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { callTool, mcpTestApp, type McpTestApp } from '../mcp/helpers.js';

const RECORDS = [
  { id: 'AX', title: 'Gravitational lensing of quasars by dark haloes', arxiv_id: '1911.02782', type: 'preprint', abstract: 'Lensing of quasars by haloes, preprint.' },
  {
    id: 'PUB',
    title: 'Gravitational lensing of quasars by dark haloes',
    doi: '10.1103/PhysRevD.101.000001',
    type: 'journal-article',
    abstract: 'Lensing of quasars by haloes, published.',
    relation: { 'has-preprint': [{ 'id-type': 'arxiv', id: '1911.02782v2' }] },
  },
  { id: 'WR', title: 'Saudi calcium bentonite: a novel modifier for foamed drilling', doi: '10.1234/bentonite', abstract: 'Bentonite modifier for drilling fluids.', type: 'journal-article' },
  {
    id: 'RN',
    title: 'Retraction Note: Saudi calcium bentonite: a novel modifier for foamed drilling',
    doi: '10.1234/rn',
    is_retracted: true,
    abstract: 'The editors have retracted this bentonite article.',
    'update-to': [{ DOI: '10.1234/bentonite', type: 'retraction' }],
  },
  { id: 'ER', title: 'Erratum to: Gravitational lensing of quasars', doi: '10.5555/err', abstract: 'A corrected figure of the lensing paper.', relations: [{ type: 'is-correction-of', uri: 'arxiv://1911.02782' }] },
  { id: 'H', title: 'Storage of CO<sub>2</sub> in <i>basalt</i> formations', abstract: 'Mineral trapping of CO<sub>2</sub> in basalt.', doi: '10.5555/co2' },
];

describe('works: versions, notices, clean titles', () => {
  let app: McpTestApp;
  let acct: { id: number; key: string };
  let token: string;
  before(async () => {
    app = await mcpTestApp();
    acct = await app.account({ credits: 100_000 });
    token = app.tokens.issue(acct.id, app.config.mcpUrl);
    const file = join(app.dir, 'works.jsonl');
    writeFileSync(file, RECORDS.map((r) => JSON.stringify(r)).join('\n') + '\n');
    const report = await app.ingest.ingestFile(file, { format: 'lectern' });
    assert.equal(report.failed, 0, JSON.stringify(report.errors));
    await app.indexes!.catchUp();
  });
  after(() => app.dispose());

  const get = (url: string) => app.http.inject({ method: 'GET', url, headers: { 'x-api-key': acct.key } });
  const search = async (body: Record<string, unknown>) => {
    const res = await app.http.inject({ method: 'POST', url: '/v2/search/', headers: { 'x-api-key': acct.key }, payload: body });
    assert.equal(res.statusCode, 200, res.body);
    return res.json();
  };

  test('by-uri: arXiv v1, the arXiv abs URL of v2 and the arXiv DOI all answer with the record stored as arxiv://1911.02782', async () => {
    for (const asked of ['arxiv://1911.02782v1', 'https://arxiv.org/abs/1911.02782v2', 'doi://10.48550/arxiv.1911.02782']) {
      const res = await get(`/v2/documents/by-uri/${encodeURIComponent(asked)}`);
      assert.equal(res.statusCode, 200, `${asked}: ${res.body}`);
      const body = res.json();
      assert.equal(body.id, 'AX', asked);
      const requested = asked.startsWith('https://') ? 'arxiv://1911.02782v2' : asked;
      assert.deepEqual(body.document.uri_match, { requested, held: 'arxiv://1911.02782', exact: false }, asked);
      assert.deepEqual(
        body.document.versions.map((v: { id: string; type: string; uris: string[] }) => [v.id, v.type, v.uris]),
        [['PUB', 'journal-article', ['doi://10.1103/physrevd.101.000001']]],
      );
    }
    const exact = (await get(`/v2/documents/by-uri/${encodeURIComponent('arxiv://1911.02782')}`)).json();
    assert.deepEqual(exact.document.uri_match, { requested: 'arxiv://1911.02782', held: 'arxiv://1911.02782', exact: true });
    // The published version's DOI answers with the published record, which lists the preprint.
    const pub = (await get(`/v2/documents/by-uri/${encodeURIComponent('https://doi.org/10.1103/PhysRevD.101.000001')}`)).json();
    assert.equal(pub.id, 'PUB');
    assert.equal(pub.document.uri_match.exact, true);
    assert.deepEqual(pub.document.versions.map((v: { id: string }) => v.id), ['AX']);
    assert.equal(pub.document.work_id, exact.document.work_id);
    // By id there is no URI to match.
    assert.equal('uri_match' in (await get('/v2/documents/AX')).json().document, false);
    assert.equal((await get(`/v2/documents/by-uri/${encodeURIComponent('arxiv://1911.09999v1')}`)).statusCode, 404);
  });

  test('search: the kept hit of a work lists its other versions; without deduplication both records come back', async () => {
    const dedup = await search({ query: 'gravitational lensing quasars dark haloes', limit: 10, filter_types: ['preprint', 'journal-article'] });
    const kept = dedup.hits.filter((h: { id: string }) => h.id === 'AX' || h.id === 'PUB');
    assert.equal(kept.length, 1, JSON.stringify(dedup.hits.map((h: { id: string }) => h.id)));
    const other = kept[0].id === 'AX' ? 'PUB' : 'AX';
    assert.deepEqual(kept[0].document.versions.map((v: { id: string }) => v.id), [other]);
    const all = await search({ query: 'gravitational lensing quasars dark haloes', limit: 10, deduplicate: false, filter_types: ['preprint', 'journal-article'] });
    assert.deepEqual(all.hits.map((h: { id: string }) => h.id).sort(), ['AX', 'PUB']);
  });

  test('notices link both ways in hits and documents; the retraction notice is not itself retracted', async () => {
    const r = await search({ query: 'bentonite', limit: 10 });
    const byId = new Map(r.hits.map((h: { id: string; document: Record<string, unknown> }) => [h.id, h.document]));
    const work = byId.get('WR') as Record<string, any>;
    const note = byId.get('RN') as Record<string, any>;
    assert.ok(work && note, JSON.stringify([...byId.keys()]));
    assert.equal(work.is_retracted, true);
    assert.deepEqual(work.notices, [{ kind: 'retraction', uri: 'doi://10.1234/rn', document_id: 'RN' }]);
    assert.equal(work.notice_kind, null);
    assert.deepEqual(work.notice_of, []);
    assert.equal(note.is_retracted, false);
    assert.deepEqual(note.notices, []);
    assert.equal(note.notice_kind, 'retraction');
    assert.deepEqual(note.notice_of, [{ kind: 'retraction', uri: 'doi://10.1234/bentonite', document_id: 'WR' }]);
    // An erratum of the preprint is a notice of the whole work: the published record shows it too.
    for (const id of ['AX', 'PUB']) {
      const d = (await get(`/v2/documents/${id}`)).json().document;
      assert.deepEqual(d.notices, [{ kind: 'erratum', uri: 'doi://10.5555/err', document_id: 'ER' }], id);
      assert.equal(d.is_retracted, false, id);
    }
    const er = (await get('/v2/documents/ER')).json().document;
    assert.deepEqual(er.notice_of, [{ kind: 'erratum', uri: 'arxiv://1911.02782', document_id: 'AX' }]);
  });

  test('clean titles: markup is gone from the stored title, the snippet and the display; "CO2" finds "CO₂"', async () => {
    const r = await search({ query: 'CO2 basalt', limit: 5 });
    const hit = r.hits.find((h: { id: string }) => h.id === 'H');
    assert.ok(hit, JSON.stringify(r.hits.map((h: { id: string }) => h.id)));
    assert.equal(hit.document.title, 'Storage of CO₂ in basalt formations');
    assert.equal(hit.document.abstract, 'Mineral trapping of CO₂ in basalt.');
    for (const s of hit.snippets) assert.doesNotMatch(s.text, /<\/?(sub|i)>/);
  });

  test('MCP: search results and fetched documents show versions, notices, notice targets and the version held', async () => {
    const s = (await callTool(app, token, 'search_documents', { query: 'bentonite', limit: 5 })).structuredContent;
    const work = s.hits.find((x: { id: string }) => x.id === 'WR').document;
    const note = s.hits.find((x: { id: string }) => x.id === 'RN').document;
    assert.deepEqual(work.notices, [{ kind: 'retraction', uri: 'doi://10.1234/rn', document_id: 'RN' }]);
    assert.equal(work.is_retracted, true);
    assert.equal(note.is_retracted, false);
    assert.deepEqual(note.notice_of, [{ kind: 'retraction', uri: 'doi://10.1234/bentonite', document_id: 'WR' }]);
    const f = await callTool(app, token, 'fetch_document', { uri: 'arxiv://1911.02782v1', max_tokens: 20 });
    assert.equal(f.isError ?? false, false, JSON.stringify(f.content));
    assert.deepEqual(f.structuredContent.document.uri_match, { requested: 'arxiv://1911.02782v1', held: 'arxiv://1911.02782', exact: false });
    assert.deepEqual(f.structuredContent.document.versions.map((v: { id: string }) => v.id), ['PUB']);
    const text = f.content.map((c: { text: string }) => c.text).join('\n');
    assert.match(text, /You asked for arxiv:\/\/1911\.02782v1; this record of the same work holds arxiv:\/\/1911\.02782\./);
    assert.match(text, /Other versions: journal-article doi:\/\/10\.1103\/physrevd\.101\.000001 \(id PUB\)/);
    assert.match(text, /erratum \(doi:\/\/10\.5555\/err\)/);
  });
});
