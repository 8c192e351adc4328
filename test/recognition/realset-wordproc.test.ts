// Word-processor documents of the real development set (bench/recognition/realset/wordproc.ts, ADR 0360):
// checks written from the document's own XML (ODT content.xml, DOCX word/document.xml), never from a
// converter's output. These tests pin what is read and what is left out.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { docxHeadingStyles, docxSource, odtSource, wordprocChecks } from '../../bench/recognition/realset/wordproc.js';
import { cellPasses } from '../../bench/recognition/realset/tables.js';

const odt = (body: string, styles = ''): string =>
  `<?xml version="1.0" encoding="UTF-8"?><office:document-content><office:automatic-styles>${styles}</office:automatic-styles><office:body><office:text>${body}</office:text></office:body></office:document-content>`;

test('ODT: paragraphs in order, headings of levels 1-3, notes, frames, indexes and reference fields left out', () => {
  const src = odtSource(
    odt(
      '<text:table-of-content><text:index-body><text:p>Introduction<text:tab/>1</text:p></text:index-body></text:table-of-content>' +
        '<text:h text:outline-level="1">1. Introduction</text:h>' +
        '<text:p>The first<text:s text:c="2"/>paragraph tells<text:note><text:note-citation>1</text:note-citation><text:note-body><text:p>a note</text:p></text:note-body></text:note> what it does.</text:p>' +
        '<text:h text:outline-level="4">Deep heading</text:h>' +
        '<text:p>See <text:bookmark-ref text:ref-name="x">Usage</text:bookmark-ref> for more<text:line-break/>and more &amp; more.</text:p>' +
        '<text:p><draw:frame><draw:text-box><text:p>boxed text</text:p></draw:text-box></draw:frame>after the frame</text:p>',
    ),
  );
  assert.deepEqual(src.headings, ['1. Introduction']);
  assert.deepEqual(src.paragraphs, ['The first paragraph tells\u0001 what it does.', 'See \u0001 for more and more & more.', '\u0001after the frame']);
});

test('ODT tables: spans, covered cells, header rows, rules from the cell borders; multi-paragraph and tabbed cells unread', () => {
  const styles =
    '<style:style style:name="A1" style:family="table-cell"><style:table-cell-properties fo:border-left="0.05pt solid #000000" fo:border-right="none" fo:border-top="none" fo:border-bottom="0.05pt solid #000000"/></style:style>' +
    '<style:style style:name="B1" style:family="table-cell"><style:table-cell-properties fo:border="none"/></style:style>';
  const cell = (t: string, a = '') => `<table:table-cell table:style-name="A1"${a}><text:p>${t}</text:p></table:table-cell>`;
  const table =
    '<table:table><table:table-column/><table:table-header-rows><table:table-row>' +
    cell('Name') + cell('Size', ' table:number-columns-spanned="2"') + '<table:covered-table-cell/>' +
    '</table:table-row></table:table-header-rows>' +
    `<table:table-row>${cell('alpha')}${cell('10')}${cell('kB')}</table:table-row>` +
    `<table:table-row>${cell('beta')}${cell('20')}<table:table-cell><text:p>two</text:p><text:p>lines</text:p></table:table-cell></table:table-row>` +
    `<table:table-row>${cell('gamma')}${cell('a<text:tab/>b')}${cell('MB')}</table:table-row>` +
    '</table:table>';
  const src = odtSource(odt(`<text:p>Before the table.</text:p>${table}`, styles));
  assert.deepEqual(src.paragraphs, ['Before the table.']);
  assert.equal(src.tables.length, 1);
  const t = src.tables[0]!;
  assert.equal(t.columns, 3);
  assert.equal(t.headerRows, 1); // the marked header row (two body rows at least follow it)
  assert.equal(t.rules, 'vertical');
  assert.deepEqual(t.rows.map((r) => r.map((c) => c.text)), [
    ['Name', 'Size'],
    ['alpha', '10', 'kB'],
    ['beta', '20', null],
    ['gamma', null, 'MB'],
  ]);
  assert.deepEqual(t.rows[0]!.map((c) => [c.col, c.span]), [[0, 1], [1, 2]]);
  // A table nested in a cell is read as neither table.
  const nested = odtSource(odt(`<table:table><table:table-row><table:table-cell>${table}</table:table-cell></table:table-row></table:table>`, styles));
  assert.equal(nested.tables.length, 0);
});

