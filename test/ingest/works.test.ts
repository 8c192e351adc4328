// Works as researchers think of them, at ingest (docs/works.md): clean titles, version and notice
// relations from the source records, notices recognised by type and title.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cleanMarkup } from '../../src/ingest/formats/clean-text.js';
import { parseRelations } from '../../src/ingest/formats/common.js';
import { parseOpenAlex } from '../../src/ingest/formats/openalex.js';
import { parseLectern } from '../../src/ingest/formats/lectern-jsonl.js';
import { noticeKindOf, workIdentityKeys } from '../../src/domain/work.js';

test('clean titles: HTML sub/superscripts become Unicode where every character has one, else plain text', () => {
  // Titles as they are in the demo corpus (OpenAlex).
  const cases: [string, string][] = [
    ['Improvement of magnetic properties of Cr<sup>3+</sup>substituted SrFe<sub>12</sub>O<sub>19</sub>', 'Improvement of magnetic properties of Cr³⁺substituted SrFe₁₂O₁₉'],
    ['CO migration pathways in cytochrome P450<sub>cam</sub> studied by molecular dynamics simulations', 'CO migration pathways in cytochrome P450cam studied by molecular dynamics simulations'],
    ['Numerical Modeling of the Geomechanical Behavior of Biyadh Reservoir Undergoing CO <sub>2</sub> Injection', 'Numerical Modeling of the Geomechanical Behavior of Biyadh Reservoir Undergoing CO₂ Injection'],
    ['Ab initio assessment of Bi<sub>1−x</sub>RE<sub>x</sub>CuOS (RE = La, Gd, Y, Lu) solid solutions', 'Ab initio assessment of Bi₁₋ₓREₓCuOS (RE = La, Gd, Y, Lu) solid solutions'],
    ['New on‐line methods using O<sup>2–</sup> ion‐conducting solid electrolytes', 'New on‐line methods using O²⁻ ion‐conducting solid electrolytes'],
    ['The <i><scp>I</scp>nhibitor of wax 1</i> locus (<i><scp>I</scp>w1</i>) prevents formation', 'The Inhibitor of wax 1 locus (Iw1) prevents formation'],
    ['<b>Implementation of optimal Galerkin and Collocation approximations</b>', 'Implementation of optimal Galerkin and Collocation approximations'],
    ['Differences in <i>n</i>‐alkane profiles', 'Differences in n‐alkane profiles'],
  ];
  for (const [raw, clean] of cases) assert.equal(cleanMarkup(raw), clean, raw);
});

test('clean titles: MathML becomes its linear text; entities are decoded; plain text with "<" is left alone', () => {
  assert.equal(cleanMarkup('<mml:math xmlns:mml="http://www.w3.org/1998/Math/MathML"><mml:mi>Q</mml:mi></mml:math>-Gaussian diffusion in stock markets'), 'Q-Gaussian diffusion in stock markets');
  assert.equal(cleanMarkup('<math><msubsup><mi>x</mi><mn>1</mn><mn>2</mn></msubsup><mo>+</mo><mfrac><mi>a</mi><mi>b</mi></mfrac><mo>=</mo><msqrt><mi>y</mi></msqrt></math>'), 'x₁²+a/b=√y');
  assert.equal(cleanMarkup('<mml:math><mml:semantics><mml:msub><mml:mi>L</mml:mi><mml:mn>1</mml:mn></mml:msub><mml:annotation encoding="application/x-tex">L_1</mml:annotation></mml:semantics></mml:math> error'), 'L₁ error');
  assert.equal(cleanMarkup('Fish &amp; chips &#8211; &lt;tags&gt;'), 'Fish & chips – <tags>');
  // Markup escaped twice (demo corpus W-records) and unclosed upper-case tags.
  assert.equal(cleanMarkup('Simulation of Ultrafast Polarization Switching in BaTiO&lt;sub&gt;3&lt;/sub&gt;'), 'Simulation of Ultrafast Polarization Switching in BaTiO₃');
  assert.equal(cleanMarkup('The effect of injection well arrangement on CO&lt;SUB align=&quot;right&quot;&gt;2 injection'), 'The effect of injection well arrangement on CO2 injection');
  for (const plain of ['p < 0.05 and q > 3 in R&D', 'x<y for all y>0', 'Plain   title  with spaces']) assert.equal(cleanMarkup(plain), plain);
  // Abstracts keep their paragraphs (JATS or HTML), as blank lines.
  assert.equal(
    cleanMarkup('<jats:title>Abstract</jats:title><jats:p>Storage of H<jats:sub>2</jats:sub> in <jats:italic>salt</jats:italic> caverns.</jats:p>\n<jats:p>Second   part.</jats:p>', { paragraphs: true }),
    'Abstract\n\nStorage of H₂ in salt caverns.\n\nSecond part.',
  );
});

test('clean titles at ingest: OpenAlex and Lectern JSONL titles and abstracts are stored as text', () => {
  const { record } = parseOpenAlex({
    id: 'https://openalex.org/W9',
    title: 'Removal of dimethyl phthalate from water by UV–H<sub>2</sub>O<sub>2</sub> process',
    abstract_inverted_index: { 'The': [0], 'H<sub>2</sub>O<sub>2</sub>': [1], 'dose.': [2] },
  });
  assert.equal(record.title, 'Removal of dimethyl phthalate from water by UV–H₂O₂ process');
  assert.equal(record.abstract, 'The H₂O₂ dose.');
  const lectern = parseLectern({ id: 'L1', title: 'Seismic <i>Q</i> of waves', abstract: '<p>One.</p><p>Two &amp; three.</p>' }).record;
  assert.equal(lectern.title, 'Seismic Q of waves');
  assert.equal(lectern.abstract, 'One.\n\nTwo & three.');
});

