// Bibliographic guesses for ingest: the embedded metadata when it looks real, otherwise the first title
// heading. PDF Info titles are often the producer's file name ("Microsoft Word - draft3.docx") or empty.
import type { DocumentMetadata } from './report/quality-report.js';
import type { DocBlock } from './structure/document-blocks.js';

const JUNK_TITLE = /^(untitled|microsoft (word|powerpoint)|document\d*|title|slide \d+)\b|\.(docx?|pdf|tex|dvi|indd|qxd|rtf|odt)$|^[\w-]+\.\w{2,4}$/i;

/** True when an embedded title looks like a real title rather than a file name or placeholder. */
export function plausibleTitle(t: string | undefined | null): t is string {
  if (!t) return false;
  const s = t.trim();
  return s.length >= 3 && s.length <= 400 && /\p{L}{2}/u.test(s) && !JUNK_TITLE.test(s);
}

/** Splits an author string ("A and B; C, D") into names. */
export function splitAuthors(s: string | undefined | null): string[] {
  if (!s) return [];
  return s
    .split(/\s*(?:;|\band\b|&|\n)\s*|,\s*(?=[^,]*\s)/)
    .map((a) => a.trim())
    .filter((a) => a.length > 1 && a.length < 120 && /\p{L}/u.test(a));
}

/** Metadata of a PDF from its Info dictionary, falling back to the detected title heading. */
export function pdfMetadata(info: Readonly<Record<string, string>>, blocks: readonly DocBlock[]): DocumentMetadata {
  const heading = blocks.find((b) => b.kind === 'heading' && (b.source === 'title' || b.level === 1)) ?? blocks.find((b) => b.kind === 'heading');
  const title = plausibleTitle(info.Title) ? info.Title.trim() : heading && heading.kind === 'heading' ? heading.text : null;
  const doi = /\b10\.\d{4,9}\/[^\s"<>]+/.exec(`${info.Subject ?? ''} ${info.Keywords ?? ''} ${info['doi'] ?? ''}`)?.[0] ?? null;
  return {
    title,
    authors: splitAuthors(info.Author),
    language: null,
    subject: info.Subject?.trim() || null,
    keywords: (info.Keywords ?? '').split(/[;,]/).map((k) => k.trim()).filter(Boolean),
    publisher: null,
    created: info.CreationDate ? pdfDate(info.CreationDate) : null,
    identifier: doi,
  };
}

/** Converts a PDF date `D:YYYYMMDDHHmmSS...` to ISO 8601 (date and time when present). */
export function pdfDate(s: string): string | null {
  const m = /^D?:?(\d{4})(\d{2})?(\d{2})?(\d{2})?(\d{2})?(\d{2})?/.exec(s.trim());
  if (!m) return null;
  const [, y, mo = '01', d = '01', h, mi = '00', se = '00'] = m;
  return h ? `${y}-${mo}-${d}T${h}:${mi}:${se}Z` : `${y}-${mo}-${d}`;
}

/** Empty metadata. */
export const NO_METADATA: DocumentMetadata = { title: null, authors: [], language: null, subject: null, keywords: [], publisher: null, created: null, identifier: null };
