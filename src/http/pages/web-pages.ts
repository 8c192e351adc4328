// The bodies of the web application's pages (search, document) and the components they share:
// the navigation, result lists, document metadata, flags, highlighted snippets, pagination and
// readable API errors. Values arrive already translated by the route (src/http/routes/web/); nothing
// here decides anything a service decides. Every interpolated value is escaped (html.ts).
import { documentHead, esc, html, Html } from './html.js';

/** An entry of the main navigation; `current` marks the page's own entry (aria-current). */
export interface NavEntry {
  href: string;
  label: string;
}

/** The navigation of every application page. Community pages (trending, discussions) are added here when they exist. */
export function navEntries(o: { signedIn: boolean; accountHref: string; signInHref: string }): NavEntry[] {
  return [
    { href: '/', label: 'Search' },
    { href: '/ask', label: 'Ask' },
    { href: '/trending', label: 'Trending' },
    ...(o.signedIn ? [{ href: '/recognize', label: 'Convert' }, { href: o.accountHref, label: 'Account' }] : [{ href: o.signInHref, label: 'Sign in' }]),
  ];
}

export interface AppLayoutOptions {
  nav: NavEntry[];
  currentPath: string;
  styleHref: string;
  signedInAs: { email: string; csrf: string; signOutAction: string } | null;
  /** Wide pages (results, documents) use the full content width. */
  wide?: boolean;
}

/** The application layout: skip link, banner with navigation, one main landmark with the page's h1. */
export function appLayout(title: string, body: Html, o: AppLayoutOptions): string {
  const current = (href: string) => href === o.currentPath || (href !== '/' && !href.includes('?') && o.currentPath.startsWith(`${href}/`));
  const nav = html`<nav aria-label="Main"><ul>${o.nav.map((e) => html`<li><a href="${e.href}"${current(e.href) ? html` aria-current="page"` : ''}>${e.label}</a></li>`)}</ul></nav>`;
  const who = o.signedInAs
    ? html`<form class="who" method="post" action="${o.signedInAs.signOutAction}"><span>${o.signedInAs.email}</span><input type="hidden" name="csrf" value="${o.signedInAs.csrf}"><button class="link" type="submit">Sign out</button></form>`
    : html``;
  return `${documentHead(title, o.styleHref)}
<a class="skip" href="#content">Skip to content</a>
<header><a class="brand" href="/">Lectern</a>${nav.value}${who.value}</header>
<main id="content" tabindex="-1"${o.wide ? ' class="wide"' : ''}>
<h1>${esc(title)}</h1>
${body.value}
</main>
<footer>Lectern · <a href="/openapi.json">API description (OpenAPI)</a></footer>
</body>
</html>
`;
}

/** A readable message for an API error shown on a page (402, 429 and the rest). */
export function errorMessage(e: { status: number; code: string; message: string; retryAfter?: string | null }, o: { accountHref: string }): Html {
  if (e.status === 402) return html`<div class="problem" role="alert"><p><strong>You are out of credits.</strong> ${e.message}</p><p>See your balance on <a href="${o.accountHref}">your account page</a>; the operator of this Lectern tops up accounts.</p></div>`;
  if (e.status === 429) return html`<div class="problem" role="alert"><p><strong>Too many requests.</strong> Wait ${e.retryAfter ?? 'a few'} seconds, then try again.</p></div>`;
  if (e.status >= 500) return html`<div class="problem" role="alert"><p>Something went wrong on our side. ${e.message}</p></div>`;
  return html`<div class="problem" role="alert"><p>${e.message}</p></div>`;
}

/** Text with highlight ranges [start, end) (UTF-16 offsets) marked with <mark>. */
export function highlighted(text: string, ranges: readonly (readonly [number, number])[]): Html {
  const sorted = [...ranges].filter(([s, e]) => e > s && s >= 0 && e <= text.length).sort((a, b) => a[0] - b[0]);
  let out = '';
  let at = 0;
  for (const [s, e] of sorted) {
    if (s < at) continue;
    out += esc(text.slice(at, s)) + '<mark>' + esc(text.slice(s, e)) + '</mark>';
    at = e;
  }
  return new Html(out + esc(text.slice(at)));
}

/** What a result or document page shows about a work (translated from a stored document). */
export interface WorkView {
  id: string;
  href: string;
  title: string;
  authors: string[];
  venue: string | null;
  year: number | null;
  type: string | null;
  retracted: boolean;
  erratum: boolean;
  concern: boolean;
}