test('notice titles: retraction notes, errata, corrigenda and expressions of concern; not the retracted works themselves', () => {
  const cases: [string, string | null, string | null][] = [
    ['Retraction Note: Micronized calcium carbonate to enhance water-based drilling fluid properties', 'article', 'retraction'],
    ['Retraction: A study of things', null, 'retraction'],
    ['Retraction notice to “Effect of X”', 'journal-article', 'retraction'],
    ['Notice of Retraction', null, 'retraction'],
    ['Erratum: Arctic hydrology during global warming', 'journal-article', 'erratum'],
    ['Erratum to: Prediction of Drillability of Sedimentary Rocks', null, 'erratum'],
    ['Corrigendum to “Morphological and Chemical Properties of Particulate Matter”', null, 'erratum'],
    ['Correction to: Barite–Micromax mixture, an enhanced weighting agent', 'journal-article', 'erratum'],
    ['Author Correction: Saudi bentonite', null, 'erratum'],
    ['Expression of Concern: Hydrogen storage', null, 'expression_of_concern'],
    ['Editorial Expression of Concern', null, 'expression_of_concern'],
    // Not notices: the retracted work's own title, ordinary articles that start with the same words.
    ['RETRACTED ARTICLE: Saudi calcium bentonite: a novel modifier', 'journal-article', null],
    ['RETRACTED: Effect of X on Y', null, null],
    ['Correction of seismic data for near-surface effects', 'journal-article', null],
    ['Retraction of the ice sheet during the Holocene', 'journal-article', null],
    ['Errata in textbooks: a survey', null, null],
    // The type decides when it says so.
    ['Anything at all', 'retraction', 'retraction'],
    ['Anything at all', 'erratum', 'erratum'],
  ];
  for (const [title, type, kind] of cases) assert.equal(noticeKindOf(title, type), kind, title);
});

test('OpenAlex notices: a "Retraction Note" flagged is_retracted is a notice, not retracted itself; the retracted article stays retracted', () => {
  // Both records are in the demo corpus (W4415854487, W4407285570), trimmed.
  const note = parseOpenAlex({
    id: 'https://openalex.org/W4415854487',
    doi: 'https://doi.org/10.1038/s41598-025-26634-5',
    title: 'Retraction Note: Saudi calcium bentonite: a novel modifier for enhanced foamed underbalanced drilling performance',
    type: 'article',
    type_crossref: 'journal-article',
    is_retracted: true,
  }).record;
  assert.equal(note.noticeKind, 'retraction');
  assert.equal(note.isRetracted, false);
  assert.deepEqual(note.notices, []);
  const article = parseOpenAlex({
    id: 'https://openalex.org/W4407285570',
    doi: 'https://doi.org/10.1038/s41598-025-87019-2',
    title: 'RETRACTED ARTICLE: Saudi calcium bentonite: a novel modifier for enhanced foamed underbalanced drilling performance',
    type: 'article',
    is_retracted: true,
  }).record;
  assert.equal(article.noticeKind, undefined);
  assert.equal(article.isRetracted, true);
  assert.deepEqual(article.notices, [{ kind: 'retraction', uri: null }]);
  // A plain record gets neither field, so its stored form (and content hash) is what it was.
  const plain = parseOpenAlex({ id: 'https://openalex.org/W1', title: 'Plain' }).record;
  assert.equal('noticeKind' in plain, false);
  assert.equal('relations' in plain, false);
});

test('relations: Crossref relation and update-to, Lectern relations; version relations are identity keys', () => {
  const raw = {
    relation: {
      'has-preprint': [{ 'id-type': 'doi', id: '10.1101/2020.01.01.000001', 'asserted-by': 'object' }],
      'is-version-of': [{ 'id-type': 'arxiv', id: '1911.02782v2' }],
      'is-referenced-by': [{ 'id-type': 'doi', id: '10.9/ignored' }],
    },
    'update-to': [{ DOI: '10.1234/RETRACTED', type: 'retraction', label: 'Retraction' }, { DOI: '10.1234/x', type: 'new_version' }],
    relations: [
      { type: 'is-expression-of-concern-for', uri: 'https://doi.org/10.1234/concern' },
      { type: 'is-correction-of', doi: '10.1234/corrected' },
      { type: 'is-preprint-of', uri: 'not a uri' },
    ],
  };
  assert.deepEqual(parseRelations(raw), [
    { kind: 'version', uri: 'doi://10.1101/2020.01.01.000001' },
    { kind: 'version', uri: 'arxiv://1911.02782v2' },
    { kind: 'retraction', uri: 'doi://10.1234/retracted' },
    { kind: 'expression_of_concern', uri: 'doi://10.1234/concern' },
    { kind: 'erratum', uri: 'doi://10.1234/corrected' },
  ]);
  const rec = parseLectern({ id: 'P', title: 'Published', doi: '10.1234/pub', relations: [{ type: 'has-preprint', uri: 'arxiv://1911.02782v1' }] }).record;
  assert.deepEqual(rec.relations, [{ kind: 'version', uri: 'arxiv://1911.02782v1' }]);
  assert.equal(rec.noticeKind, undefined);
  assert.deepEqual(workIdentityKeys(rec), ['doi://10.1234/pub', 'arxiv://1911.02782']);
  // A record with a notice relation is a notice, whatever its title.
  const n = parseLectern({ id: 'N', title: 'Statement about a paper', is_retracted: true, relations: [{ type: 'is-retraction-of', uri: 'doi://10.1234/pub' }] }).record;
  assert.equal(n.noticeKind, 'retraction');
  assert.equal(n.isRetracted, false);
});
