// The web application's pages (issue 11): search at `/`, the document page and its references and
// citing works. Server-rendered HTML over the same services as the API, in their own Fastify context
// (cookies, form bodies, an error handler that answers with a page). The signed-in person comes from
// the sign-in pages' session cookie (ADR 0045) and acts as a `session` principal; forms carry the
// same CSRF tokens. What a signed-out visitor may do: docs/web.md, ADR 0075.
import type { DisplayDocument } from '../../../domain/display-document.js';
import { createHash } from 'node:crypto';
import fastifyCookie from '@fastify/cookie';
import fastifyFormbody from '@fastify/formbody';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { API_KEY_SCOPES } from '../../../accounts/api-keys.js';
import { DOCUMENT_TYPES, issuedDate, type StoredDocument } from '../../../domain/document.js';
import { AppError } from '../../../domain/errors.js';
import type { Principal } from '../../../domain/principal.js';
import { nowSeconds } from '../../../ports/clock.js';
import { defaultSearchRequest, type SearchHit, type SearchRequest } from '../../../search/search-types.js';
import type { HttpDeps } from '../../deps.js';
import type { RateScope } from '../../../config/index.js';
import { toAppError } from '../../errors.js';
import { html, STYLESHEET, type Html } from '../../pages/html.js';
import {
  APP_STYLESHEET,
  appLayout,
  documentBody,
  errorMessage,
  messagePage,
  navEntries,
  resultList,
  pager,
  searchBody,
  type IdentifierLink,
  type SearchForm,
  type SnippetView,
  type WorkView,
} from '../../pages/web-pages.js';
import { authPrefix } from '../auth/index.js';
import { htmlPageHeaders, Web, type Person } from '../auth/web.js';
import { registerAccountPages } from './account.js';
import { registerAskPages } from './ask.js';
import { documentCommunity, registerCommunityPages } from './community.js';
import { COMMUNITY_STYLESHEET } from '../../pages/community-pages.js';
import { registerRecognizePages } from './recognize.js';

/** What every page area's routes share (one per area: search and documents here, account.ts, ...). */
export interface PageContext {
  web: Web;
  deps: HttpDeps;
  /** Sends an application page (layout, navigation, protections). */
  send(request: FastifyRequest, reply: FastifyReply, title: string, body: Html, o: { person: Person | null; status?: number; wide?: boolean }): FastifyReply;
  /** The signed-in person, or null after answering with a redirect to sign-in. */
  requirePerson(request: FastifyRequest, reply: FastifyReply): Promise<Person | null>;
  accountHref: string;
  /** The rate limit the API applies to the same operation, per account (429 with Retry-After when spent). */
  limit(scope: RateScope, person: Person): Promise<void>;
}

/** Results per search page; pages run to offset 490 (the API's offset + limit <= 500). */
export const RESULTS_PER_PAGE = 10;
const MAX_PAGE = 50;
/** Characters of a document's text shown before "Show the whole text". */
export const TEXT_PREVIEW_CHARS = 6000;
const STYLE_PATH = '/assets/lectern.css';
/** The account page (balance, usage, keys); connected agents stay on the sign-in pages' account page. */
export const ACCOUNT_PATH = '/account';

const hide = { hide: true };
const pageConfig = { auth: 'none' as const, rateScope: null };
const str = (v: unknown): string => (typeof v === 'string' ? v : '');

/** A browser session as the services see it: the account itself, like an API key (never an agent). */
export function sessionPrincipal(person: Person): Principal {
  return { accountId: person.account.id, credential: 'session', credentialId: person.sessionId, scopes: API_KEY_SCOPES, clientId: null, isAgent: false, audience: null };
}

/** The document page's address. */
export const documentHref = (id: string): string => `/documents/${encodeURIComponent(id)}`;

/** What the pages show about a stored document. */
export function workView(doc: StoredDocument | DisplayDocument): WorkView {
  return {
    id: doc.id,
    href: documentHref(doc.id),
    title: doc.title,
    authors: doc.authors.map((a) => a.name),
    venue: doc.venue,
    year: doc.issuedAt === null ? null : new Date(doc.issuedAt * 1000).getUTCFullYear(),
    type: doc.type,
    retracted: doc.isRetracted || doc.notices.some((n) => n.kind === 'retraction'),
    erratum: doc.notices.some((n) => n.kind === 'erratum'),
    concern: doc.notices.some((n) => n.kind === 'expression_of_concern'),
  };
}

