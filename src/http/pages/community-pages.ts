// The community parts of the web pages (issue 11 over docs/community.md; ADR 0077): a document's
// activity counters and comment stats, its comment thread with votes and the comment/reply forms, and
// the Trending page. Templates only: the route (routes/web/community.ts) gathers the values from the
// community service and passes plain views; nothing here decides or counts.
import { html, type Html } from './html.js';
import { byline, flags, type WorkView } from './web-pages.js';

/** Contribution kinds in the interface's order of meaning, with the words the pages show. */
export const CONTRIBUTION_LABELS: readonly (readonly [string, string])[] = [
  ['correction', 'Correction'],
  ['contradicts', 'Contradicts'],
  ['supports', 'Supports'],
  ['limitation', 'Limitation'],
  ['related_work', 'Related work'],
  ['review', 'Review'],
  ['question', 'Question'],
];
const label = (kind: string | null): string => CONTRIBUTION_LABELS.find(([k]) => k === kind)?.[1] ?? '';

/** A document's counters (7 and 30 days) and comment stats. */
export interface ActivityView {
  rows: { label: string; d7: number; d30: number }[];
  comments: { total: number; d7: number; d30: number; votes: number; kinds: { label: string; comments: number }[] };
  /** "2026-11-25 08:40 UTC", or null when nothing was recorded. */
  asOf: string | null;
}

export interface CommentView {
  id: number;
  depth: number;
  contribution: string | null;
  content: string;
  /** The model that wrote it (AI-labelled), or null for a person's comment. */
  model: string | null;
  evidence: { uri: string; href: string | null; quote: string | null }[];
  votes: number;
  /** The viewer's vote: 1, -1 or 0. */
  userVote: number;
  posted: string;
  mine: boolean;
}

/** What the viewer may do in the thread: null when signed out (read only). */
export interface ThreadActions {
  csrf: string;
  commentAction: string;
  voteAction: (commentId: number) => string;
  /** A fresh idempotency key per rendered form (a double submit stores one comment). */
  formKey: string;
  replyTo: number | null;
}

export function activitySection(a: ActivityView): Html {
  return html`<section aria-labelledby="h-activity" id="activity"><h2 id="h-activity">Activity</h2>
<table class="counters"><caption>Events over the last 7 and 30 days${a.asOf ? html` <small>(latest ${a.asOf})</small>` : html` <small>(nothing recorded yet)</small>`}</caption>
<thead><tr><th scope="col">Counter</th><th scope="col">7 days</th><th scope="col">30 days</th></tr></thead>
<tbody>${a.rows.map((r) => html`<tr><th scope="row">${r.label}</th><td>${r.d7}</td><td>${r.d30}</td></tr>`)}
<tr><th scope="row">Comments posted</th><td id="comments-7d">${a.comments.d7}</td><td id="comments-30d">${a.comments.d30}</td></tr></tbody></table>
<p id="comment-stats">${a.comments.total} visible comment${a.comments.total === 1 ? '' : 's'}, score ${a.comments.votes}${a.comments.kinds.length ? html`; ${a.comments.kinds.map((k, i) => html`${i ? ', ' : ''}${k.label} ${k.comments}`)}` : ''}.</p>
</section>`;
}

function contributionSelect(id: string, current: string | null): Html {
  return html`<label for="${id}">Kind of contribution <small>(optional)</small></label>
<select id="${id}" name="contribution"><option value="">None</option>${CONTRIBUTION_LABELS.map(([k, l]) => html`<option value="${k}"${k === current ? html` selected` : ''}>${l}</option>`)}</select>`;
}