export function flags(w: Pick<WorkView, 'retracted' | 'erratum' | 'concern'>): Html {
  return html`${w.retracted ? html`<span class="flag bad">Retracted</span>` : ''}${w.erratum ? html`<span class="flag">Erratum</span>` : ''}${w.concern ? html`<span class="flag">Expression of concern</span>` : ''}`;
}

export function byline(w: WorkView): Html {
  const authors = w.authors.length > 6 ? `${w.authors.slice(0, 6).join(', ')} et al.` : w.authors.join(', ');
  const bits = [authors, w.venue, w.year === null ? null : String(w.year), w.type].filter((x): x is string => !!x);
  return html`<p class="meta">${bits.join(' · ')}</p>`;
}

export interface SnippetView {
  field: string;
  text: string;
  highlights: [number, number][];
}

/** A list of works with snippets (search results, citing works, references). */
export function resultList(items: { work: WorkView; snippets: SnippetView[] }[], o: { label: string; start?: number }): Html {
  return html`<ol class="results" aria-label="${o.label}"${o.start && o.start > 1 ? html` start="${o.start}"` : ''}>
${items.map(
  ({ work, snippets }) => html`<li><article>
  <h2 class="hit"><a href="${work.href}">${work.title || '(untitled)'}</a> ${flags(work)}</h2>
  ${byline(work)}
  ${snippets.map((s) => html`<p class="snippet"><span class="field">${s.field === 'title' ? 'Title' : s.field === 'abstract' ? 'Abstract' : 'Text'}:</span> ${highlighted(s.text, s.highlights)}</p>`)}
</article></li>`,
)}
</ol>`;
}

export interface SearchForm {
  q: string;
  type: string;
  lang: string;
  from: string;
  to: string;
  publisher: string;
  index: 'documents' | 'social';
}

/** The query box and filters: a GET form, so the URL holds the whole search. */
export function searchForm(f: SearchForm, types: readonly string[]): Html {
  const opt = (value: string, label: string, current: string) => html`<option value="${value}"${value === current ? html` selected` : ''}>${label}</option>`;
  return html`<form class="search" method="get" action="/" role="search">
  <label for="q">Search</label>
  <div class="row"><input id="q" name="q" type="search" value="${f.q}" aria-describedby="q-help" maxlength="2000"><button type="submit">Search</button></div>
  <p id="q-help"><small>Words guide relevance. Put a phrase in double quotes, like <code>"citation snowballing"</code>, to require those words in that order.</small></p>
  <fieldset><legend>Filters</legend>
  <div class="filters">
  <div><label for="f-index">Index</label><select id="f-index" name="index">${opt('documents', 'Documents', f.index)}${opt('social', 'Social (Q&amp;A)', f.index)}</select></div>
  <div><label for="f-type">Type</label><select id="f-type" name="type">${opt('', 'Any type', f.type)}${types.map((t) => opt(t, t, f.type))}</select></div>
  <div><label for="f-lang">Language <small>(ISO code)</small></label><input id="f-lang" name="lang" type="text" value="${f.lang}" maxlength="8" size="4" pattern="[A-Za-z]{2,3}" autocomplete="off"></div>
  <div><label for="f-from">From year</label><input id="f-from" name="from" type="number" value="${f.from}" min="1000" max="2999" inputmode="numeric"></div>
  <div><label for="f-to">To year</label><input id="f-to" name="to" type="number" value="${f.to}" min="1000" max="2999" inputmode="numeric"></div>
  <div><label for="f-publisher">Publisher</label><input id="f-publisher" name="publisher" type="text" value="${f.publisher}" maxlength="200"></div>
  </div>
  </fieldset>
</form>`;
}

/** Previous/next links that keep the search in the URL. */
export function pager(o: { prevHref: string | null; nextHref: string | null; label: string }): Html {
  if (!o.prevHref && !o.nextHref) return html``;
  return html`<nav class="pager" aria-label="${o.label}">${o.prevHref ? html`<a href="${o.prevHref}" rel="prev">← Previous</a>` : html`<span></span>`}${o.nextHref ? html`<a href="${o.nextHref}" rel="next">Next →</a>` : ''}</nav>`;
}

export function searchBody(o: {
  form: SearchForm;
  types: readonly string[];
  notice: Html | null;
  summary: string | null;
  correctedHref: string | null;
  corrected: string | null;
  results: { work: WorkView; snippets: SnippetView[] }[];
  start: number;
  prevHref: string | null;
  nextHref: string | null;
}): Html {
  return html`${searchForm(o.form, o.types)}
${o.notice ?? ''}
${o.corrected && o.correctedHref ? html`<p class="corrected">Did you mean <a href="${o.correctedHref}">${o.corrected}</a>?</p>` : ''}
${o.summary ? html`<p class="summary" role="status">${o.summary}</p>` : ''}
${o.results.length ? resultList(o.results, { label: 'Search results', start: o.start }) : ''}
${pager({ prevHref: o.prevHref, nextHref: o.nextHref, label: 'Result pages' })}`;
}

