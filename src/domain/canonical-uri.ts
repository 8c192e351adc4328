// Canonical URIs (interface, "What the service does" 9): doi://, arxiv://, pubmed://, pmc://, isbn://
// and https URLs. `parseCanonicalUri` accepts the canonical forms and the usual spellings people paste
// (https://doi.org/..., doi:..., arXiv:..., PMID..., PMC..., ISBN-10/13 with hyphens) and returns one
// normal form, so the same work always has the same key:
//   DOI      doi://10.1016/j.fuel.2022.125636     (lower-cased: DOIs are case-insensitive, DOI Handbook 2.4)
//   arXiv    arxiv://2101.00001  arxiv://2101.00001v2  arxiv://hep-th/9901001   (version kept when given)
//   PubMed   pubmed://12345678
//   PMC      pmc://PMC1234567
//   ISBN     isbn://9780306406157              (ISBN-10 converted to ISBN-13; check digits verified)
//   https    https://host/path                 (scheme and host lower-cased; http upgraded only on request)

export type UriScheme = 'doi' | 'arxiv' | 'pubmed' | 'pmc' | 'isbn' | 'https';

export interface CanonicalUri {
  readonly scheme: UriScheme;
  /** The identifier after `scheme://`, normalised. */
  readonly id: string;
  /** `scheme://id`. */
  readonly uri: string;
}

const make = (scheme: UriScheme, id: string): CanonicalUri => ({ scheme, id, uri: `${scheme}://${id}` });

// DOI syntax: "10." + registrant code + "/" + suffix (ANSI/NISO Z39.84). Suffix may contain almost anything.
const DOI_RE = /^10\.\d{4,9}\/\S+$/;
// New-style arXiv ids (since 2007-04): YYMM.NNNN or YYMM.NNNNN, optional vN. Old style: archive(.SC)/YYMMNNN.
const ARXIV_NEW_RE = /^(\d{4}\.\d{4,5})(v\d+)?$/;
const ARXIV_OLD_RE = /^([a-z-]+(?:\.[A-Z]{2})?\/\d{7})(v\d+)?$/i;

