// Builds small synthetic PDFs in memory for tests (ISO 32000-1: objects, xref table, trailer), so the
// robustness and layout cases need no checked-in documents. Text uses the standard 14 fonts
// (Helvetica, Helvetica-Bold, Helvetica-Oblique, Courier) with WinAnsi encoding; Times-Roman, Times-Italic and Symbol (its own encoding) for equations set without TeX fonts; `tex-ext`, a CMEX10 without character mapping (U+FFFD in the text layer); `ligatures`, a Times with ligature glyph names (LIGATURE); `caps`, capitals 0.55 em wide in a font with no space glyph (its /Widths start at "!", as a subset small-capital font's do), and `caps-space`, the same with a space glyph 0.278 em wide; `lo-subset`, a TrueType subset as LibreOffice writes it (no /Encoding, codes numbered from 1, the space at code 4: LO_SUBSET).

import { deflateSync } from 'node:zlib';

/** One run of text placed at (x, y) from the top-left corner, in points. */
export interface TextRun {
  readonly x: number;
  readonly y: number;
  readonly text: string;
  readonly size?: number;
  readonly font?: 'regular' | 'bold' | 'italic' | 'mono' | 'times' | 'times-italic' | 'symbol' | 'tex-ext' | 'ligatures' | 'caps' | 'caps-space' | 'lo-subset';
  /**
   * Glyph-by-glyph positioning instead of `text`: a `TJ` array of strings and offsets (thousandths of an
   * em, positive moves left), as PDFs that place each glyph separately write it.
   */
  readonly glyphs?: readonly (string | number)[];
  /** Character spacing (`Tc`, points added after every glyph), as letter-spaced text sets it. */
  readonly charSpacing?: number;
  /**
   * Text turned about its origin (x, y): 90 reads upward (counter-clockwise, as `sidewaystable` and the
   * arXiv side stamp set it), -90 reads downward; any other angle (degrees, counter-clockwise) sets the run
   * at a slant, as a "DRAFT" watermark across the page.
   */
  readonly rotate?: number;
}

/** One page: its size and either text runs or a gray image covering the page. */
export interface PageSpec {
  readonly width?: number;
  readonly height?: number;
  readonly runs?: readonly TextRun[];
  /** A `w` x `h` pixel gray image drawn over the whole page (an image-only "scan"). */
  readonly image?: { readonly w: number; readonly h: number; readonly pixels?: Uint8Array };
  /** Horizontal rules (a fraction bar, a table rule) from x0 to x1 at y (from the top), stroked `width` thick. */
  readonly rules?: readonly { readonly x0: number; readonly x1: number; readonly y: number; readonly width?: number }[];
  /** Content-stream operators written after the runs as they are (the fonts are /F1 ... /F12 of FONTS). */
  readonly content?: string;
  /** Entries of the page's /Properties resource (named marked-content properties), e.g. `/P1 << /ActualText (x) >>`. */
  readonly properties?: string;
  /** Further content streams (Flate-compressed, as they are: no newline added): /Contents becomes an array. */
  readonly contentStreams?: readonly string[];
}

const FONTS = { regular: 'F1', bold: 'F2', italic: 'F3', mono: 'F4', times: 'F5', 'times-italic': 'F6', symbol: 'F7', 'tex-ext': 'F8', ligatures: 'F9', caps: 'F10', 'caps-space': 'F11', 'lo-subset': 'F12' } as const;

/**
 * Codes of the `ligatures` font's glyphs named by their letters (AGL ligature names, as TeX's Type 1 fonts
 * name them in /Differences): write `${LIGATURE.fi}` in a run's text for the fi ligature.
 */
export const LIGATURE = { ff: '\x1b', fi: '\x1c', fl: '\x1d', ffi: '\x1e', ffl: '\x1f', Th: '\x80', ft: '\x81' } as const;