export interface IdentifierLink {
  label: string;
  value: string;
  href: string;
}

export interface DocumentPageView {
  work: WorkView;
  issued: string | null;
  publisher: string | null;
  language: string | null;
  license: string | null;
  identifiers: IdentifierLink[];
  abstract: string | null;
  /** The (cut) text, null when not shown (signed out). */
  text: string | null;
  truncated: boolean;
  fullHref: string | null;
  /** Passages matching the in-document search. */
  passages: SnippetView[] | null;
  textFilter: string;
  /** Passage to highlight (citation links), as found in the text. */
  highlight: string | null;
  originals: { format: string; href: string; bytes: number }[];
  originalsNote: string | null;
  references: { total: number; items: { work: WorkView | null; uri: string }[]; moreHref: string | null } | null;
  citing: { items: { work: WorkView; snippets: SnippetView[] }[]; total: number; moreHref: string | null } | null;
  notice: Html | null;
  signInHref: string | null;
  /** Signed in, the text not bought today: the button that shows its price (ADR 0216). */
  readOffer?: { action: string; csrf: string; price: number; full: boolean; highlight: string | null } | null;
  /** Signed in, the text bought today: when, and for how much. */
  paidNote?: string | null;
  /** The record has no text beyond its abstract (nothing to buy). */
  noText?: boolean;
  /** Credits an in-document search costs when a passage matches (shown on its button). */
  passagePrice?: number | null;
}

const credits = (n: number) => `${n.toLocaleString('en')} credit${n === 1 ? '' : 's'}`;

/** The Text section: the text, the button with its price, or why there is none. */
function textSection(d: DocumentPageView): Html {
  if (d.text !== null) {
    return html`${d.paidNote ? html`<p class="paid" role="status"><small>${d.paidNote}</small></p>` : ''}<div class="fulltext">${textWithHighlight(d.text, d.highlight)}</div>${d.truncated && d.fullHref ? html`<p><a href="${d.fullHref}">Show the whole text</a> <small>(free: already paid today)</small></p>` : ''}`;
  }
  if (d.noText) return html`<p>This record has no text beyond the abstract above (nothing to pay for).</p>`;
  if (d.readOffer) {
    const o = d.readOffer;
    return html`<form method="post" action="${o.action}" class="buy"><input type="hidden" name="csrf" value="${o.csrf}"><input type="hidden" name="price" value="${String(o.price)}">${o.full ? html`<input type="hidden" name="full" value="1">` : ''}${o.highlight ? html`<input type="hidden" name="highlight" value="${o.highlight}">` : ''}
<button type="submit">Read the full text · ${credits(o.price)}</button></form>
<p><small>The metadata and abstract are free. The text costs ${credits(o.price)} (what <code>GET /v2/documents/{id}</code> costs), charged once per document per day: opening it again today, in any tab, is free.</small></p>`;
  }
  return d.signInHref ? html`<p><a href="${d.signInHref}">Sign in</a> to read the text (reading is billed to your account; the abstract is free).</p>` : html``;
}

/** The text of a document with an optional passage marked (the target of citation links). */
function textWithHighlight(text: string, passage: string | null): Html {
  if (passage) {
    const at = text.indexOf(passage);
    if (at >= 0) return html`${text.slice(0, at)}<mark id="cited" class="cited" tabindex="-1">${passage}</mark>${text.slice(at + passage.length)}`;
  }
  return html`${text}`;
}

