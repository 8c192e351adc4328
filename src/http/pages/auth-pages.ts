// The bodies of the auth pages (layout and escaping: html.ts). Every form carries a CSRF token.
import { SCOPE, SCOPE_ALLOWS, SCOPE_DENIES } from '../../auth/index.js';
import { html, type Html } from './html.js';

const problemBox = (problem: string | null | undefined) => (problem ? html`<p class="problem" role="alert">${problem}</p>` : html``);
const csrfField = (csrf: string) => html`<input type="hidden" name="csrf" value="${csrf}">`;

export function signInBody(o: { action: string; csrf: string; returnTo: string; email?: string; problem?: string | null; signUpHref: string | null; forgotHref: string; notice?: string | null }): Html {
  return html`
${o.notice ? html`<p class="ok">${o.notice}</p>` : ''}
${problemBox(o.problem)}
<form method="post" action="${o.action}">
  ${csrfField(o.csrf)}
  <input type="hidden" name="return_to" value="${o.returnTo}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="username" required value="${o.email ?? ''}">
  <label for="password">Password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Sign in</button>
</form>
<p><a href="${o.forgotHref}">Set or reset your password</a> (accounts created by an operator start without one)${o.signUpHref ? html` · <a href="${o.signUpHref}">Create an account</a>` : ''}</p>`;
}

export function signUpBody(o: { action: string; csrf: string; returnTo: string; email?: string; problem?: string | null; signInHref: string }): Html {
  return html`
${problemBox(o.problem)}
<form method="post" action="${o.action}">
  ${csrfField(o.csrf)}
  <input type="hidden" name="return_to" value="${o.returnTo}">
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="email" required value="${o.email ?? ''}">
  <label for="password">Password <small>(at least 10 characters)</small></label>
  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="10">
  <button type="submit">Create account</button>
</form>
<p>We email you a link to confirm the address. New accounts start with no credits. <a href="${o.signInHref}">Sign in instead</a></p>`;
}

export function emailFormBody(o: { action: string; csrf: string; problem?: string | null; explain: string; button: string }): Html {
  return html`
<p>${o.explain}</p>
${problemBox(o.problem)}
<form method="post" action="${o.action}">
  ${csrfField(o.csrf)}
  <label for="email">Email</label>
  <input id="email" name="email" type="email" autocomplete="email" required>
  <button type="submit">${o.button}</button>
</form>`;
}

export function setPasswordBody(o: { action: string; csrf: string; token: string; email: string; problem?: string | null }): Html {
  return html`
<p>Choose a password for <strong>${o.email}</strong>. This also confirms the address and signs out every other session.</p>
${problemBox(o.problem)}
<form method="post" action="${o.action}">
  ${csrfField(o.csrf)}
  <input type="hidden" name="token" value="${o.token}">
  <input type="text" name="username" autocomplete="username" value="${o.email}" hidden>
  <label for="password">New password <small>(at least 10 characters)</small></label>
  <input id="password" name="password" type="password" autocomplete="new-password" required minlength="10">
  <button type="submit">Set password</button>
</form>`;
}

export function confirmEmailBody(o: { action: string; csrf: string; token: string; email: string }): Html {
  return html`
<p>Confirm that <strong>${o.email}</strong> is your address.</p>
<form method="post" action="${o.action}">
  ${csrfField(o.csrf)}
  <input type="hidden" name="token" value="${o.token}">
  <button type="submit">Confirm my email address</button>
</form>`;
}

export function messageBody(text: string, links: { href: string; label: string }[] = [], tone: 'ok' | 'problem' | 'plain' = 'plain'): Html {
  return html`
<p class="${tone === 'plain' ? '' : tone}">${text}</p>
${links.length ? html`<p>${links.map((l, i) => html`${i ? ' · ' : ''}<a href="${l.href}">${l.label}</a>`)}</p>` : ''}`;
}

export function unverifiedBody(o: { email: string; action: string; csrf: string; sent?: boolean }): Html {
  return html`
<p>Before you can approve an agent, confirm your email address <strong>${o.email}</strong> with the link we emailed you.</p>
${o.sent ? html`<p class="ok">A new link is on its way.</p>` : ''}
<form method="post" action="${o.action}">
  ${csrfField(o.csrf)}
  <button class="secondary" type="submit">Email me a new link</button>
</form>
<p>Then reload this page.</p>`;
}

