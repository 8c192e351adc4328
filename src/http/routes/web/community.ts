// The community pages (issue 11 over docs/community.md; ADR 0077): the document page's activity
// counters, comment stats and comment thread (built here, placed by index.ts), the forms a signed-in
// person posts (a comment or reply, a vote, a withdrawal) and the Trending page. Everything goes
// through the CommunityService as the API does; votes and comments are not billed. Signed-out visitors
// read the counters, the thread and the trending lists but get no forms.
import { randomUUID } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { CommunityService, TrendingPeriod } from '../../../community/index.js';
import { AppError } from '../../../domain/errors.js';
import type { Contribution } from '../../../ports/community-store.js';
import { toAppError } from '../../errors.js';
import { html, type Html } from '../../pages/html.js';
import { activitySection, commentForm, commentsSection, CONTRIBUTION_LABELS, trendingBody, type ActivityView, type CommentView, type ThreadActions } from '../../pages/community-pages.js';
import { errorMessage } from '../../pages/web-pages.js';
import type { Person } from '../auth/web.js';
import { documentHref, identifierLinks, sessionPrincipal, workView, type PageContext } from './index.js';

const hide = { hide: true };
const pageConfig = { auth: 'none' as const, rateScope: null };
/** Comment and vote forms share the community API's rate scope (`feedback`). */
const commentFormConfig = { auth: 'none' as const, rateScope: 'comments' as const };
const voteFormConfig = { auth: 'none' as const, rateScope: 'votes' as const };
const str = (v: unknown): string => (typeof v === 'string' ? v : '');
/** The Trending page's address. */
export const TRENDING_PATH = '/trending';
/** Entries on the Trending page (the API's largest `limit`). */
const TRENDING_ENTRIES = 50;

const when = (at: number): string => `${new Date(at * 1000).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
const commentsHref = (id: string) => `${documentHref(id)}/comments`;
const voteHref = (id: string, commentId: number) => `${documentHref(id)}/comments/${commentId}/vote`;
const kindLabel = (k: string) => CONTRIBUTION_LABELS.find(([c]) => c === k)?.[1] ?? k;
const positiveInt = (v: unknown): number | null => (/^[1-9]\d{0,15}$/.test(str(v)) ? Number(str(v)) : null);

/** The link a canonical evidence URI opens (doi:// -> https://doi.org/..., https as is); null when none. */
function evidenceHref(uri: string): string | null {
  return identifierLinks([uri])[0]?.href ?? null;
}

/** The activity counters of a document as the page shows them. */
export async function activityView(community: CommunityService, documentId: string): Promise<ActivityView> {
  const a = await community.activity(documentId);
  return {
    rows: [
      { label: 'Page views', d7: a.views7d, d30: a.views30d },
      { label: 'Shown in searches', d7: a.shown7d, d30: a.shown30d },
      { label: 'Agent reads', d7: a.agentReads7d, d30: a.agentReads30d },
      { label: 'AI citations', d7: a.aiCitations7d, d30: a.aiCitations30d },
      { label: 'Positive ratings', d7: a.positiveRatings7d, d30: a.positiveRatings30d },
    ],
    comments: { total: a.comments.comments, d7: a.comments.comments7d, d30: a.comments.comments30d, votes: a.comments.votes, kinds: a.comments.contributions.map((c) => ({ label: kindLabel(c.contribution), comments: c.comments })) },
    asOf: a.asOfAt === null ? null : when(a.asOfAt),
  };
}

/**
 * The document page's community sections: activity, then the thread with the forms for a signed-in
 * person. `?reply=N` opens the reply form under comment N; `?comment=N` (after posting) says whether
 * the viewer's own comment N is published or waiting for review.
 */
export async function documentCommunity(ctx: PageContext, request: FastifyRequest, reply: FastifyReply, person: Person | null, documentId: string): Promise<Html> {
  const community = ctx.deps.community;
  if (!community) return html``;
  const q = request.query as Record<string, unknown>;
  const principal = person ? sessionPrincipal(person) : null;
  const [activity, thread] = await Promise.all([activityView(community, documentId), community.listComments(documentId, principal)]);
  const comments: CommentView[] = thread.map((c) => ({
    id: c.id,
    depth: c.depth,
    contribution: c.contribution,
    content: c.content,
    model: c.model,
    evidence: c.evidence.map((e) => ({ uri: e.uri, href: evidenceHref(e.uri), quote: e.quote })),
    votes: c.votes,
    userVote: c.userVote,
    posted: when(c.createdAt),
    mine: person !== null && c.accountId === person.account.id,
  }));
  let notice: Html | null = null;
  const postedId = positiveInt(q.comment);
  if (principal && postedId !== null) {
    const own = await community.ownComment(principal, postedId);
    if (own?.status === 'pending_review') notice = html`<p role="status" class="notice" id="comment-pending">Your comment is <strong>waiting for review</strong>: comments from new authors are published once a moderator approves them, so nobody else sees it yet.</p>`;
    else if (own?.status === 'published') notice = html`<p role="status" class="notice" id="comment-published">Your comment is published.</p>`;
    else if (own?.status === 'removed') notice = html`<p role="status" class="notice">Your comment was removed by a moderator.</p>`;
  }
  const replyTo = positiveInt(q.reply);
  const actions: ThreadActions | null = person
    ? { csrf: ctx.web.csrf(request, reply, person), commentAction: commentsHref(documentId), voteAction: (id) => voteHref(documentId, id), formKey: randomUUID(), replyTo: replyTo !== null && comments.some((c) => c.id === replyTo) ? replyTo : null }
    : null;
  const replyHref = (id: number) => `${documentHref(documentId)}?reply=${id}#comment-${id}`;
  return html`${activitySection(activity)}${commentsSection({ comments, actions, signInHref: person ? null : ctx.web.signInLocation(`${documentHref(documentId)}#comments`), notice, replyHref, form: null })}`;
}