export function documentBody(d: DocumentPageView): Html {
  return html`<div class="docmeta">${flags(d.work)}${byline(d.work)}</div>
${d.notice ?? ''}
<dl class="facts">
  ${d.issued ? html`<dt>Issued</dt><dd>${d.issued}</dd>` : ''}
  ${d.publisher ? html`<dt>Publisher</dt><dd>${d.publisher}</dd>` : ''}
  ${d.language ? html`<dt>Language</dt><dd>${d.language}</dd>` : ''}
  ${d.license ? html`<dt>Licence</dt><dd>${d.license}</dd>` : ''}
  ${d.identifiers.map((i) => html`<dt>${i.label}</dt><dd><a href="${i.href}" rel="noopener">${i.value}</a></dd>`)}
</dl>
${
  d.originals.length
    ? html`<section aria-labelledby="h-originals"><h2 id="h-originals">Original files</h2><ul>${d.originals.map((o) => html`<li><a href="${o.href}" download>${o.format.toUpperCase()}</a> <small>(${Math.max(1, Math.round(o.bytes / 1024))} KiB)</small></li>`)}</ul></section>`
    : d.originalsNote
      ? html`<p><small>${d.originalsNote}</small></p>`
      : ''
}
${d.abstract ? html`<section aria-labelledby="h-abstract"><h2 id="h-abstract">Abstract</h2><p class="abstract">${textWithHighlight(d.abstract, d.highlight && !(d.text ?? '').includes(d.highlight) ? d.highlight : null)}</p></section>` : ''}
<section aria-labelledby="h-find"><h2 id="h-find">Search in this document</h2>
<form method="get" action="${d.work.href}" role="search"><label for="text_filter">Words or "a phrase" in this document${d.passagePrice ? html` <small>(${credits(d.passagePrice)} when a passage matches, nothing otherwise)</small>` : ''}</label><div class="row"><input id="text_filter" name="text_filter" type="search" value="${d.textFilter}" maxlength="1000"><button type="submit">Find</button></div></form>
${d.passages ? (d.passages.length ? html`<ol class="passages" aria-label="Matching passages">${d.passages.map((p) => html`<li><p class="snippet">${highlighted(p.text, p.highlights)}</p></li>`)}</ol>` : html`<p role="status">No passage matches.</p>`) : ''}
</section>
<section aria-labelledby="h-text" id="text"><h2 id="h-text">Text</h2>
${textSection(d)}
</section>
${
  d.references
    ? html`<section aria-labelledby="h-refs"><h2 id="h-refs">References <small>(${d.references.total})</small></h2>
${d.references.items.length ? html`<ol class="refs">${d.references.items.map((r) => html`<li>${r.work ? html`<a href="${r.work.href}">${r.work.title}</a> ${flags(r.work)}${byline(r.work)}` : html`<span>${r.uri}</span> <small>(not in Lectern)</small>`}</li>`)}</ol>` : html`<p>This record lists no references.</p>`}
${d.references.moreHref ? html`<p><a href="${d.references.moreHref}">More references</a></p>` : ''}</section>`
    : ''
}
${
  d.citing
    ? html`<section aria-labelledby="h-citing"><h2 id="h-citing">Cited by <small>(${d.citing.total})</small></h2>
${d.citing.items.length ? resultList(d.citing.items, { label: 'Citing works' }) : html`<p>No work in Lectern cites this one.</p>`}
${d.citing.moreHref ? html`<p><a href="${d.citing.moreHref}">All citing works</a></p>` : ''}</section>`
    : ''
}`;
}

export function messagePage(text: string, links: { href: string; label: string }[] = []): Html {
  return html`<p>${text}</p>${links.length ? html`<p>${links.map((l, i) => html`${i ? ' · ' : ''}<a href="${l.href}">${l.label}</a>`)}</p>` : ''}`;
}