/** The `lo-subset` font's codes: write `loSubset('A B')` for a run's text in it. */
export const LO_SUBSET: Readonly<Record<string, string>> = { A: '\x01', B: '\x02', C: '\x03', ' ': '\x04', D: '\x05', E: '\x06', F: '\x07', G: '\x08' };
export const loSubset = (text: string): string => [...text].map((c) => LO_SUBSET[c] ?? '').join('');

const esc = (s: string): string => s.replace(/\\/g, '\\\\').replace(/\(/g, '\\(').replace(/\)/g, '\\)');

/** Serialises a PDF with the given pages (an empty list makes a zero-page document) and Info entries. */
export function buildPdf(pages: readonly PageSpec[], info: Record<string, string> = {}): Uint8Array {
  const objects: string[] = [];
  const add = (body: string): number => {
    objects.push(body);
    return objects.length;
  };
  const catalog = add('');
  const pagesObj = add('');
  const fonts = [
    add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>'),
    add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Bold /Encoding /WinAnsiEncoding >>'),
    add('<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica-Oblique /Encoding /WinAnsiEncoding >>'),
    add('<< /Type /Font /Subtype /Type1 /BaseFont /Courier /Encoding /WinAnsiEncoding >>'),
    add('<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding /WinAnsiEncoding >>'),
    add('<< /Type /Font /Subtype /Type1 /BaseFont /Times-Italic /Encoding /WinAnsiEncoding >>'),
    // Symbol keeps its built-in encoding ("p" is pi, 0xE5 the summation sign).
    add('<< /Type /Font /Subtype /Type1 /BaseFont /Symbol >>'),
    // TeX's extension font, not embedded, with glyph names that have no character mapping: the text layer
    // gives U+FFFD for them (MuPDF's stand-in font names the traced glyphs by their codes: "(" parenleft).
    add('<< /Type /Font /Subtype /Type1 /BaseFont /CMEX10 /Encoding << /Type /Encoding /Differences [40 /parenleftbig /parenrightbig] >> >>'),
    // Times with ligature glyphs named f_f ... (the codes of LIGATURE) and no ToUnicode, as Libertine or newtx
    // set them: MuPDF alone reads only the first letter of each.
    add('<< /Type /Font /Subtype /Type1 /BaseFont /Times-Roman /Encoding << /Type /Encoding /BaseEncoding /WinAnsiEncoding /Differences [27 /f_f /f_i /f_l /f_f_i /f_f_l 128 /T_h /f_t.alt] >> >>'),
    // Capitals 0.55 em wide in a font with no space glyph (/FirstChar 33: every space MuPDF writes in it is
    // one it inserted into a gap), and the same font with a space glyph of 0.278 em (/FirstChar 32).
    ...[33, 32].map((first) => {
      const desc = add(`<< /Type /FontDescriptor /FontName /LecternCaps${first} /Flags 32 /FontBBox [0 -200 1000 900] /ItalicAngle 0 /Ascent 718 /Descent -207 /CapHeight 718 /StemV 88 >>`);
      const widths = [...(first === 32 ? ['278'] : []), ...Array<string>(94).fill('550')].join(' ');
      return add(`<< /Type /Font /Subtype /Type1 /BaseFont /ABCDEF+LecternCaps${first} /FirstChar ${first} /LastChar 126 /Widths [${widths}] /FontDescriptor ${desc} 0 R /Encoding /WinAnsiEncoding >>`);
    }),
    // A subset TrueType font as LibreOffice writes it: no /Encoding, its glyphs numbered from 1 (LO_SUBSET), the
    // space among them (code 4, 0.278 em), a ToUnicode that says which is which.
    (() => {
      const desc = add('<< /Type /FontDescriptor /FontName /BAAAAA+LecternSubset /Flags 4 /FontBBox [0 -200 1000 900] /ItalicAngle 0 /Ascent 718 /Descent -207 /CapHeight 718 /StemV 88 >>');
      const cmap = `/CIDInit /ProcSet findresource begin 12 dict begin begincmap /CMapName /Lectern-Subset def /CMapType 2 def\n1 begincodespacerange <00> <FF> endcodespacerange\n8 beginbfchar\n${Object.entries(LO_SUBSET)
        .map(([c, code]) => `<${code.charCodeAt(0).toString(16).padStart(2, '0')}> <${c.charCodeAt(0).toString(16).padStart(4, '0')}>`)
        .join('\n')}\nendbfchar\nendcmap CMapName currentdict /CMap defineresource pop end end\n`;
      const toUnicode = add(`<< /Length ${cmap.length} >>\nstream\n${cmap}endstream`);
      return add(`<< /Type /Font /Subtype /TrueType /BaseFont /BAAAAA+LecternSubset /FirstChar 0 /LastChar 8 /Widths [0 600 600 600 278 600 600 600 600] /FontDescriptor ${desc} 0 R /ToUnicode ${toUnicode} 0 R >>`);
    })(),
  ];
  const fontDict = `<< ${fonts.map((f, i) => `/F${i + 1} ${f} 0 R`).join(' ')} >>`;
  const kids: number[] = [];
  for (const p of pages) {
    const w = p.width ?? 612;
    const h = p.height ?? 792;
    let content = '';
    let xobj = '';
    if (p.image) {
      const pixels = p.image.pixels ? Buffer.from(p.image.pixels).toString('hex') : 'ff'.repeat(p.image.w * p.image.h);
      const img = add(`<< /Type /XObject /Subtype /Image /Width ${p.image.w} /Height ${p.image.h} /ColorSpace /DeviceGray /BitsPerComponent 8 /Filter /ASCIIHexDecode /Length ${pixels.length + 1} >>\nstream\n${pixels}>\nendstream`);
      xobj = ` /XObject << /Im1 ${img} 0 R >>`;
      content += `q ${w} 0 0 ${h} 0 0 cm /Im1 Do Q\n`;
    }
    for (const r of p.runs ?? []) {
      const show = r.glyphs ? `[${r.glyphs.map((g) => (typeof g === 'number' ? String(g) : `(${esc(g)})`)).join(' ')}] TJ` : `(${esc(r.text)}) Tj`;
      // Tc is text state: it outlives ET, so it is set back to 0 after the run.
      const [tc, reset] = r.charSpacing ? [`${r.charSpacing} Tc `, ' 0 Tc'] : ['', ''];
      const turn = (deg: number): string => {
        const [c, s] = [Math.cos((deg * Math.PI) / 180), Math.sin((deg * Math.PI) / 180)].map((v) => Number(v.toFixed(6)));
        return `${c} ${s} ${-s!} ${c} ${r.x} ${h - r.y} Tm`;
      };
      const place = r.rotate === 90 ? `0 1 -1 0 ${r.x} ${h - r.y} Tm` : r.rotate === -90 ? `0 -1 1 0 ${r.x} ${h - r.y} Tm` : r.rotate ? turn(r.rotate) : `${r.x} ${h - r.y} Td`;
      content += `BT /${FONTS[r.font ?? 'regular']} ${r.size ?? 11} Tf ${tc}${place} ${show}${reset} ET\n`;
    }
    for (const r of p.rules ?? []) content += `q ${r.width ?? 0.5} w ${r.x0} ${h - r.y} m ${r.x1} ${h - r.y} l S Q\n`;
    if (p.content) content += `${p.content}\n`;
    if (p.properties) xobj += ` /Properties << ${p.properties} >>`;
    const stream = add(`<< /Length ${Buffer.byteLength(content, 'latin1')} >>\nstream\n${content}endstream`);
    const parts = (p.contentStreams ?? []).map((c) => {
      const z = deflateSync(Buffer.from(c, 'latin1')).toString('latin1');
      return add(`<< /Length ${z.length} /Filter /FlateDecode >>\nstream\n${z}\nendstream`);
    });
    const contents = parts.length ? `[${[stream, ...parts].map((o) => `${o} 0 R`).join(' ')}]` : `${stream} 0 R`;
    kids.push(add(`<< /Type /Page /Parent ${pagesObj} 0 R /MediaBox [0 0 ${w} ${h}] /Resources << /Font ${fontDict}${xobj} >> /Contents ${contents} >>`));
  }
  objects[catalog - 1] = `<< /Type /Catalog /Pages ${pagesObj} 0 R >>`;
  objects[pagesObj - 1] = `<< /Type /Pages /Kids [${kids.map((k) => `${k} 0 R`).join(' ')}] /Count ${kids.length} >>`;
  const infoEntries = Object.entries(info).map(([k, v]) => `/${k} (${esc(v)})`).join(' ');
  const infoObj = infoEntries ? add(`<< ${infoEntries} >>`) : 0;
  let out = '%PDF-1.4\n%\xe2\xe3\xcf\xd3\n';
  const offsets: number[] = [];
  objects.forEach((body, i) => {
    offsets.push(Buffer.byteLength(out, 'latin1'));
    out += `${i + 1} 0 obj\n${body}\nendobj\n`;
  });
  const xref = Buffer.byteLength(out, 'latin1');
  out += `xref\n0 ${objects.length + 1}\n0000000000 65535 f \n`;
  for (const o of offsets) out += `${String(o).padStart(10, '0')} 00000 n \n`;
  out += `trailer\n<< /Size ${objects.length + 1} /Root ${catalog} 0 R${infoObj ? ` /Info ${infoObj} 0 R` : ''} >>\nstartxref\n${xref}\n%%EOF\n`;
  return new Uint8Array(Buffer.from(out, 'latin1'));
}

