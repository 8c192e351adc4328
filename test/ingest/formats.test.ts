// Input formats map to the document model.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { invertedIndexToText, parseOpenAlex } from '../../src/ingest/formats/openalex.js';
import { parseBeir } from '../../src/ingest/formats/beir.js';
import { parseStackExchange } from '../../src/ingest/formats/stackexchange.js';
import { parseLectern } from '../../src/ingest/formats/lectern-jsonl.js';
import { parseRecord } from '../../src/ingest/ingest-service.js';

test('OpenAlex: abstract rebuilt from the inverted index, identifiers, references, retraction', () => {
  assert.equal(invertedIndexToText({ storage: [1], Hydrogen: [0], 'rocks.': [3], in: [2] }), 'Hydrogen storage in rocks.');
  const { record } = parseOpenAlex({
    id: 'https://openalex.org/W42',
    doi: 'https://doi.org/10.48550/ARXIV.2101.00001',
    title: 'A title',
    publication_date: '2021-01-04',
    language: 'en',
    type: 'preprint',
    type_crossref: 'posted-content',
    ids: { pmid: 'https://pubmed.ncbi.nlm.nih.gov/123' },
    primary_location: { source: { display_name: 'Fuel', issn: ['0016-2361'], issn_l: '0016-2361', host_organization_name: 'Elsevier BV' }, license: 'cc-by' },
    authorships: [{ author: { display_name: 'Ada Lovelace', orcid: 'https://orcid.org/0000-0001' } }],
    abstract_inverted_index: { Words: [0], here: [1] },
    referenced_works: ['https://openalex.org/W1', 'https://openalex.org/W2'],
    is_retracted: true,
    cited_by_count: 5,
  });
  assert.equal(record.id, 'W42');
  assert.deepEqual(record.uris, ['doi://10.48550/arxiv.2101.00001', 'pubmed://123', 'arxiv://2101.00001', 'https://openalex.org/W42']);
  assert.equal(record.abstract, 'Words here');
  assert.equal(record.type, 'preprint');
  assert.equal(record.issuedAt, Date.UTC(2021, 0, 4) / 1000);
  assert.equal(record.publisher, 'Elsevier BV');
  assert.deepEqual(record.issns, ['0016-2361']);
  assert.deepEqual(record.references, ['https://openalex.org/W1', 'https://openalex.org/W2']);
  assert.equal(record.isRetracted, true);
  assert.deepEqual(record.notices, [{ kind: 'retraction', uri: null }]);
  assert.equal(record.extra.cited_by_count, 5);
});

test('BEIR keeps _id as the document id', () => {
  const { record } = parseRecord({ _id: '4983', title: 'T', text: 'Body' }, 'auto');
  assert.equal(record.id, '4983');
  assert.equal(record.abstract, 'Body');
  assert.equal(parseBeir({ _id: 7, title: '', text: 'Only text here' }).record.id, '7');
});

test('Stack Exchange posts go to social with attribution and linked papers as references', () => {
  const { record } = parseStackExchange({
    id: 'quantumcomputing:5', site: 'quantumcomputing.stackexchange.com', post_type: 'answer', url: 'https://quantumcomputing.stackexchange.com/a/5',
    title: 'Q?', body_text: 'An answer.', created_at_unix: 1520875092, author: 'Bjørn', author_url: 'https://quantumcomputing.stackexchange.com/users/29',
    license: 'CC BY-SA 3.0', linked_arxiv_ids: ['quant-ph/0701108'], linked_dois: ['10.1103/PhysRevA.1'], tags: ['simulation'],
  });
  assert.equal(record.index, 'social');
  assert.equal(record.type, 'answer');
  assert.deepEqual(record.attribution, { author: 'Bjørn', authorUrl: 'https://quantumcomputing.stackexchange.com/users/29', url: 'https://quantumcomputing.stackexchange.com/a/5', site: 'quantumcomputing.stackexchange.com', license: 'CC BY-SA 3.0' });
  assert.deepEqual(record.references, ['arxiv://quant-ph/0701108', 'doi://10.1103/physreva.1']);
});

test('Lectern JSONL: identifiers from fields, originals by path', () => {
  const { record, originals } = parseLectern({ id: 'acl-1', title: 'S2ORC', doi: '10.18653/v1/2020.acl-main.447', arxiv_id: '1911.02782', originals: [{ path: 'originals/a.pdf', media_type: 'application/pdf', sha256: 'AB' }] });
  assert.deepEqual(record.uris, ['doi://10.18653/v1/2020.acl-main.447', 'arxiv://1911.02782']);
  assert.deepEqual(originals, [{ path: 'originals/a.pdf', mediaType: 'application/pdf', sha256: 'ab', license: null }]);
});

test('records that cannot be ingested say why', () => {
  assert.throws(() => parseOpenAlex({ id: 'https://openalex.org/W1' }), /no title/);
  assert.throws(() => parseLectern({ id: 'a/b', title: 'x' }), /no slashes/);
});