/** Extra rules for the application pages (appended to the sign-in pages' stylesheet). */
export const APP_STYLESHEET = `
.skip{position:absolute;left:-999px;top:0;background:#fff;color:#1f3a5f;padding:.5rem}
.skip:focus{left:.5rem;z-index:10}
header nav ul{display:flex;flex-wrap:wrap;gap:.25rem 1rem;list-style:none;margin:0;padding:0}
header nav a[aria-current=page]{font-weight:700;text-decoration-thickness:2px}
header .brand{color:#fff;text-decoration:none}
main.wide{max-width:60rem}
main:focus{outline:none}
footer{text-align:center;padding:1rem;color:#444;font-size:.9rem}
:focus-visible{outline:3px solid #c47f00;outline-offset:2px}
.row{display:flex;gap:.5rem;align-items:center}
.row input{flex:1}
.row button{margin:0}
input[type=search],input[type=number],select,textarea{padding:.5rem;font-size:1rem;border:1px solid #767676;border-radius:4px;max-width:100%}
input[type=search]{width:100%}
fieldset{border:1px solid #ddd;border-radius:6px;margin:.75rem 0;padding:.25rem .75rem .75rem}
legend{font-weight:600;padding:0 .25rem}
.filters{display:flex;flex-wrap:wrap;gap:.25rem 1rem}
.filters label{font-weight:500;font-size:.9rem}
.filters input[type=number]{width:6.5rem}
code{background:#f0f0ee;padding:0 .2rem;border-radius:3px}
ol.results{padding-left:1.5rem}
ol.results>li{margin:0 0 1.1rem}
h2.hit{font-size:1.08rem;margin:0}
.meta{margin:.1rem 0;color:#444;font-size:.92rem}
.snippet{margin:.2rem 0;font-size:.95rem}
.snippet .field{color:#555;font-size:.85rem}
mark{background:#fff1a8;color:inherit;padding:0 .05rem}
mark.cited{background:#ffd54f;outline:2px solid #c47f00}
.flag{display:inline-block;font-size:.75rem;font-weight:700;padding:.05rem .4rem;border-radius:3px;border:1px solid #8a6d00;color:#5c4800;background:#fff8e1;margin-left:.3rem;vertical-align:middle}
.flag.bad{border-color:#a11;color:#fff;background:#a11}
.pager{display:flex;justify-content:space-between;margin-top:1rem}
.summary{color:#444}
.fulltext{white-space:pre-wrap;font-size:.97rem;max-height:none}
.abstract{white-space:pre-wrap}
dl.facts dd{word-break:break-word}
.refs li{margin-bottom:.5rem}
.sr{position:absolute;width:1px;height:1px;overflow:hidden;clip:rect(0 0 0 0);white-space:nowrap}
@media (max-width:40rem){
header nav{order:3;flex-basis:100%}
header .who{margin-left:auto}
header .who span{display:inline-block;max-width:13rem;overflow:hidden;text-overflow:ellipsis;white-space:nowrap;vertical-align:bottom}
.row input{min-width:0}
.filters input[type=number]{width:5.5rem}
a.cite .tip{width:auto;min-width:12rem;max-width:calc(100vw - 3rem)}
}
input.key{width:100%;font:600 .95rem ui-monospace,monospace;padding:.5rem;border:1px solid #767676;border-radius:4px}
.num{text-align:right}
.balance{font-size:1.2rem}
textarea{width:100%;font:inherit}
.answer{white-space:pre-wrap;font-size:1.02rem}
a.cite{position:relative;text-decoration:none;font-weight:700;padding:0 .1rem}
a.cite .tip{display:none;position:absolute;left:0;top:1.4em;z-index:5;width:22rem;max-width:80vw;background:#fff;color:#1b1b1b;border:1px solid #999;border-radius:4px;padding:.5rem;font-weight:400;box-shadow:0 2px 8px rgba(0,0,0,.2);white-space:normal}
a.cite:hover .tip,a.cite:focus .tip{display:block}
.turn{border-top:1px solid #ddd;padding-top:.5rem;margin-top:1rem}
h2.question{font-size:1.15rem}
.live{white-space:pre-wrap;background:#f6f6f4;border-radius:4px;padding:.5rem;margin-top:.5rem}
.live ol.stages{margin:0 0 .5rem;padding-left:1.2rem;color:#444;font-size:.9rem}
.live p.growing{margin:0}
.convs li{margin-bottom:.5rem}
pre.markdown{white-space:pre-wrap;background:#f6f6f4;border:1px solid #ddd;border-radius:4px;padding:.75rem;max-height:40rem;overflow:auto;font-size:.9rem}
progress{width:100%;height:1.2rem}
`;

export interface KeyRowView {
  id: string;
  label: string | null;
  created: string;
  revoked: string | null;
}

export interface UsageRowView {
  at: string;
  operation: string;
  amount: number;
  balanceAfter: number;
  reference: string | null;
  /** The document a charge was for (texts read in the browser), linked. */
  document?: { href: string; title: string } | null;
  /** The reference is a request id (billed requests), not a note (top-ups). */
  referenceIsRequest?: boolean;
}

