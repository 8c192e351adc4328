// EPUB to Markdown: the package document (OPF) gives metadata, manifest and spine; each spine item's
// XHTML becomes Markdown (node-html-markdown) in spine order, with image references rewritten to their
// archive paths, and structure counted from the markup. One spine item is one checkpoint unit.
import { NodeHtmlMarkdown } from 'node-html-markdown';
import { parse, type HTMLElement } from 'node-html-parser';
import { RecognitionError } from '../errors.js';
import type { ConversionContext } from '../conversion-context.js';
import type { MarkdownUnit } from '../layout-model.js';
import type { DocumentMetadata } from '../report/quality-report.js';
import type { StructureCounts } from '../structure/document-blocks.js';
import { EpubArchive, packagePath, readProtection } from './epub-archive.js';

/** Result of {@link convertEpub}. */
export interface EpubConversion {
  readonly units: MarkdownUnit[];
  readonly markdown: string;
  readonly counts: StructureCounts;
  readonly metadata: DocumentMetadata;
  readonly encrypted: boolean;
  readonly producer: string | null;
}

// A dollar sign of the text is escaped like the other characters node-html-markdown escapes (ADR 0355):
// Markdown renderers with math would pair two of them as a formula.
const nhm = new NodeHtmlMarkdown({ bulletMarker: '-', codeBlockStyle: 'fenced', maxConsecutiveNewlines: 2, globalEscape: [/[\\`*_~[\]$]/gm, '\\$&'] });

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: '\u00a0' };
const decodeXml = (s: string): string =>
  s
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, '$1')
    .replace(/<[^>]+>/g, '')
    .replace(/&(#x[0-9a-f]+|#\d+|\w+);/gi, (m, e: string) =>
      e[0] === '#' ? String.fromCodePoint(e[1] === 'x' || e[1] === 'X' ? parseInt(e.slice(2), 16) : Number(e.slice(1))) : (ENTITIES[e] ?? m),
    )
    .trim();
const attr = (tag: string, name: string): string | undefined => new RegExp(`\\s${name}\\s*=\\s*("([^"]*)"|'([^']*)')`, 'i').exec(tag)?.slice(2).find((x) => x !== undefined);

/** Resolves an href relative to a directory inside the archive. */
export function resolveHref(dir: string, href: string): string {
  const clean = decodeURIComponent(href.split('#')[0]!.split('?')[0]!);
  const parts = (clean.startsWith('/') ? clean.slice(1) : dir ? `${dir}/${clean}` : clean).split('/');
  const out: string[] = [];
  for (const p of parts) {
    if (p === '..') out.pop();
    else if (p !== '.' && p !== '') out.push(p);
  }
  return out.join('/');
}

/** Converts an EPUB. */
export async function convertEpub(bytes: Uint8Array, ctx: ConversionContext): Promise<EpubConversion> {
  const t0 = ctx.now();
  ctx.backends.add('epub-xhtml');
  const archive = EpubArchive.open(bytes, ctx.limits.maxArchiveEntries, ctx.limits.maxUncompressedBytes, ctx.limits.maxEntryBytes);
  const opfPath = packagePath(archive);
  const protection = readProtection(archive);
  const opf = archive.text(opfPath);
  if (!opf) throw new RecognitionError('damaged_document', 'the EPUB package document cannot be read');
  const opfDir = opfPath.includes('/') ? opfPath.slice(0, opfPath.lastIndexOf('/')) : '';

  const dc = (name: string): string[] => [...opf.matchAll(new RegExp(`<dc:${name}\\b[^>]*>([\\s\\S]*?)</dc:${name}>`, 'gi'))].map((m) => decodeXml(m[1]!)).filter(Boolean);
  const manifest = new Map<string, { href: string; type: string; props: string }>();
  for (const m of opf.matchAll(/<(?:\w+:)?item\b[^>]*>/g)) {
    const id = attr(m[0], 'id');
    const href = attr(m[0], 'href');
    if (id && href) manifest.set(id, { href: resolveHref(opfDir, href), type: attr(m[0], 'media-type') ?? '', props: attr(m[0], 'properties') ?? '' });
  }
  const listed = [...opf.matchAll(/<(?:\w+:)?itemref\b[^>]*>/g)].map((m) => attr(m[0], 'idref') ?? '').filter(Boolean);
  // A content document is read once however many manifest ids point into it (`ch1.xhtml#sec2`, as some
  // producers split a file): the first spine reference keeps its place, later ones are dropped, so the
  // book is converted and billed per distinct content document (ADR 0235).
  const seenFiles = new Set<string>();
  const spine = listed.filter((id) => {
    const file = manifest.get(id)?.href ?? `\0${id}`;
    if (seenFiles.has(file)) return false;
    seenFiles.add(file);
    return true;
  });
  if (spine.length < listed.length) ctx.warn('DUPLICATE_SPINE_ITEMS', `${listed.length - spine.length} spine entries point into content documents listed before them; each document was converted once`);
  if (spine.length === 0) throw new RecognitionError('empty_document', 'the EPUB spine is empty');
  if (spine.length > ctx.limits.maxPages) throw new RecognitionError('too_many_pages', `the EPUB has ${spine.length} spine items; the limit is ${ctx.limits.maxPages}`, { pages: spine.length, limit: ctx.limits.maxPages });

  // DRM: content documents encrypted with a real cipher cannot be read. Font obfuscation is harmless.
  const spinePaths = new Set(spine.map((id) => manifest.get(id)?.href).filter((x): x is string => !!x));
  const lockedContent = protection.encrypted.filter((p) => spinePaths.has(p) || p === opfPath || /\.x?html?$/i.test(p));
  if (lockedContent.length > 0) {
    throw new RecognitionError('encrypted_document', `the EPUB is DRM-protected: ${lockedContent.length} content documents are encrypted`, { encryptedResources: protection.encrypted.length, rightsFile: protection.rightsFile });
  }
  if (protection.obfuscatedFonts.length) ctx.warn('FONT_OBFUSCATION', `${protection.obfuscatedFonts.length} fonts are obfuscated; the text is unaffected`);
  ctx.time('inspect', ctx.now() - t0);

  const units: MarkdownUnit[] = [];
  const totals: Record<string, number> = {};
  let chars = 0;
  for (let i = 0; i < spine.length; i++) {
    ctx.checkCancelled();
    const page = i + 1;
    const resumed = ctx.resumed.get(page);
    if (resumed && resumed.unit.kind === 'markup') {
      units.push(resumed.unit as MarkdownUnit);
      continue;
    }
    const t1 = ctx.now();
    const item = manifest.get(spine[i]!);
    let unit: MarkdownUnit;
    const source = item ? archive.text(item.href) : null;
    if (!item || source === null) {
      const what = item ? item.href : `idref ${spine[i]}`;
      ctx.warn('MISSING_SPINE_ITEM', 'spine items point to files missing from the archive', page);
      unit = { page, kind: 'failed', markdown: '', counts: {}, notes: [`missing ${what}`], ms: ctx.now() - t1 };
    } else {
      const dir = item.href.includes('/') ? item.href.slice(0, item.href.lastIndexOf('/')) : '';
      const { markdown, counts } = xhtmlToMarkdown(source, dir);
      unit = { page, kind: 'markup', markdown, counts, notes: [], ms: ctx.now() - t1 };
    }
    chars += unit.markdown.length;
    if (chars > ctx.limits.maxTextChars) {
      throw new RecognitionError('document_too_large', `the EPUB's text exceeds ${ctx.limits.maxTextChars} characters (at spine item ${page} of ${spine.length})`, { limit: ctx.limits.maxTextChars });
    }
    units.push(unit);
    await ctx.checkpoint(unit, spine.length);
  }
  for (const u of units) for (const [k, v] of Object.entries(u.counts)) totals[k] = (totals[k] ?? 0) + v;
  ctx.time('extract', ctx.now() - t0);
  const markdown = units.map((u) => u.markdown.trim()).filter(Boolean).join('\n\n') + '\n';
  // Nothing readable is a failure, not an empty success: a failed conversion is not charged (docs/recognition.md).
  if (units.every((u) => u.kind === 'failed')) {
    throw new RecognitionError('damaged_document', `none of the EPUB's ${spine.length} spine items is in the archive`, { missingSpineItems: spine.length });
  }
  if (markdown.trim() === '') throw new RecognitionError('empty_document', `the EPUB's ${spine.length} content documents hold no text or images`);
  const byLevel: Record<string, number> = {};
  let headings = 0;
  for (let l = 1; l <= 6; l++) if (totals[`h${l}`]) {
    byLevel[String(l)] = totals[`h${l}`]!;
    headings += totals[`h${l}`]!;
  }
  const counts: StructureCounts = {
    headingsByLevel: byLevel,
    headingsBySource: headings ? { markup: headings } : {},
    paragraphs: totals.p ?? 0,
    lists: totals.lists ?? 0,
    listItems: totals.li ?? 0,
    tables: totals.table ?? 0,
    figures: totals.img ?? 0,
    captions: totals.caption ?? 0,
    equations: totals.math ?? 0,
    footnotes: totals.footnote ?? 0,
    references: 0,
    codeBlocks: totals.pre ?? 0,
  };
  const identifier = dc('identifier').find((x) => /isbn|doi|^10\.|urn:/i.test(x)) ?? dc('identifier')[0] ?? null;
  const generator = /<meta\b[^>]*name="generator"[^>]*content="([^"]+)"/i.exec(opf)?.[1] ?? null;
  const metadata: DocumentMetadata = {
    title: dc('title')[0] ?? null,
    authors: dc('creator'),
    language: dc('language')[0]?.split('-')[0]?.toLowerCase() ?? null,
    subject: dc('description')[0] ?? null,
    keywords: dc('subject'),
    publisher: dc('publisher')[0] ?? null,
    created: dc('date')[0] ?? null,
    identifier,
  };
  return { units, markdown, counts, metadata, encrypted: protection.encrypted.length > 0, producer: generator };
}

/**
 * Deepest element nesting an EPUB content document may have. The HTML parser and the Markdown writer
 * walk the tree recursively and overflow the stack somewhere past 1,000 levels (less in a worker
 * thread); real books stay far below 100. Deeper documents are refused (issue 25).
 */
export const MAX_MARKUP_DEPTH = 512;

const VOID_ELEMENTS = new Set(['area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source', 'track', 'wbr']);

/**
 * The deepest element nesting of `source`, counted in one linear scan of its tags (no tree, no
 * recursion), stopping as soon as it passes `limit`. Comments, CDATA, processing instructions and
 * doctype are skipped; void and self-closed elements do not nest.
 */
export function markupDepth(source: string, limit = Infinity): number {
  const tag = /<!--[\s\S]*?-->|<!\[CDATA\[[\s\S]*?\]\]>|<[!?][^>]*>|<(\/?)([A-Za-z][^\s/>]*)[^>]*?(\/?)>/g;
  let depth = 0;
  let max = 0;
  for (let m = tag.exec(source); m; m = tag.exec(source)) {
    const name = m[2];
    if (name === undefined) continue;
    if (m[1] === '/') depth = Math.max(0, depth - 1);
    else if (m[3] !== '/' && !VOID_ELEMENTS.has(name.toLowerCase())) {
      depth++;
      if (depth > max) {
        max = depth;
        if (max > limit) return max;
      }
    }
  }
  return max;
}

/** Converts one XHTML content document; image sources become archive paths. */
export function xhtmlToMarkdown(source: string, dir: string): { markdown: string; counts: Record<string, number> } {
  const depth = markupDepth(source, MAX_MARKUP_DEPTH);
  if (depth > MAX_MARKUP_DEPTH) {
    throw new RecognitionError('too_deeply_nested', `a content document nests elements more than ${MAX_MARKUP_DEPTH} levels deep, deeper than the converter reads`, { limit: MAX_MARKUP_DEPTH });
  }
  const root = parse(source, { lowerCaseTagName: false, comment: false, blockTextElements: { script: false, style: false, pre: true } });
  const body = (root.querySelector('body') ?? root) as HTMLElement;
  const counts: Record<string, number> = {};
  const count = (k: string, n: number): void => {
    if (n) counts[k] = (counts[k] ?? 0) + n;
  };
  for (let l = 1; l <= 6; l++) count(`h${l}`, body.querySelectorAll(`h${l}`).length);
  count('p', body.querySelectorAll('p').length);
  count('lists', body.querySelectorAll('ul, ol').length);
  count('li', body.querySelectorAll('li').length);
  count('table', body.querySelectorAll('table').length);
  count('caption', body.querySelectorAll('figcaption, caption').length);
  count('pre', body.querySelectorAll('pre').length);
  count('math', body.querySelectorAll('math, m\\:math').length);
  const notes = body.querySelectorAll('aside, section, div, li, p').filter((e) => /\b(foot|end|rear)note\b/.test(`${e.getAttribute('epub:type') ?? ''} ${e.getAttribute('role') ?? ''}`.replace(/doc-/g, '')));
  count('footnote', notes.length);
  const images = body.querySelectorAll('img');
  for (const img of images) {
    const src = img.getAttribute('src');
    if (src && !/^(data:|https?:)/.test(src)) img.setAttribute('src', resolveHref(dir, src));
  }
  let svgImages = 0;
  for (const im of body.querySelectorAll('image')) {
    const href = im.getAttribute('xlink:href') ?? im.getAttribute('href');
    if (href) {
      svgImages++;
      im.replaceWith(parse(`<img src="${resolveHref(dir, href)}" alt="">`));
    }
  }
  count('img', images.length + svgImages);
  // A line break inside a heading ("Chapter One<br/>The Beginning") would end the ATX heading and leave its
  // second line as body text: it becomes a space.
  for (const h of body.querySelectorAll('h1, h2, h3, h4, h5, h6')) for (const br of h.querySelectorAll('br')) br.replaceWith(' ');
  const markdown = nhm.translate(body.innerHTML).replace(/\n{3,}/g, '\n\n').trim();
  return { markdown, counts };
}