export function consentBody(o: {
  action: string;
  csrf: string;
  clientName: string | null;
  callbackHost: string;
  redirectUri: string;
  loopbackOnly: boolean;
  clientUri: string | null;
  resource: string;
  email: string;
  params: Record<string, string>;
}): Html {
  const hidden = Object.entries(o.params).map(([k, v]) => html`<input type="hidden" name="${k}" value="${v}">`);
  return html`
<p><strong>${o.clientName ?? 'An unnamed application'}</strong> wants to use Lectern as <strong>${o.email}</strong>.</p>
<p><small>The name is chosen by the application itself and is not verified by Lectern.</small></p>
<dl>
  <dt>Sends you back to</dt><dd><strong>${o.callbackHost}</strong> <small>(${o.redirectUri})</small></dd>
  ${o.clientUri ? html`<dt>Says it is from</dt><dd>${o.clientUri}</dd>` : ''}
  <dt>Access</dt><dd>${scopeWords()}</dd>
  <dt>For</dt><dd>${o.resource}</dd>
</dl>
${
  o.loopbackOnly
    ? html`<p class="warning">This application only returns to a program on <strong>this computer</strong> (${o.callbackHost}). Approve only if you just started it yourself: any program on this machine could be listening there.</p>`
    : ''
}
<form method="post" action="${o.action}">
  ${csrfField(o.csrf)}
  ${hidden}
  <button type="submit" name="decision" value="approve">Allow</button>
  <button class="secondary" type="submit" name="decision" value="deny">Deny</button>
</form>
<p><small>You can disconnect it at any time on your account page.</small></p>`;
}

/** The scope in words (SCOPE_ALLOWS / SCOPE_DENIES): what approving lets the agent do, and not. */
function scopeWords(): Html {
  return html`<p>Scope <strong>${SCOPE}</strong> lets it:</p>
<ul class="scope">${SCOPE_ALLOWS.map((w) => html`<li>${w}</li>`)}</ul>
<p><small>${SCOPE_DENIES}</small></p>`;
}

export function verificationBody(o: {
  action: string;
  csrf: string;
  attempt: string;
  userCode: string;
  email: string;
  attemptsLeft: number;
  expiresIn: number;
  problem?: string | null;
}): Html {
  const code = `${o.userCode.slice(0, 3)} ${o.userCode.slice(3)}`;
  return html`
<p>An AI agent asked to connect to your Lectern account <strong>${o.email}</strong>.</p>
${scopeWords()}
<p>Your agent should be showing you this code:</p>
<p class="code-display" aria-label="verification code">${code}</p>
<p class="warning">If your agent shows a different code, or you did not just ask an agent to connect, press <strong>Deny</strong>. Lectern never emails this code.</p>
${problemBox(o.problem)}
<form method="post" action="${o.action}">
  ${csrfField(o.csrf)}
  <input type="hidden" name="attempt" value="${o.attempt}">
  <label for="user_code">To approve, type the code your agent shows</label>
  <input id="user_code" class="code" name="user_code" type="text" inputmode="numeric" autocomplete="off" maxlength="7" pattern="[0-9 ]{6,7}">
  <p><small>${o.attemptsLeft} ${o.attemptsLeft === 1 ? 'try' : 'tries'} left · expires in ${Math.max(1, Math.ceil(o.expiresIn / 60))} min</small></p>
  <button type="submit" name="decision" value="approve">Approve</button>
  <button class="danger" type="submit" name="decision" value="deny">Deny</button>
</form>`;
}

export interface ConnectionRow {
  id: string;
  what: string;
  detail: string;
  created: string;
  status: string;
  active: boolean;
}

export function accountBody(o: { email: string; verified: boolean; csrf: string; revokeAction: string; resendAction: string; passwordHref: string; connections: ConnectionRow[]; notice?: string | null }): Html {
  return html`
${o.notice ? html`<p class="ok">${o.notice}</p>` : ''}
<dl>
  <dt>Email</dt><dd>${o.email} ${o.verified ? html`<small>(confirmed)</small>` : html`<small>(not confirmed)</small>`}</dd>
</dl>
${
  o.verified
    ? ''
    : html`<form method="post" action="${o.resendAction}"><input type="hidden" name="csrf" value="${o.csrf}"><button class="secondary" type="submit">Email me a confirmation link</button></form>`
}
<p><a href="/account">Balance, usage and API keys</a> · <a href="${o.passwordHref}">Set a password by email</a></p>
<h2>Connected agents</h2>
${
  o.connections.length === 0
    ? html`<p>No agent is connected to this account.</p>`
    : html`<div class="scroll" role="region" aria-label="Connected agents (scrolls sideways)" tabindex="0"><table><thead><tr><th>Agent</th><th>Since</th><th>Status</th><th></th></tr></thead><tbody>
${o.connections.map(
  (c) => html`<tr><td>${c.what}<br><small>${c.detail}</small></td><td>${c.created}</td><td>${c.status}</td><td>${
    c.active
      ? html`<form method="post" action="${o.revokeAction}"><input type="hidden" name="csrf" value="${o.csrf}"><input type="hidden" name="grant" value="${c.id}"><button class="danger" type="submit">Disconnect</button></form>`
      : ''
  }</td></tr>`,
)}
</tbody></table></div>`
}`;
}