test('DOCX: heading styles by name, text runs only (field codes and deleted text left out), tables with gridSpan and tblHeader', () => {
  const styles = '<w:styles><w:style w:type="paragraph" w:styleId="berschrift1"><w:name w:val="heading 1"/></w:style><w:style w:type="paragraph" w:styleId="TM1"><w:name w:val="toc 1"/></w:style></w:styles>';
  assert.equal(docxHeadingStyles(styles).get('berschrift1'), 1);
  const p = (t: string, style = '') => `<w:p>${style ? `<w:pPr><w:pStyle w:val="${style}"/></w:pPr>` : ''}<w:r><w:t>${t}</w:t></w:r></w:p>`;
  const tc = (t: string, span = 1) => `<w:tc><w:tcPr>${span > 1 ? `<w:gridSpan w:val="${span}"/>` : ''}</w:tcPr>${p(t)}</w:tc>`;
  const doc =
    `<w:document><w:body>${p('Überblick 3', 'TM1')}${p('Überblick', 'berschrift1')}` +
    '<w:p><w:r><w:t xml:space="preserve">Page </w:t></w:r><w:r><w:fldChar w:fldCharType="begin"/></w:r><w:r><w:instrText>PAGE</w:instrText></w:r><w:r><w:fldChar w:fldCharType="separate"/></w:r><w:r><w:t>3</w:t></w:r><w:r><w:fldChar w:fldCharType="end"/></w:r><w:del><w:r><w:delText>gone</w:delText></w:r></w:del><w:r><w:tab/><w:t>end</w:t></w:r></w:p>' +
    '<w:tbl><w:tblPr><w:tblBorders><w:insideH w:val="single"/></w:tblBorders></w:tblPr>' +
    `<w:tr><w:trPr><w:tblHeader/></w:trPr>${tc('Key', 2)}</w:tr><w:tr>${tc('F1')}${tc('Help')}</w:tr><w:tr>${tc('F2')}${tc('Save')}</w:tr><w:tr>${tc('F3')}${tc('Quit')}</w:tr>` +
    `</w:tbl>${p('After.')}</w:body></w:document>`;
  const src = docxSource(doc, styles);
  assert.deepEqual(src.headings, ['Überblick']);
  assert.deepEqual(src.paragraphs, ['Page 3 end', 'After.']);
  assert.equal(src.tables.length, 1);
  assert.equal(src.tables[0]!.rules, 'horizontal');
  assert.equal(src.tables[0]!.headerRows, 1);
  assert.deepEqual(src.tables[0]!.rows.map((r) => r.map((c) => [c.text, c.span])), [[['Key', 2]], [['F1', 1], ['Help', 1]], [['F2', 1], ['Save', 1]], [['F3', 1], ['Quit', 1]]]);
});

test('checks: runs the PDF has, headings without their typed numbers, cell checks that a GFM table passes and plain text fails', () => {
  const src = {
    paragraphs: ['the quick brown fox jumps over the lazy dog again', 'a second paragraph with enough words in it', 'hidden words that the printed document never shows'],
    headings: ['2.1 Getting started', 'Key & value'],
    tables: odtSource(
      odt(
        '<table:table>' +
          ['Key|Action', 'F1|Help', 'F2|Save', 'F3|Quit'].map((r) => `<table:table-row>${r.split('|').map((c) => `<table:table-cell><text:p>${c}</text:p></table:table-cell>`).join('')}</table:table-row>`).join('') +
          '</table:table>',
      ),
    ).tables,
  };
  const bag = new Set('the quick brown fox jumps over lazy dog again a second paragraph with enough words in it getting started key action f1 f2 f3 help save quit'.split(' '));
  const checks = wordprocChecks(src, bag);
  assert.deepEqual(checks.filter((c) => c.kind === 'heading'), [{ kind: 'heading', text: 'Getting started' }]);
  assert.deepEqual(checks.filter((c) => c.kind === 'present').map((c) => c.kind === 'present' && c.text), ['the quick brown fox jumps over the lazy dog again', 'a second paragraph with enough words in it']);
  const cells = checks.filter((c) => c.kind === 'cell');
  assert.ok(cells.length >= 2);
  const gfm = '| Key | Action |\n| --- | --- |\n| F1 | Help |\n| F2 | Save |\n| F3 | Quit |\n';
  for (const c of cells) {
    if (c.kind !== 'cell') continue;
    assert.equal(cellPasses(c, gfm), true, JSON.stringify(c));
    assert.equal(cellPasses(c, 'Key Action F1 Help F2 Save F3 Quit'), false);
  }
});

test('heading check: the PDF\'s outline number is stripped, "4.1)" as word processors number outlines too', async () => {
  const { passes } = await import('../../bench/recognition/realset.bench.js');
  const c = { kind: 'heading', text: 'Printer Installation' } as const;
  assert.equal(passes(c, '### 4.1) Printer Installation\n'), true);
  assert.equal(passes(c, '### 4.1. Printer Installation\n'), true);
  assert.equal(passes(c, '### 4.1 Printer Installation\n'), true);
  assert.equal(passes(c, '## §4. Printer Installation\n'), true); // journals that number sections with the sign
  assert.equal(passes(c, '### 4.1] Printer Installation\n'), false);
  assert.equal(passes(c, '4.1) Printer Installation\n'), false); // not a heading
});
