// TeX's accent and letter macros as the Unicode letters they typeset (issue 28, ADR 0356), for the real
// development set's checks (build.ts): `est\'a` is "está", `Espa{\~n}a` "España", `Stra\ss e` "Straße",
// `\v{c}`, `\c c`, `\'{\i}`, `{\o}`, `\ae{}`. Without this the source parser cut a run of words at the macro
// and kept "a escrito con acentos ..." as a check, which the correct "está escrito con acentos" fails.
// German babel shorthands (`f"ur`, `Gr"u"se`, `Schi"ffahrt`, `Zucker"-b"acker`) are decoded when the source
// loads German (ngerman, german, babel's German options): `germanShorthands`.
// A construct that is an accent or letter but cannot be decoded with certainty (`\t{oo}`, `\'{}`, `\"\^a`,
// `sch"on` without German loaded) becomes UNDECODED when it touches a letter: a word holding it is no word (\p{L}), so the
// run around it is dropped instead of being cut into a fragment; standing alone it becomes `|`, which ends a
// run as the macro did before. `\-` (a hyphenation point) and `\/` (italic correction) typeset nothing
// inside a word and are removed. Text in `\verb` and in `tabbing` (where `\=`, `\'`, `\`` set tab stops) is
// left as it is.

/** Combining marks of the accent macros (LaTeX's and plain TeX's). */
const ACCENTS: Readonly<Record<string, string>> = {
  "'": '\u0301',
  '`': '\u0300',
  '^': '\u0302',
  '"': '\u0308',
  '~': '\u0303',
  '=': '\u0304',
  '.': '\u0307',
  u: '\u0306',
  v: '\u030C',
  H: '\u030B',
  c: '\u0327',
  k: '\u0328',
  r: '\u030A',
  d: '\u0323',
  b: '\u0331',
};

/** Accent macros whose argument is not one letter (`\t{oo}` ties two) and are never decoded. */
const UNDECODABLE_ACCENTS = new Set(['t']);

/** Letter macros (LaTeX's text-mode letters). `\i` and `\j` are the dotless letters; under an accent, i and j. */
const LETTERS: Readonly<Record<string, string>> = {
  ss: 'ß',
  o: 'ø',
  O: 'Ø',
  ae: 'æ',
  AE: 'Æ',
  oe: 'œ',
  OE: 'Œ',
  aa: 'å',
  AA: 'Å',
  l: 'ł',
  L: 'Ł',
  i: 'ı',
  j: 'ȷ',
  dh: 'ð',
  DH: 'Ð',
  th: 'þ',
  TH: 'Þ',
  ng: 'ŋ',
  NG: 'Ŋ',
  dj: 'đ',
  DJ: 'Đ',
};

/** Not a letter, not a character the source parser ends a run at: a word holding it is never a check's word. */
export const UNDECODED = '\uFFFD';

const isLetter = (c: string | undefined): boolean => c !== undefined && /\p{L}/u.test(c);

/** The control sequence at `i` (a backslash): its name and the index after it. */
function controlAt(s: string, i: number): { name: string; end: number } {
  let j = i + 1;
  if (j >= s.length) return { name: '', end: j };
  if (!/[A-Za-z]/.test(s[j]!)) return { name: s[j]!, end: j + 1 };
  while (j < s.length && /[A-Za-z]/.test(s[j]!)) j++;
  return { name: s.slice(i + 1, j), end: j };
}

/** Spaces TeX skips (not a blank line, which is a paragraph end). */
function skipSpaces(s: string, i: number): number {
  let newlines = 0;
  while (i < s.length && /\s/.test(s[i]!)) {
    if (s[i] === '\n' && ++newlines > 1) break;
    i++;
  }
  return i;
}

/** A letter macro at `i`: its letter and the index after it (a following `{}` or the spaces TeX skips included). */
function letterMacroAt(s: string, i: number): { text: string; name: string; end: number } | null {
  const c = controlAt(s, i);
  const text = LETTERS[c.name];
  if (text === undefined || !/^[A-Za-z]+$/.test(c.name)) return null;
  let end = c.end;
  if (s.startsWith('{}', end)) end += 2;
  else end = skipSpaces(s, end);
  return { text, name: c.name, end };
}

/**
 * The accent or letter construct at `i` (a backslash): the letter it typesets (NFC), UNDECODED when it is one
 * that cannot be read with certainty, or null when `i` starts no such construct.
 */
function constructAt(s: string, i: number): { text: string; end: number } | null {
  const letter = letterMacroAt(s, i);
  if (letter) return { text: letter.text, end: letter.end };
  const c = controlAt(s, i);
  const mark = ACCENTS[c.name];
  if (mark === undefined && !UNDECODABLE_ACCENTS.has(c.name)) return null;
  // An accent: its argument is a group, a letter macro or one character, after the spaces TeX skips.
  let j = skipSpaces(s, c.end);
  let base: string | null = null;
  let end = j;
  if (s[j] === '{') {
    const close = s.indexOf('}', j);
    const inner = close < 0 ? null : s.slice(j + 1, close);
    end = close < 0 ? j + 1 : close + 1;
    if (inner !== null && inner.includes('{')) {
      // Nested group: not read; end at its matching brace.
      let depth = 0;
      for (let k = j; k < s.length; k++) {
        if (s[k] === '{') depth++;
        else if (s[k] === '}' && --depth === 0) {
          end = k + 1;
          break;
        }
      }
    } else if (inner !== null) {
      const t = inner.trim();
      if (/^[A-Za-z]$/.test(t)) base = t;
      else if (t.startsWith('\\')) {
        const m = letterMacroAt(t, 0);
        if (m && m.end >= t.length) base = m.name === 'i' ? 'i' : m.name === 'j' ? 'j' : m.text;
      }
    }
  } else if (s[j] === '\\') {
    const m = letterMacroAt(s, j);
    if (m) {
      base = m.name === 'i' ? 'i' : m.name === 'j' ? 'j' : m.text;
      end = m.end;
    } else end = controlAt(s, j).end;
  } else if (j < s.length && /[A-Za-z]/.test(s[j]!)) {
    base = s[j]!;
    end = j + 1;
  } else end = c.end;
  if (base === null || mark === undefined) return { text: UNDECODED, end };
  return { text: (base + mark).normalize('NFC'), end };
}