/** Wraps text into lines of at most `width` characters. */
export function wrap(text: string, width = 85): string[] {
  const lines: string[] = [];
  let cur = '';
  for (const w of text.split(/\s+/)) {
    if (cur && cur.length + 1 + w.length > width) {
      lines.push(cur);
      cur = w;
    } else cur = cur ? `${cur} ${w}` : w;
  }
  if (cur) lines.push(cur);
  return lines;
}

/**
 * A small article: running header and page number on every page, a title, numbered bold section
 * headings and body paragraphs (one with a line-end hyphen), `pages` pages long.
 */
export function sampleArticle(pages = 3): Uint8Array {
  const specs: PageSpec[] = [];
  for (let p = 1; p <= pages; p++) {
    const runs: TextRun[] = [
      { x: 72, y: 40, text: 'Journal of Synthetic Examples, Vol. 7', size: 8 },
      { x: 300, y: 760, text: String(p), size: 9 },
    ];
    let y = 90;
    if (p === 1) {
      runs.push({ x: 72, y, text: 'Synthetic Documents for Testing', size: 20, font: 'bold' });
      y += 40;
    }
    runs.push({ x: 72, y, text: `${p} Section number ${p}`, size: 13, font: 'bold' });
    y += 24;
    const body = wrap(
      `This paragraph belongs to section ${p} and explains how the converter joins lines into paragraphs. ` +
        'It keeps ordinary sentences together and removes the hyphen of a word that was broken at the end of a line, like the word conver- ' +
        'sion, while a non-governmental organisation keeps its hyphen. The paragraph ends here.',
    );
    // Force the "conver-" break to fall at a line end.
    const fixed: string[] = [];
    for (const l of body) {
      const i = l.indexOf('conver-');
      if (i >= 0) {
        fixed.push(l.slice(0, i + 'conver-'.length));
        fixed.push(l.slice(i + 'conver-'.length).trim());
      } else fixed.push(l);
    }
    for (const l of fixed) {
      runs.push({ x: 72, y, text: l, size: 11 });
      y += 14;
    }
    y += 12;
    for (const l of wrap('A second paragraph follows with more words so that the body font size dominates the page and headings stand out from it clearly.')) {
      runs.push({ x: 72, y, text: l, size: 11 });
      y += 14;
    }
    specs.push({ runs });
  }
  return buildPdf(specs, { Title: 'Synthetic Documents for Testing', Author: 'Ada Example; Bob Sample', Producer: 'lectern test builder' });
}