/** The comment form (a new comment, or a reply when `replyTo` is set). */
export function commentForm(a: ThreadActions, o: { id: string; legend: string; replyTo: number | null; values?: { content: string; contribution: string | null; uri: string; quote: string } }): Html {
  const v = o.values ?? { content: '', contribution: null, uri: '', quote: '' };
  return html`<form method="post" action="${a.commentAction}" class="comment-form" id="${o.id}">
<input type="hidden" name="csrf" value="${a.csrf}"><input type="hidden" name="comment_key" value="${a.formKey}">
${o.replyTo !== null ? html`<input type="hidden" name="reply_to" value="${o.replyTo}">` : ''}
<fieldset><legend>${o.legend}</legend>
<label for="${o.id}-content">Comment</label><textarea id="${o.id}-content" name="content" rows="5" maxlength="20000" required>${v.content}</textarea>
${contributionSelect(`${o.id}-contribution`, v.contribution)}
<label for="${o.id}-uri">Evidence <small>(optional: a DOI, arXiv id, PubMed id or https link)</small></label><input id="${o.id}-uri" name="evidence_uri" type="text" value="${v.uri}" maxlength="2000">
<label for="${o.id}-quote">Quote from the evidence <small>(optional)</small></label><textarea id="${o.id}-quote" name="evidence_quote" rows="2" maxlength="2000">${v.quote}</textarea>
<p><small>Comments from new authors wait for review by a moderator before anyone else sees them.</small></p>
<button type="submit">${o.replyTo !== null ? 'Post reply' : 'Post comment'}</button></fieldset></form>`;
}

function voteForms(c: CommentView, a: ThreadActions): Html {
  const button = (vote: number, text: string, pressed: boolean) =>
    html`<form method="post" action="${a.voteAction(c.id)}" class="vote"><input type="hidden" name="csrf" value="${a.csrf}"><input type="hidden" name="vote" value="${vote}"><button type="submit"${pressed ? html` aria-pressed="true"` : ''} aria-describedby="c-${c.id}-score">${text}</button></form>`;
  // one's own comment cannot be endorsed or disputed (a vote from before that rule can be withdrawn)
  if (c.mine) return c.userVote !== 0 ? html`<div class="votes" role="group" aria-label="Vote on comment ${c.id}">${button(0, 'Withdraw my vote', false)}</div>` : html``;
  return html`<div class="votes" role="group" aria-label="Vote on comment ${c.id}">${button(1, 'Endorse', c.userVote === 1)}${button(-1, 'Dispute', c.userVote === -1)}${c.userVote !== 0 ? button(0, 'Withdraw my vote', false) : ''}</div>`;
}

/** The thread: visible comments in thread order, replies nested by depth. */
export function commentsSection(o: { comments: CommentView[]; actions: ThreadActions | null; signInHref: string | null; notice: Html | null; replyHref: (commentId: number) => string; form: Html | null }): Html {
  const a = o.actions;
  return html`<section aria-labelledby="h-comments" id="comments"><h2 id="h-comments">Comments <small>(${o.comments.length})</small></h2>
${o.notice ?? ''}
${
  o.comments.length
    ? html`<ol class="thread" aria-label="Comment thread">${o.comments.map(
        (c) => html`<li id="comment-${c.id}" class="comment depth-${Math.min(c.depth, 8)}" data-depth="${c.depth}"><article aria-labelledby="c-${c.id}-h">
<p class="comment-head" id="c-${c.id}-h">${c.contribution ? html`<span class="kind">${label(c.contribution)}</span> ` : ''}${c.model ? html`<span class="ai">AI-generated · ${c.model}</span> ` : html`<span class="human">Person</span> `}${c.depth ? html`<small>reply</small> ` : ''}<small>${c.posted}</small>${c.mine ? html` <small>(yours)</small>` : ''}</p>
<p class="comment-body">${c.content}</p>
${c.evidence.length ? html`<ul class="evidence" aria-label="Evidence">${c.evidence.map((e) => html`<li>${e.href ? html`<a href="${e.href}" rel="noopener nofollow">${e.uri}</a>` : e.uri}${e.quote ? html`<blockquote>${e.quote}</blockquote>` : ''}</li>`)}</ul>` : ''}
<p class="score" id="c-${c.id}-score">Score ${c.votes}${c.userVote === 1 ? ' · you endorsed it' : c.userVote === -1 ? ' · you disputed it' : ''}</p>
${a ? html`${voteForms(c, a)}${a.replyTo === c.id ? commentForm(a, { id: `reply-${c.id}`, legend: `Reply to comment ${c.id}`, replyTo: c.id }) : html`<p><a href="${o.replyHref(c.id)}">Reply</a></p>`}` : ''}
</article></li>`,
      )}</ol>`
    : html`<p>No comments yet.</p>`
}
${a ? o.form ?? commentForm(a, { id: 'new-comment', legend: 'Add a comment', replyTo: null }) : o.signInHref ? html`<p><a href="${o.signInHref}">Sign in</a> to comment and vote.</p>` : ''}
</section>`;
}