/** The account page: balance, a key just created (shown once), keys, usage, links to agents and password. */
export function accountPageBody(o: {
  email: string;
  balance: number;
  csrf: string;
  notice: string | null;
  problem: Html | null;
  newKey: string | null;
  keys: KeyRowView[];
  usage: UsageRowView[];
  createKeyAction: string;
  revokeKeyAction: string;
  passwordAction: string;
  agentsHref: string;
}): Html {
  const csrf = html`<input type="hidden" name="csrf" value="${o.csrf}">`;
  return html`${o.notice ? html`<p class="ok" role="status">${o.notice}</p>` : ''}${o.problem ?? ''}
<section aria-labelledby="h-balance"><h2 id="h-balance">Balance</h2>
<p class="balance"><strong>${o.balance.toLocaleString('en')}</strong> credits <small>(signed in as ${o.email})</small></p>
${o.balance <= 0 ? html`<p><small>Searches and reads are billed in credits; ask the operator of this Lectern to top up your account.</small></p>` : ''}
</section>
${
  o.newKey
    ? html`<section class="newkey" aria-labelledby="h-newkey"><h2 id="h-newkey">Your new API key</h2>
<p class="warning">Copy it now: it is shown only once. Send it as the <code>X-Api-Key</code> header.</p>
<p><label for="new-key">API key</label><input id="new-key" class="key" type="text" readonly value="${o.newKey}"></p></section>`
    : ''
}
<section aria-labelledby="h-keys"><h2 id="h-keys">API keys</h2>
<form method="post" action="${o.createKeyAction}">${csrf}
<label for="key-label">Name of a new key <small>(optional, e.g. the program that uses it)</small></label>
<div class="row"><input id="key-label" name="label" type="text" maxlength="80" autocomplete="off"><button type="submit">Create key</button></div></form>
${
  o.keys.length
    ? html`<div class="scroll" role="region" aria-label="Your API keys (scrolls sideways)" tabindex="0"><table><caption class="sr">Your API keys</caption><thead><tr><th scope="col">Key</th><th scope="col">Name</th><th scope="col">Created</th><th scope="col">Status</th></tr></thead><tbody>
${o.keys.map(
  (k) => html`<tr><td><code>lk_${k.id}_…</code></td><td>${k.label ?? ''}</td><td>${k.created}</td><td>${
    k.revoked
      ? html`revoked ${k.revoked}`
      : html`<form method="post" action="${o.revokeKeyAction}">${csrf}<input type="hidden" name="key" value="${k.id}"><button class="danger" type="submit" aria-label="Revoke key lk_${k.id}">Revoke</button></form>`
  }</td></tr>`,
)}</tbody></table></div>`
    : html`<p>No API keys yet.</p>`
}
</section>
<section aria-labelledby="h-usage"><h2 id="h-usage">Usage</h2>
${
  o.usage.length
    ? html`<div class="scroll" role="region" aria-label="Usage, newest first (scrolls sideways)" tabindex="0"><table><caption class="sr">Newest first</caption><thead><tr><th scope="col">When (UTC)</th><th scope="col">What</th><th scope="col">For</th><th scope="col" class="num">Credits</th><th scope="col" class="num">Balance</th></tr></thead><tbody>
${o.usage.map((u) => html`<tr><td>${u.at}</td><td>${u.operation}</td><td>${u.document ? html`<a href="${u.document.href}">${u.document.title}</a>` : u.reference ? (u.referenceIsRequest ? html`<small>request <code>${u.reference}</code></small>` : html`<small>${u.reference}</small>`) : ''}</td><td class="num">${u.amount > 0 ? `+${u.amount}` : String(u.amount)}</td><td class="num">${u.balanceAfter}</td></tr>`)}</tbody></table></div>`
    : html`<p>No usage yet.</p>`
}
</section>
<section aria-labelledby="h-password"><h2 id="h-password">Change password</h2>
<form method="post" action="${o.passwordAction}">${csrf}
<input type="text" name="username" autocomplete="username" value="${o.email}" hidden>
<label for="current">Current password</label><input id="current" name="current" type="password" autocomplete="current-password" required>
<label for="next">New password <small>(at least 10 characters)</small></label><input id="next" name="next" type="password" autocomplete="new-password" required minlength="10">
<button type="submit">Change password</button>
<p><small>This signs out your other browsers.</small></p>
</form></section>
<section aria-labelledby="h-agents"><h2 id="h-agents">Connected agents and email</h2>
<p><a href="${o.agentsHref}">Agents connected to this account, email confirmation</a></p></section>`;
}

export interface CitationView {
  n: number;
  excerpt: string;
  href: string;
  title: string;
  /** The full text's section heading the excerpt falls in (full-text excerpts only). */
  section?: string | null;
  /** The excerpt is from the document's full text (its link opens the passage there). */
  fullText?: boolean;
}

export interface TurnView {
  /** Position of the request step (edit target). */
  requestStep: number;
  question: string;
  /** Null when the turn failed (no response stored). */
  answer: { text: string; citations: CitationView[]; documents: { n: number; work: WorkView }[] } | null;
}

/** An answer with its `[n]` markers as links to the cited passage, each showing its verbatim excerpt. */
export function answerHtml(text: string, citations: CitationView[]): Html {
  let out = '';
  let at = 0;
  let k = 0;
  for (const m of text.matchAll(/\[(\d+)\]/g)) {
    const c = citations[k++];
    out += esc(text.slice(at, m.index));
    at = m.index! + m[0].length;
    if (!c) {
      out += esc(m[0]);
      continue;
    }
    // A full-text excerpt names its section: "(Title, section “Methods”)" or "(Title, full text)".
    const where = c.fullText ? (c.section ? `, section “${c.section}”` : ', full text') : '';
    out += html`<a class="cite" href="${c.href}" aria-label="Source ${c.n}: “${c.excerpt}” (${c.title}${where})">[${c.n}]<span class="tip" aria-hidden="true">“${c.excerpt}” — ${c.title}${where}</span></a>`.value;
  }
  // Paragraphs (blank lines: the synthesis, then the groups of supporting sentences) each a <p>.
  const paras = `${out}${esc(text.slice(at))}`.split(/\n\s*\n/).filter((p) => p.trim() !== '');
  return new Html(`<div class="answer">${paras.map((p) => `<p>${p.trim()}</p>`).join('')}</div>`);
}