/** Whether the Markdown-free source text ends in a macro name or an argument (a group after it is its argument). */
const endsInMacroOrArgument = (out: string): boolean => /(?:\\[A-Za-z@]+\*?|[}\]])\s*$/.test(out.slice(-100));

/** German babel's shorthands that typeset letters (or nothing): `"a` ä, `"s` ß, `"ck` ck, `"-` a hyphenation point. */
const GERMAN_SHORTHANDS: Readonly<Record<string, string>> = {
  a: 'ä', o: 'ö', u: 'ü', A: 'Ä', O: 'Ö', U: 'Ü', e: 'ë', i: 'ï', E: 'Ë', I: 'Ï',
  s: 'ß', z: 'ß', S: 'SS', Z: 'SZ',
  c: 'c', f: 'f', l: 'l', m: 'm', n: 'n', p: 'p', r: 'r', t: 't',
  '-': '', '"': '', '|': '',
};

const GERMAN = /^n?(?:german|austrian|swissgerman)$/;

/**
 * Whether German is a LaTeX source's main language, so that its `"` shorthands are active in the body: the
 * ngerman or german package, or babel's last language option (babel's options, else the class's) German.
 */
export function loadsGerman(tex: string): boolean {
  const preamble = tex.slice(0, Math.max(0, tex.indexOf('\\begin{document}')));
  if (/\\usepackage\s*(?:\[[^\]]*\])?\s*\{[^}]*\bn?german\b[^}]*\}/.test(preamble)) return true;
  const babel = /\\usepackage\s*(?:\[([^\]]*)\])?\s*\{babel\}/.exec(preamble);
  if (!babel) return false;
  const options = (list: string | undefined) => (list ?? '').split(',').map((o) => o.trim()).filter(Boolean);
  const langs = (list: string[]) => list.filter((o) => /^[a-z]+$/.test(o) && !/=/.test(o));
  const own = langs(options(babel[1]));
  const cls = langs(options(/\\documentclass\s*\[([^\]]*)\]/.exec(preamble)?.[1]));
  const main = own.length ? own.at(-1) : cls.filter((o) => GERMAN.test(o) || /^(?:english|american|british|french|spanish|italian|dutch)$/.test(o)).at(-1);
  return main !== undefined && GERMAN.test(main);
}

/** A source with its accent and letter macros replaced by the letters they typeset (see the file's head). */
export function decodeTexLetters(src: string, opts: { germanShorthands?: boolean } = {}): string {
  let out = '';
  let i = 0;
  const emit = (text: string, end: number, next: number) => {
    if (text === UNDECODED && !isLetter(out.at(-1)) && !isLetter(src[next])) out += ' | ';
    else out += text;
    i = end;
  };
  while (i < src.length) {
    const ch = src[i]!;
    if (ch === '\\') {
      const c = controlAt(src, i);
      if (c.name === 'verb') {
        // \verb|...| and \verb*|...|: copied as they are.
        let j = c.end;
        if (src[j] === '*') j++;
        const delim = src[j];
        const close = delim === undefined ? -1 : src.indexOf(delim, j + 1);
        const end = close < 0 ? src.length : close + 1;
        out += src.slice(i, end);
        i = end;
        continue;
      }
      if (c.name === 'begin' && src.startsWith('{tabbing}', c.end)) {
        const close = src.indexOf('\\end{tabbing}', c.end);
        const end = close < 0 ? src.length : close + 13;
        out += src.slice(i, end);
        i = end;
        continue;
      }
      if (c.name === '-' || c.name === '/') {
        i = c.end;
        continue;
      }
      if (c.name === '\\') {
        out += '\\\\';
        i = c.end;
        continue;
      }
      const k = constructAt(src, i);
      if (k) {
        emit(k.text, k.end, k.end);
        continue;
      }
      out += src.slice(i, c.end);
      i = c.end;
      continue;
    }
    if (ch === '{' && src[skipSpaces(src, i + 1)] === '\\' && !endsInMacroOrArgument(out)) {
      // A group holding only a construct ({\'a}, {\ss}, {\o}): the letter without the braces, which the
      // parser would otherwise read as a macro's argument.
      const k = constructAt(src, skipSpaces(src, i + 1));
      if (k) {
        const close = skipSpaces(src, k.end);
        if (src[close] === '}') {
          emit(k.text, close + 1, close + 1);
          continue;
        }
      }
    }
    if (ch === '"' && opts.germanShorthands && GERMAN_SHORTHANDS[src[i + 1] ?? ''] !== undefined) {
      out += GERMAN_SHORTHANDS[src[i + 1]!]!;
      i += 2;
      continue;
    }
    if (ch === '"' && isLetter(out.at(-1)) && isLetter(src[i + 1])) {
      // babel's shorthands of another language (sch"on without German, Dutch "e): not read.
      out += UNDECODED;
      i++;
      continue;
    }
    out += ch;
    i++;
  }
  return out;
}