export interface TrendingItemView {
  work: WorkView;
  score: number;
  views: number;
  agentReads: number;
  aiCitations: number;
  positiveRatings: number;
  comments: number;
}

export function trendingBody(o: { period: 'week' | 'month'; scholarly: boolean; items: TrendingItemView[]; asOf: string | null; tabs: { href: string; label: string; current: boolean }[]; filterHref: string }): Html {
  return html`<nav aria-label="Trending period" class="tabs"><ul>${o.tabs.map((t) => html`<li><a href="${t.href}"${t.current ? html` aria-current="page"` : ''}>${t.label}</a></li>`)}</ul></nav>
<form method="get" action="/trending" class="trending-filter"><input type="hidden" name="period" value="${o.period}">
<input type="checkbox" id="scholarly" name="scholarly" value="1"${o.scholarly ? html` checked` : ''}><label for="scholarly">Scholarly works only (articles, preprints, books, chapters, theses, reports)</label>
<button type="submit">Apply</button></form>
<p role="status">${o.asOf ? `Score over the last ${o.period === 'week' ? '7' : '30'} days: views + 2 × agent reads + 3 × AI citations + 3 × positive ratings + 3 × comments. As of ${o.asOf}.` : 'Nothing has been read or discussed yet.'}</p>
${
  o.items.length
    ? html`<ol class="results trending" id="trending-list" aria-label="Trending works this ${o.period}">${o.items.map(
        (t) => html`<li><h2 class="title"><a href="${t.work.href}">${t.work.title || '(untitled)'}</a></h2>${flags(t.work)}${byline(t.work)}
<p class="counts">Score <strong>${t.score}</strong> · ${t.views} views · ${t.agentReads} agent reads · ${t.aiCitations} AI citations · ${t.positiveRatings} positive ratings · ${t.comments} comments</p></li>`,
      )}</ol>`
    : html`<p>No works trend this ${o.period}${o.scholarly ? ' among scholarly works' : ''}.</p>`
}`;
}

/** Extra styles of the community parts (appended to the application stylesheet). */
export const COMMUNITY_STYLESHEET = `
.counters{border-collapse:collapse;margin:.5rem 0}.counters th,.counters td{padding:.2rem .6rem;border-bottom:1px solid #ddd;text-align:left}.counters td{text-align:right}
.thread{list-style:none;padding:0}.comment{border-left:3px solid #ccd;padding:.3rem .8rem;margin:.6rem 0}
${[1, 2, 3, 4, 5, 6, 7, 8].map((d) => `.depth-${d}{margin-left:${Math.min(d, 4) * 1.5}rem}`).join('')}
.kind{font-weight:600}.ai{background:#eef;border-radius:3px;padding:0 .3rem}.human{color:#555}
.votes form.vote{display:inline;margin-right:.3rem}.votes button[aria-pressed=true]{font-weight:700}
.evidence blockquote{margin:.2rem 0 .2rem 1rem;font-style:italic}.comment-form fieldset{display:grid;gap:.3rem;max-width:40rem}
.tabs ul{list-style:none;display:flex;gap:1rem;padding:0}.tabs a[aria-current=page]{font-weight:700}
`;