const snippetViews = (h: SearchHit): SnippetView[] => h.snippets.map((s) => ({ field: s.field, text: s.text, highlights: s.highlights.map((x): [number, number] => [x.start, x.end]) }));

/** Links for a document's identifiers (DOI, arXiv, PubMed, PMC, ISBN, web address). */
export function identifierLinks(uris: readonly string[]): IdentifierLink[] {
  const out: IdentifierLink[] = [];
  for (const uri of uris) {
    const m = /^([a-z]+):\/\/(.+)$/.exec(uri);
    if (!m) continue;
    const [, scheme, rawId] = m as unknown as [string, string, string];
    let id = rawId;
    try {
      id = decodeURIComponent(rawId);
    } catch {
      /* keep the encoded form */
    }
    if (scheme === 'doi') out.push({ label: 'DOI', value: id, href: `https://doi.org/${rawId}` });
    else if (scheme === 'arxiv') out.push({ label: 'arXiv', value: id, href: `https://arxiv.org/abs/${rawId}` });
    else if (scheme === 'pubmed') out.push({ label: 'PubMed', value: id, href: `https://pubmed.ncbi.nlm.nih.gov/${rawId}/` });
    else if (scheme === 'pmc') out.push({ label: 'PMC', value: id, href: `https://www.ncbi.nlm.nih.gov/pmc/articles/${rawId}/` });
    else if (scheme === 'isbn') out.push({ label: 'ISBN', value: id, href: `https://openlibrary.org/isbn/${rawId}` });
    else if (scheme === 'https') out.push({ label: 'Web', value: uri, href: uri });
  }
  return out;
}

/** The search form's values from the query string (unknown values fall back to "any"). */
export function readSearchForm(q: Record<string, unknown>): SearchForm {
  const type = str(q.type);
  return {
    q: str(q.q).slice(0, 2000),
    type: (DOCUMENT_TYPES as readonly string[]).includes(type) ? type : '',
    lang: str(q.lang).trim().slice(0, 8),
    from: str(q.from).trim().slice(0, 4),
    to: str(q.to).trim().slice(0, 4),
    publisher: str(q.publisher).trim().slice(0, 200),
    index: str(q.index) === 'social' ? 'social' : 'documents',
  };
}

/** The URL of a search (the form's values and a page); empty values are left out. */
export function searchHref(f: SearchForm, page = 1): string {
  const p = new URLSearchParams();
  if (f.q) p.set('q', f.q);
  if (f.index !== 'documents') p.set('index', f.index);
  for (const k of ['type', 'lang', 'from', 'to', 'publisher'] as const) if (f[k]) p.set(k, f[k]);
  if (page > 1) p.set('page', String(page));
  const s = p.toString();
  return s ? `/?${s}` : '/';
}

/** The service request of a search form; throws a 422 AppError that says what to fix. */
export function toServiceSearch(f: SearchForm, page: number): SearchRequest {
  const year = (v: string, name: string): number | null => {
    if (!v) return null;
    if (!/^\d{4}$/.test(v)) throw new AppError('validation_failed', `${name} must be a four-digit year, like 2019.`);
    return Number(v);
  };
  const from = year(f.from, 'From year');
  const to = year(f.to, 'To year');
  if (from !== null && to !== null && from > to) throw new AppError('validation_failed', 'From year is after To year; swap them.');
  if (f.lang && !/^[A-Za-z]{2,3}$/.test(f.lang)) throw new AppError('validation_failed', 'Language must be a two- or three-letter ISO code, like en or de.');
  return defaultSearchRequest({
    query: f.q,
    indexNames: [f.index],
    limit: RESULTS_PER_PAGE,
    offset: (page - 1) * RESULTS_PER_PAGE,
    filters: {
      languages: f.lang ? [f.lang.toLowerCase()] : null,
      types: f.type ? [f.type] : null,
      publisher: f.publisher || null,
      issuedAfter: from === null ? null : Date.UTC(from, 0, 1) / 1000,
      issuedBefore: to === null ? null : Date.UTC(to + 1, 0, 1) / 1000 - 1,
    },
  });
}