function normalizeDoi(raw: string): CanonicalUri | null {
  let s = raw.trim();
  try {
    s = decodeURIComponent(s);
  } catch {
    // keep it as given: a stray % is part of some DOIs
  }
  s = s.replace(/^(https?:\/\/)?(dx\.)?doi\.org\//i, '').replace(/^doi:\s*/i, '');
  s = s.toLowerCase();
  return DOI_RE.test(s) ? make('doi', s) : null;
}

function normalizeArxiv(raw: string): CanonicalUri | null {
  let s = raw.trim();
  s = s.replace(/^(https?:\/\/)?(www\.)?(export\.)?arxiv\.org\/(abs|pdf)\//i, '').replace(/\.pdf$/i, '');
  s = s.replace(/^arxiv:\s*/i, '');
  const n = ARXIV_NEW_RE.exec(s);
  if (n) return make('arxiv', n[1]! + (n[2] ?? ''));
  const o = ARXIV_OLD_RE.exec(s);
  if (o) {
    const [archive, num] = o[1]!.split('/');
    const a = archive!.includes('.') ? `${archive!.split('.')[0]!.toLowerCase()}.${archive!.split('.')[1]!.toUpperCase()}` : archive!.toLowerCase();
    return make('arxiv', `${a}/${num}${o[2] ?? ''}`);
  }
  return null;
}

function normalizePubmed(raw: string): CanonicalUri | null {
  const s = raw.trim().replace(/^(https?:\/\/)?(www\.)?(pubmed\.ncbi\.nlm\.nih\.gov|ncbi\.nlm\.nih\.gov\/pubmed)\//i, '').replace(/\/$/, '').replace(/^pmid:?\s*/i, '');
  return /^\d{1,9}$/.test(s) ? make('pubmed', String(Number(s))) : null;
}

function normalizePmc(raw: string): CanonicalUri | null {
  const s = raw.trim().replace(/^(https?:\/\/)?(www\.)?(ncbi\.nlm\.nih\.gov\/pmc\/articles|pmc\.ncbi\.nlm\.nih\.gov\/articles)\//i, '').replace(/\/$/, '');
  const m = /^(?:pmcid:?\s*)?(?:pmc)?(\d{1,9})$/i.exec(s);
  return m ? make('pmc', `PMC${Number(m[1])}`) : null;
}

/** ISBN-13 check digit for the first 12 digits (ISO 2108). */
function isbn13Check(d12: string): number {
  let sum = 0;
  for (let i = 0; i < 12; i++) sum += Number(d12[i]) * (i % 2 === 0 ? 1 : 3);
  return (10 - (sum % 10)) % 10;
}

function normalizeIsbn(raw: string): CanonicalUri | null {
  const s = raw.trim().replace(/^isbn(-1[03])?:?\s*/i, '').replace(/[\s-]/g, '').toUpperCase();
  if (/^\d{13}$/.test(s)) {
    if (!s.startsWith('978') && !s.startsWith('979')) return null;
    return isbn13Check(s.slice(0, 12)) === Number(s[12]) ? make('isbn', s) : null;
  }
  if (/^\d{9}[\dX]$/.test(s)) {
    let sum = 0;
    for (let i = 0; i < 10; i++) sum += (s[i] === 'X' ? 10 : Number(s[i])) * (10 - i);
    if (sum % 11 !== 0) return null;
    const d12 = '978' + s.slice(0, 9);
    return make('isbn', d12 + String(isbn13Check(d12)));
  }
  return null;
}

function normalizeHttps(raw: string): CanonicalUri | null {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    return null;
  }
  if (url.protocol !== 'https:' || !url.hostname) return null;
  url.hash = '';
  const s = url.toString();
  return { scheme: 'https', id: s.slice('https://'.length), uri: s };
}

/**
 * Parses a canonical URI or a common spelling of one; returns null when it is not one.
 * The canonical forms (`doi://…`) are accepted case-insensitively in the scheme.
 */
export function parseCanonicalUri(input: string): CanonicalUri | null {
  if (typeof input !== 'string' || input.length === 0 || input.length > 2048) return null;
  const raw = input.trim();
  const m = /^([a-z]+):\/\/(.*)$/is.exec(raw);
  if (m) {
    const scheme = m[1]!.toLowerCase();
    const rest = m[2]!;
    switch (scheme) {
      case 'doi':
        return normalizeDoi(rest);
      case 'arxiv':
        return normalizeArxiv(rest);
      case 'pubmed':
        return normalizePubmed(rest);
      case 'pmc':
        return normalizePmc(rest);
      case 'isbn':
        return normalizeIsbn(rest);
      case 'https':
      case 'http': {
        if (/^(dx\.)?doi\.org\//i.test(rest)) return normalizeDoi(rest);
        if (/^(www\.|export\.)?arxiv\.org\/(abs|pdf)\//i.test(rest)) return normalizeArxiv(rest);
        if (/^(www\.)?(pubmed\.ncbi\.nlm\.nih\.gov|ncbi\.nlm\.nih\.gov\/pubmed)\//i.test(rest)) return normalizePubmed(rest);
        if (/^(www\.)?(ncbi\.nlm\.nih\.gov\/pmc\/articles|pmc\.ncbi\.nlm\.nih\.gov\/articles)\//i.test(rest)) return normalizePmc(rest);
        return scheme === 'https' ? normalizeHttps(raw) : null;
      }
      default:
        return null;
    }
  }
  if (/^doi:/i.test(raw) || DOI_RE.test(raw.toLowerCase())) return normalizeDoi(raw);
  if (/^arxiv:/i.test(raw)) return normalizeArxiv(raw);
  if (/^pmid:?/i.test(raw)) return normalizePubmed(raw);
  if (/^pmc\d/i.test(raw) || /^pmcid:/i.test(raw)) return normalizePmc(raw);
  if (/^isbn/i.test(raw)) return normalizeIsbn(raw);
  return null;
}

/** The normal form of a URI, or null. */
export const canonicalUri = (input: string): string | null => parseCanonicalUri(input)?.uri ?? null;

/** DataCite registers arXiv DOIs as 10.48550/arXiv.<id>; the same work as arxiv://<id>. */
export function arxivFromDoi(doiUri: string): string | null {
  const m = /^doi:\/\/10\.48550\/arxiv\.(.+)$/.exec(doiUri);
  return m ? (normalizeArxiv(m[1]!)?.uri ?? null) : null;
}

/** An arXiv URI without its version (`arxiv://2101.00001v2` -> `arxiv://2101.00001`); others unchanged. */
export function withoutArxivVersion(uri: string): string {
  return uri.startsWith('arxiv://') ? uri.replace(/v\d+$/, '') : uri;
}

/**
 * Every identity key of a work for its URIs: the URIs themselves, arXiv ids without version, and
 * arXiv ids behind arXiv DOIs. Two records sharing a key are the same work (deduplication).
 */
export function identityKeys(uris: readonly string[]): string[] {
  const keys = new Set<string>();
  for (const u of uris) {
    if (u.startsWith('https://')) continue; // landing pages are not identities
    keys.add(withoutArxivVersion(u));
    const ax = arxivFromDoi(u);
    if (ax) keys.add(withoutArxivVersion(ax));
  }
  return [...keys];
}