export function askFormHtml(o: { action: string; csrf: string; conversation: string | null; label: string; models: string[]; id: string }): Html {
  return html`<form class="ask" method="post" action="${o.action}" data-stream="/ask/stream">
<input type="hidden" name="csrf" value="${o.csrf}">
${o.conversation ? html`<input type="hidden" name="conversation" value="${o.conversation}">` : ''}
<label for="${o.id}">${o.label}</label>
<textarea id="${o.id}" name="query" rows="3" required maxlength="4000"></textarea>
${o.models.length > 1 ? html`<label for="${o.id}-model">Answerer</label><select id="${o.id}-model" name="model">${o.models.map((m) => html`<option value="${m}">${m}</option>`)}</select>` : html`<input type="hidden" name="model" value="${o.models[0] ?? ''}">`}
<button type="submit">Ask</button>
<div class="live" aria-live="polite" hidden></div>
</form>`;
}

export function askHomeBody(o: { script?: boolean; form: Html | null; signInHref: string | null; conversations: { href: string; title: string; preview: string | null; updated: string; shared: boolean }[]; problem: Html | null }): Html {
  return html`${o.problem ?? ''}
<p>Ask a research question: Lectern searches its documents and answers with sentences quoted from them, each with a marker that opens the passage it came from.</p>
${o.form ?? (o.signInHref ? html`<p><a href="${o.signInHref}">Sign in</a> to ask (answers are billed to your account).</p>` : '')}
${
  o.signInHref
    ? ''
    : html`<section aria-labelledby="h-convs"><h2 id="h-convs">Your conversations</h2>
${o.conversations.length ? html`<ul class="convs">${o.conversations.map((c) => html`<li><a href="${c.href}">${c.title}</a>${c.shared ? html` <span class="flag">Shared</span>` : ''} <small>${c.updated}</small>${c.preview ? html`<br><small>${c.preview}</small>` : ''}</li>`)}</ul>` : html`<p>No conversations yet.</p>`}
</section>`
}${o.script ? html`<script src="/assets/ask.js" defer></script>` : ''}`;
}

export function conversationBody(o: {
  turns: TurnView[];
  owner: { csrf: string; shared: boolean; shareHref: string; shareAction: string; deleteAction: string; editAction: (step: number) => string; followUp: Html } | null;
  notice: string | null;
  problem: Html | null;
}): Html {
  return html`${o.notice ? html`<p class="ok" role="status">${o.notice}</p>` : ''}${o.problem ?? ''}
${o.owner ? '' : html`<p class="meta">A shared conversation (read-only).</p>`}
${o.turns.map(
  (t, i) => html`<section class="turn" aria-labelledby="q-${i}">
<h2 id="q-${i}" class="question">${t.question}</h2>
${
  o.owner
    ? html`<details class="edit"><summary>Edit this question</summary><form method="post" action="${o.owner.editAction(t.requestStep)}"><input type="hidden" name="csrf" value="${o.owner.csrf}"><label for="edit-${i}">New question <small>(this answer and the later ones are recomputed)</small></label><textarea id="edit-${i}" name="query" rows="2" required maxlength="4000">${t.question}</textarea><button type="submit">Save and recompute</button></form></details>`
    : ''
}
${
  t.answer
    ? html`${answerHtml(t.answer.text, t.answer.citations)}
${t.answer.documents.length ? html`<h3>Documents used</h3><ol class="docs">${t.answer.documents.map((d) => html`<li value="${d.n}"><a href="${d.work.href}">${d.work.title}</a> ${flags(d.work)}${byline(d.work)}</li>`)}</ol>` : ''}`
    : html`<p class="problem">This question has no answer (the turn failed; nothing was charged). Edit it to try again.</p>`
}
</section>`,
)}
${
  o.owner
    ? html`<section aria-labelledby="h-follow"><h2 id="h-follow">Ask a follow-up question</h2>${o.owner.followUp}</section>
<section aria-labelledby="h-share"><h2 id="h-share">Share</h2>
<form method="post" action="${o.owner.shareAction}"><input type="hidden" name="csrf" value="${o.owner.csrf}"><input type="hidden" name="shared" value="${o.owner.shared ? '0' : '1'}">
<p>${o.owner.shared ? 'Anyone with the link can read this conversation.' : 'Only you can see this conversation.'}</p>
<button type="submit" class="secondary" role="switch" aria-checked="${o.owner.shared ? 'true' : 'false'}">${o.owner.shared ? 'Stop sharing' : 'Share with a link'}</button></form>
${o.owner.shared ? html`<p><label for="share-link">Link</label><input id="share-link" class="key" type="text" readonly value="${o.owner.shareHref}"></p>` : ''}
<form method="post" action="${o.owner.deleteAction}"><input type="hidden" name="csrf" value="${o.owner.csrf}"><button class="danger" type="submit">Delete this conversation</button></form>
</section>`
    : ''
}`;
}