const pageNumber = (v: unknown): number => {
  const n = Number(str(v) || '1');
  return Number.isInteger(n) && n >= 1 ? Math.min(n, MAX_PAGE) : 1;
};

/** An AppError as the pages' error box wants it. */
const shown = (e: AppError) => ({ status: e.status, code: e.code, message: e.message, retryAfter: e.headers['Retry-After'] ?? null });

export async function registerWebPages(app: FastifyInstance, deps: HttpDeps): Promise<void> {
  const auth = deps.auth;
  if (!auth) return;
  const web = new Web(auth, authPrefix(deps.config.authUrl, deps.config.baseUrl));
  const accountHref = ACCOUNT_PATH;

  await app.register(async (child) => {
    await child.register(fastifyCookie);
    await child.register(fastifyFormbody, { bodyLimit: 64 * 1024 });

    /** Sends an application page with the protections of every page (ADR 0045). */
    const send = (request: FastifyRequest, reply: FastifyReply, title: string, body: Html, o: { person: Person | null; status?: number; wide?: boolean }) => {
      const csrf = o.person ? web.csrf(request, reply, o.person) : null;
      htmlPageHeaders(reply, o.status ?? 200, "default-src 'none'; style-src 'self'; img-src 'self'; script-src 'self'; connect-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'");
      const path = request.url.split('?')[0] ?? '/';
      return reply.send(
        appLayout(title, body, {
          nav: navEntries({ signedIn: !!o.person, accountHref, signInHref: web.signInLocation(request.url) }),
          currentPath: path,
          styleHref: STYLE_PATH,
          signedInAs: o.person && csrf && !o.person.auto ? { email: o.person.account.email, csrf, signOutAction: web.path('signOut') } : null,
          wide: o.wide ?? true,
        }),
      );
    };

    child.setErrorHandler(async (err, request, reply) => {
      const e = toAppError(err, request);
      if (e.status >= 500) request.log.error({ err }, 'page failed');
      for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
      const person = await web.person(request).catch(() => null);
      const title = e.status === 404 ? 'Not found' : e.status === 402 ? 'Out of credits' : e.status === 429 ? 'Slow down' : e.status >= 500 ? 'Something went wrong' : 'This request is not valid';
      const message = e.status >= 500 ? { ...shown(e), message: `Quote ${request.id} if you report it.` } : shown(e);
      return send(request, reply, title, errorMessage(message, { accountHref }), { person, status: e.status, wide: false });
    });

    const requirePerson = async (request: FastifyRequest, reply: FastifyReply): Promise<Person | null> => {
      const person = await web.person(request);
      if (!person) {
        await reply.code(303).redirect(web.signInLocation(request.url));
        return null;
      }
      return person;
    };
    const limit = (scope: RateScope, person: Person) => deps.rateLimits.check(scope, `a:${person.account.id}`);
    const ctx: PageContext = { web, deps, send, requirePerson, accountHref, limit };
    registerAccountPages(child, ctx);
    registerAskPages(child, ctx);
    registerCommunityPages(child, ctx);
    await registerRecognizePages(child, ctx);

    child.get(STYLE_PATH, { config: pageConfig, schema: hide }, async (_request, reply) =>
      reply.type('text/css; charset=utf-8').header('Cache-Control', 'public, max-age=3600').send(STYLESHEET + APP_STYLESHEET + COMMUNITY_STYLESHEET),
    );

    // Search. The URL holds the search; a signed-out visitor sees the form and is asked to sign in.
    child.get('/', { config: pageConfig, schema: hide }, async (request, reply) => {
      const q = request.query as Record<string, unknown>;
      const person = await web.person(request);
      const form = readSearchForm(q);
      const page = pageNumber(q.page);
      const searching = form.q !== '' || form.type !== '' || form.publisher !== '' || form.from !== '' || form.to !== '' || form.lang !== '';
      const base = { form, types: DOCUMENT_TYPES, notice: null as Html | null, summary: null as string | null, correctedHref: null as string | null, corrected: null as string | null, results: [] as { work: WorkView; snippets: SnippetView[] }[], start: (page - 1) * RESULTS_PER_PAGE + 1, prevHref: null as string | null, nextHref: null as string | null };
      if (!searching) return send(request, reply, 'Search', searchBody(base), { person });
      if (!person) {
        const signIn = web.signInLocation(searchHref(form, page));
        base.notice = messagePage('Searches are billed to an account, so sign in to search.', [
          { href: signIn, label: 'Sign in' },
          ...(auth.settings.allowSignUp ? [{ href: `${web.path('signUp')}?return_to=${encodeURIComponent(searchHref(form, page))}`, label: 'Create an account' }] : []),
        ]);
        return send(request, reply, 'Search', searchBody(base), { person, status: 200 });
      }
      let status = 200;
      try {
        await limit('search', person);
        const r = await deps.search.search(sessionPrincipal(person), toServiceSearch(form, page), request.id);
        base.results = r.hits.filter((h) => h.doc).map((h) => ({ work: workView(h.doc!), snippets: snippetViews(h) }));
        base.summary = r.totalHits === 0 ? 'No results. Try fewer words, or remove a filter.' : `${r.totalHits.toLocaleString('en')} result${r.totalHits === 1 ? '' : 's'} · page ${page}`;
        if (r.correctedQuery && r.correctedQuery !== form.q) {
          base.corrected = r.correctedQuery;
          base.correctedHref = searchHref({ ...form, q: r.correctedQuery });
        }
        base.prevHref = page > 1 ? searchHref(form, page - 1) : null;
        base.nextHref = r.hasNext && page < MAX_PAGE ? searchHref(form, page + 1) : null;
      } catch (err) {
        const e = toAppError(err, request);
        if (e.status >= 500) throw err;
        for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
        status = e.status;
        base.notice = errorMessage(shown(e), { accountHref });
      }
      return send(request, reply, form.q ? `Search: ${form.q.slice(0, 80)}` : 'Search', searchBody(base), { person, status });
    });

    /** Records a page view: once per visitor and UTC day (the activity store counts views that way). */
    const recordView = async (request: FastifyRequest, reply: FastifyReply, person: Person | null, documentId: string) => {
      if (!deps.activity) return;
      const visitor = createHash('sha256').update(web.binding(request, reply, person)).digest('base64url').slice(0, 22);
      try {
        await deps.activity.record([{ documentId, kind: 'view', accountId: person?.account.id ?? null, visitor, at: nowSeconds(auth.clock) }]);
      } catch (err) {
        request.log.warn({ err }, 'recording a page view failed');
      }
    };

    // The document page: metadata and abstract for everyone; the text, in-document search, references
    // and citing works for signed-in people (billed like the API).
    child.get<{ Params: { id: string } }>('/documents/:id', { config: pageConfig, schema: hide }, async (request, reply) => {
      const q = request.query as Record<string, unknown>;
      const person = await web.person(request);
      const doc = await deps.documents.get(request.params.id);
      const work = workView(doc);
      const href = documentHref(doc.id);
      const full = str(q.full) === '1';
      const textFilter = str(q.text_filter).slice(0, 1000);
      const highlight = str(q.highlight).slice(0, 4000) || null;
      await recordView(request, reply, person, doc.id);
      const view = {
        work,
        issued: issuedDate(doc.issuedAt),
        publisher: doc.publisher,
        language: doc.language,
        license: doc.license,
        identifiers: identifierLinks(doc.uris),
        abstract: doc.abstract,
        text: null as string | null,
        truncated: false,
        fullHref: null as string | null,
        passages: null as SnippetView[] | null,
        textFilter,
        highlight,
        originals: [] as { format: string; href: string; bytes: number }[],
        originalsNote: null as string | null,
        references: null,
        citing: null,
        notice: null as Html | null,
        signInHref: person ? null : web.signInLocation(request.url),
        readOffer: null as { action: string; csrf: string; price: number; full: boolean; highlight: string | null } | null,
        paidNote: null as string | null,
        noText: false,
        passagePrice: null as number | null,
      };
      let status = 200;
      if (person) {
        const principal = sessionPrincipal(person);
        try {
          // Opening the page is free (ADR 0216): the text is shown when this account bought it today,
          // else a button shows its price; nothing is charged by a GET.
          const offer = await deps.documents.browserReadOffer(principal, doc);
          view.passagePrice = offer.hasText ? deps.config.prices.documentPassages : null;
          if (!offer.hasText) view.noText = true;
          else if (offer.paidAt === null) view.readOffer = { action: `${href}/read`, csrf: web.csrf(request, reply, person), price: offer.price, full, highlight };
          else {
            // A highlighted passage needs the whole text to be found in.
            const shownText = deps.documents.browserText(doc, full || highlight ? {} : { maxChars: TEXT_PREVIEW_CHARS });
            // The content starts with the title and abstract (shown above): show the rest.
            const lead = `# ${doc.title}\n\n${doc.abstract ? `${doc.abstract}\n\n` : ''}`;
            view.text = shownText.content.startsWith(lead) ? shownText.content.slice(lead.length) : shownText.content;
            view.truncated = shownText.truncated;
            view.fullHref = shownText.truncated ? `${href}?full=1#text` : null;
            view.paidNote = `Text paid today at ${new Date(offer.paidAt * 1000).toISOString().slice(11, 16)} UTC (${offer.price} credits); reading it again today is free.`;
          }
          if (textFilter && doc.uris[0]) {
            await limit('default', person);
            const r = await deps.passages.passages(principal, doc.uris[0], textFilter, request.id);
            view.passages = r.hits.flatMap(snippetViews);
          } else if (textFilter) {
            view.notice = errorMessage({ status: 422, code: 'validation_failed', message: 'This document has no canonical URI, so it cannot be searched in.' }, { accountHref });
          }
        } catch (err) {
          const e = toAppError(err, request);
          if (e.status >= 500 || e.status === 404) throw err;
          for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
          status = e.status;
          view.notice = errorMessage(shown(e), { accountHref });
        }
        if (doc.originals.length) {
          if (person.account.eligibleForOriginals) view.originals = doc.originals.map((o) => ({ format: o.format, href: `${href}/original.${o.format}`, bytes: o.bytes }));
          else view.originalsNote = 'Original files exist for this work; they are available to eligible accounts only (ask the operator).';
        }
      }
      const refsCount = doc.references.length;
      const body = documentBody(view);
      const links = html`<section aria-labelledby="h-snowball"><h2 id="h-snowball">Citations</h2><ul><li><a href="${href}/references">Works it cites</a> <small>(${refsCount})</small></li><li><a href="${href}/cited-by">Works citing it</a></li></ul></section>`;
      const community = await documentCommunity(ctx, request, reply, person, doc.id);
      return send(request, reply, doc.title || '(untitled)', html`${body}${links}${community}`, { person, status });
    });


    // Buying a document's text for today (ADR 0216): the button on the document page posts here with
    // the price it showed; charged once per account, document and UTC day, then back to the page.
    child.post<{ Params: { id: string } }>('/documents/:id/read', { config: pageConfig, schema: hide }, async (request, reply) => {
      const form = (request.body ?? {}) as Record<string, unknown>;
      const person = await web.person(request);
      if (!person) return reply.code(303).redirect(web.signInLocation(documentHref(request.params.id)));
      web.checkCsrf(request, reply, person, form.csrf);
      const doc = await deps.documents.get(request.params.id);
      const price = Number(str(form.price));
      if (!Number.isSafeInteger(price) || price < 0) throw new AppError('validation_failed', 'The form lost the price it showed; open the document page again.');
      await limit('default', person);
      await deps.documents.buyBrowserRead(sessionPrincipal(person), doc, price);
      const back = new URLSearchParams();
      if (str(form.full) === '1') back.set('full', '1');
      const highlight = str(form.highlight).slice(0, 4000);
      if (highlight) back.set('highlight', highlight);
      const qs = back.toString();
      return reply.code(303).redirect(`${documentHref(doc.id)}${qs ? `?${qs}` : ''}${highlight ? '#cited' : '#text'}`);
    });

    // References: the works a document cites, in the order of its reference list (billed per page).
    child.get<{ Params: { id: string } }>('/documents/:id/references', { config: pageConfig, schema: hide }, async (request, reply) => {
      const person = await requirePerson(request, reply);
      if (!person) return reply;
      const doc = await deps.documents.get(request.params.id);
      if (!deps.references) throw new AppError('not_found', 'References are not served here.');
      const page = pageNumber((request.query as Record<string, unknown>).page);
      await limit('default', person);
      const r = await deps.references.referencesOf(sessionPrincipal(person), { documentId: doc.id }, { limit: 20, offset: (page - 1) * 20 }, request.id);
      const href = documentHref(doc.id);
      const items = r.entries.flatMap((e) => (e.doc ? [{ work: workView(e.doc), snippets: [] as SnippetView[] }] : []));
      const missing = r.entries.filter((e) => !e.doc).map((e) => e.uri);
      const body = html`<p><a href="${href}">← ${doc.title}</a></p>
<p role="status">${r.total} reference${r.total === 1 ? '' : 's'}${r.total ? `, ${r.offset + 1} to ${r.offset + r.entries.length} shown` : ''}.</p>
${resultList(items, { label: 'Cited works in Lectern' })}
${missing.length ? html`<h2>Not in Lectern</h2><ul>${missing.map((u) => html`<li>${u}</li>`)}</ul>` : ''}
${pager({ prevHref: page > 1 ? `${href}/references?page=${page - 1}` : null, nextHref: r.offset + r.entries.length < r.total ? `${href}/references?page=${page + 1}` : null, label: 'Reference pages' })}`;
      return send(request, reply, `Works cited by: ${doc.title}`, body, { person });
    });

    // Citing works: a search restricted to works whose references name this one (billed as a search).
    child.get<{ Params: { id: string } }>('/documents/:id/cited-by', { config: pageConfig, schema: hide }, async (request, reply) => {
      const person = await requirePerson(request, reply);
      if (!person) return reply;
      const doc = await deps.documents.get(request.params.id);
      const page = pageNumber((request.query as Record<string, unknown>).page);
      const href = documentHref(doc.id);
      const ids = doc.uris.filter((u) => /^(doi|arxiv|pubmed|pmc|isbn|https):\/\//.test(u)).slice(0, 16);
      if (ids.length === 0) return send(request, reply, `Works citing: ${doc.title}`, html`<p><a href="${href}">← ${doc.title}</a></p><p>This record has no identifier other works could cite it by.</p>`, { person });
      const req = toServiceSearch(readSearchForm({}), page);
      req.referencedBy = ids;
      await limit('search', person);
      const r = await deps.search.search(sessionPrincipal(person), req, request.id);
      const items = r.hits.filter((h) => h.doc).map((h) => ({ work: workView(h.doc!), snippets: snippetViews(h) }));
      const body = html`<p><a href="${href}">← ${doc.title}</a></p>
<p role="status">${r.totalHits === 0 ? 'No work in Lectern cites this one.' : `${r.totalHits} citing work${r.totalHits === 1 ? '' : 's'} in Lectern.`}</p>
${resultList(items, { label: 'Citing works', start: (page - 1) * RESULTS_PER_PAGE + 1 })}
${pager({ prevHref: page > 1 ? `${href}/cited-by?page=${page - 1}` : null, nextHref: r.hasNext && page < MAX_PAGE ? `${href}/cited-by?page=${page + 1}` : null, label: 'Citing work pages' })}`;
      return send(request, reply, `Works citing: ${doc.title}`, body, { person });
    });

    // Originals for eligible accounts (the same rules as GET /v2/documents/{id}.{format}).
    child.get<{ Params: { id: string; format: string } }>('/documents/:id/original.:format', { config: pageConfig, schema: hide }, async (request, reply) => {
      const person = await requirePerson(request, reply);
      if (!person) return reply;
      await limit('default', person);
      const r = await deps.downloads.resolveById(sessionPrincipal(person), request.params.id, request.params.format);
      const filename = `${request.params.id.replace(/[^A-Za-z0-9._-]/g, '_')}.${request.params.format}`;
      return reply
        .type(r.original.mediaType)
        .header('Content-Disposition', `attachment; filename="${filename}"`)
        .header('Cache-Control', 'private, no-store')
        .send(deps.downloads.open(r.original));
    });
  });
}