export function registerCommunityPages(app: FastifyInstance, ctx: PageContext): void {
  const { web, deps } = ctx;
  const community = deps.community;
  if (!community) return;
  const body = (request: FastifyRequest) => (request.body ?? {}) as Record<string, unknown>;

  const formPerson = async (request: FastifyRequest, reply: FastifyReply, back: string): Promise<Person | null> => {
    const person = await web.person(request);
    if (!person) {
      await reply.code(303).redirect(web.signInLocation(back));
      return null;
    }
    web.checkCsrf(request, reply, person, body(request).csrf);
    return person;
  };

  // A comment or a reply. Afterwards the document page says whether it is published or waiting.
  app.post<{ Params: { id: string } }>('/documents/:id/comments', { config: commentFormConfig, schema: hide }, async (request, reply) => {
    const id = request.params.id;
    const person = await formPerson(request, reply, `${documentHref(id)}#comments`);
    if (!person) return reply;
    const b = body(request);
    const contribution = str(b.contribution);
    const uri = str(b.evidence_uri).trim();
    const quote = str(b.evidence_quote).trim();
    const replyTo = str(b.reply_to) ? positiveInt(b.reply_to) : null;
    const values = { content: str(b.content), contribution: contribution || null, uri, quote };
    try {
      if (contribution && !CONTRIBUTION_LABELS.some(([k]) => k === contribution)) throw new AppError('validation_failed', 'Pick a kind of contribution from the list, or None.');
      if (str(b.reply_to) && replyTo === null) throw new AppError('validation_failed', 'The comment to reply to is not a comment number.');
      if (quote && !uri) throw new AppError('validation_failed', 'A quote needs the evidence it comes from: add its DOI, arXiv id, PubMed id or link.');
      const key = str(b.comment_key);
      if (!/^[0-9a-f-]{36}$/.test(key)) throw new AppError('validation_failed', 'The form is missing its key; reload the page and post again.');
      const r = await community.submitPersonComment(sessionPrincipal(person), {
        commentId: `web:${key}`,
        documentId: id,
        contribution: (contribution || null) as Contribution | null,
        content: values.content,
        evidence: uri ? [{ uri, quote: quote || null }] : [],
        replyToCommentId: replyTo,
      });
      const anchor = r.status === 'published' ? `comment-${r.commentId}` : 'comments';
      return reply.code(303).redirect(`${documentHref(id)}?comment=${r.commentId}#${anchor}`);
    } catch (err) {
      const e = toAppError(err, request);
      if (e.status >= 500 || e.code === 'not_found') throw err;
      for (const [k, v] of Object.entries(e.headers)) reply.header(k, v);
      const actions: ThreadActions = { csrf: web.csrf(request, reply, person), commentAction: commentsHref(id), voteAction: (c) => voteHref(id, c), formKey: randomUUID(), replyTo };
      const page = html`${errorMessage({ status: e.status, code: e.code, message: e.message, retryAfter: e.headers['Retry-After'] ?? null }, { accountHref: ctx.accountHref })}
${commentForm(actions, { id: 'new-comment', legend: replyTo !== null ? `Reply to comment ${replyTo}` : 'Add a comment', replyTo, values })}
<p><a href="${documentHref(id)}#comments">Back to the document</a></p>`;
      return ctx.send(request, reply, 'Comment not posted', page, { person, status: e.status, wide: false });
    }
  });

  // A vote: 1 endorses, -1 disputes, 0 withdraws (the same state on a repeat).
  app.post<{ Params: { id: string; cid: string } }>('/documents/:id/comments/:cid/vote', { config: voteFormConfig, schema: hide }, async (request, reply) => {
    const id = request.params.id;
    const person = await formPerson(request, reply, `${documentHref(id)}#comments`);
    if (!person) return reply;
    const commentId = positiveInt(request.params.cid);
    const vote = str(body(request).vote);
    if (commentId === null) throw new AppError('not_found', `No comment ${request.params.cid.slice(0, 40)}.`);
    if (!['1', '-1', '0'].includes(vote)) throw new AppError('validation_failed', 'A vote is Endorse, Dispute or Withdraw.');
    // Only a comment shown in this document's thread (the service also refuses hidden ones).
    if (!(await community.listComments(id, sessionPrincipal(person))).some((c) => c.id === commentId)) throw new AppError('not_found', `No comment ${commentId} on this document.`);
    await community.vote(sessionPrincipal(person), commentId, Number(vote));
    return reply.code(303).redirect(`${documentHref(id)}#comment-${commentId}`);
  });

  // Trending: the week or month list, optionally scholarly works only; readable signed out.
  app.get(TRENDING_PATH, { config: pageConfig, schema: hide }, async (request, reply) => {
    const q = request.query as Record<string, unknown>;
    const person = await web.person(request);
    const period: TrendingPeriod = str(q.period) === 'month' ? 'month' : 'week';
    const scholarly = str(q.scholarly) === '1';
    const t = await community.trending(period, TRENDING_ENTRIES, scholarly);
    const href = (p: TrendingPeriod) => `${TRENDING_PATH}?period=${p}${scholarly ? '&scholarly=1' : ''}`;
    const body = trendingBody({
      period,
      scholarly,
      asOf: t.asOfAt === null ? null : when(t.asOfAt),
      tabs: [
        { href: href('week'), label: 'This week', current: period === 'week' },
        { href: href('month'), label: 'This month', current: period === 'month' },
      ],
      filterHref: TRENDING_PATH,
      items: t.documents.map((e) => ({
        work: workView(e.document),
        score: e.score,
        views: period === 'week' ? e.activity.views7d : e.activity.views30d,
        agentReads: period === 'week' ? e.activity.agentReads7d : e.activity.agentReads30d,
        aiCitations: period === 'week' ? e.activity.aiCitations7d : e.activity.aiCitations30d,
        positiveRatings: period === 'week' ? e.activity.positiveRatings7d : e.activity.positiveRatings30d,
        comments: period === 'week' ? e.comments.comments7d : e.comments.comments30d,
      })),
    });
    return ctx.send(request, reply, period === 'week' ? 'Trending this week' : 'Trending this month', body, { person });
  });
}