export interface JobView {
  id: string;
  href: string;
  format: string;
  bytes: number;
  status: string;
  pagesDone: number;
  pagesTotal: number | null;
  error: string | null;
  charged: number | null;
  created: string;
}

export function recognizeHomeBody(o: { csrf: string; action: string; maxBytes: number; jobs: JobView[]; problem: Html | null }): Html {
  return html`${o.problem ?? ''}
<p>Upload a PDF, EPUB or DJVU file: Lectern converts it to Markdown and reports how well that went. Billed per page read when the conversion completes (blank pages are free); uploading the same file again is free.</p>
<form method="post" action="${o.action}" enctype="multipart/form-data">
<input type="hidden" name="csrf" value="${o.csrf}">
<label for="file">Document <small>(PDF, EPUB or DJVU, up to ${Math.floor(o.maxBytes / 1048576)} MiB)</small></label>
<input id="file" name="file" type="file" required accept=".pdf,.epub,.djvu,.djv,application/pdf,application/epub+zip,image/vnd.djvu">
<button type="submit">Upload and convert</button>
</form>
<section aria-labelledby="h-jobs"><h2 id="h-jobs">Your conversions</h2>
${
  o.jobs.length
    ? html`<div class="scroll" role="region" aria-label="Your conversions (scrolls sideways)" tabindex="0"><table><thead><tr><th scope="col">Started (UTC)</th><th scope="col">File</th><th scope="col">Status</th></tr></thead><tbody>${o.jobs.map((j) => html`<tr><td><a href="${j.href}">${j.created}</a></td><td>${j.format.toUpperCase()}, ${Math.max(1, Math.round(j.bytes / 1024))} KiB</td><td>${j.status}</td></tr>`)}</tbody></table></div>`
    : html`<p>No conversions yet.</p>`
}
</section>`;
}

export function jobBody(o: {
  job: JobView;
  report: { label: string; value: string }[] | null;
  warnings: string[];
  markdown: string | null;
  downloadHref: string | null;
  cancel: { action: string; csrf: string } | null;
}): Html {
  const j = o.job;
  const running = j.status === 'pending' || j.status === 'processing';
  return html`<dl class="facts">
<dt>File</dt><dd>${j.format.toUpperCase()}, ${j.bytes.toLocaleString('en')} bytes</dd>
<dt>Status</dt><dd><span role="status">${j.status}${j.pagesTotal !== null ? `, ${j.pagesDone} of ${j.pagesTotal} pages` : ''}</span></dd>
${j.charged !== null ? html`<dt>Charged</dt><dd>${j.charged} credits</dd>` : ''}
</dl>
${running ? html`<p><progress max="${j.pagesTotal ?? 1}" value="${j.pagesTotal ? j.pagesDone : 0}" aria-label="Pages converted">${j.pagesDone}</progress></p><p><small>This page reloads every few seconds until the conversion is done.</small></p>` : ''}
${running && o.cancel ? html`<form method="post" action="${o.cancel.action}"><input type="hidden" name="csrf" value="${o.cancel.csrf}"><button class="danger" type="submit">Cancel</button></form>` : ''}
${j.error ? html`<p class="problem" role="alert">${j.error}</p>` : ''}
${
  o.report
    ? html`<section aria-labelledby="h-report"><h2 id="h-report">Quality report</h2><dl class="facts">${o.report.map((r) => html`<dt>${r.label}</dt><dd>${r.value}</dd>`)}</dl>
${o.warnings.length ? html`<h3>Warnings</h3><ul>${o.warnings.map((w) => html`<li>${w}</li>`)}</ul>` : ''}</section>`
    : ''
}
${
  o.markdown !== null
    ? html`<section aria-labelledby="h-md"><h2 id="h-md">Markdown</h2>${o.downloadHref ? html`<p><a href="${o.downloadHref}" download>Download the Markdown</a></p>` : ''}<pre class="markdown" tabindex="0" aria-label="Converted Markdown">${o.markdown}</pre></section>`
    : ''
}`;
}
