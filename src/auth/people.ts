// People in the browser: passwords, sign-up, sign-in sessions, email verification and password links.
// Sessions and emailed links are `<prefix>_<id>_<secret>` secrets stored as digests (secrets.ts).
// Emails carry links only (never a service_auth user code: interface service_auth 3). Sign-up with an
// email that already has an account sends that address a password link instead, so the form never
// tells anyone which emails have accounts. An account whose email becomes verified through a link loses
// every earlier session and agent connection (pre-hijacking: someone who signed up with another
// person's address cannot keep access once the owner proves it).
import { AppError } from '../domain/errors.js';
import type { Account, AccountStore } from '../ports/account-store.js';
import type { EmailTokenPurpose, OAuthStore, PeopleStore } from '../ports/auth-store.js';
import type { Clock } from '../ports/clock.js';
import { nowSeconds } from '../ports/clock.js';
import type { Mailer } from '../ports/mailer.js';
import { hashPassword, passwordProblem, verifyAgainstDummy, verifyPassword } from './passwords.js';
import { issueSecret, matchesDigest, secretId } from './secrets.js';
import { authUrl, type AuthSettings } from './settings.js';

const EMAIL_RE = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
const LINK_TTL: Record<EmailTokenPurpose, number> = { verify: 86_400, password: 3600 };
const LINK_PREFIX: Record<EmailTokenPurpose, string> = { verify: 'lev', password: 'lpw' };

export interface SignedIn {
  account: Account;
  /** Session record id (public; CSRF tokens are bound to it). */
  sessionId: string;
}

/** A problem to show on a form (4xx, the person can fix it). */
export class FormProblem extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'FormProblem';
  }
}

export class PeopleService {
  constructor(
    private readonly store: PeopleStore,
    private readonly oauth: OAuthStore,
    private readonly accounts: AccountStore,
    private readonly mailer: Mailer,
    private readonly clock: Clock,
    private readonly settings: AuthSettings,
    /** After sign-up created an account (starting credits, auth.signUpCredits). */
    private readonly onSignedUp?: (account: Account) => Promise<void>,
  ) {}

  static normalizeEmail(email: string): string {
    return email.trim().toLowerCase();
  }

  /** Sets an account's password (CLI and links); ends its other sessions. */
  async setPassword(accountId: number, password: string): Promise<void> {
    const problem = passwordProblem(password);
    if (problem) throw new FormProblem(problem);
    await this.store.setPassword({ accountId, hash: await hashPassword(password), updatedAt: nowSeconds(this.clock) });
    await this.store.deleteSessionsOf(accountId);
  }

  async hasPassword(accountId: number): Promise<boolean> {
    return (await this.store.getPassword(accountId)) !== null;
  }

  /**
   * Changes the password of a signed-in person who knows the current one (account page). Ends every
   * session of the account, this one included, and returns a new session token for this browser.
   */
  async changePassword(accountId: number, current: string, next: string): Promise<string> {
    const record = await this.store.getPassword(accountId);
    const ok = record ? await verifyPassword(current, record.hash) : await verifyAgainstDummy(current);
    if (!ok) throw new FormProblem('The current password is wrong.');
    await this.setPassword(accountId, next);
    return this.startSession(accountId);
  }

  /** Creates an account with a password and emails a verification link (or a password link when the email is taken). */
  async signUp(emailInput: string, password: string): Promise<void> {
    if (!this.settings.allowSignUp) throw new FormProblem('Sign-up is closed on this server; ask its operator for an account.');
    const email = PeopleService.normalizeEmail(emailInput);
    if (!EMAIL_RE.test(email) || email.length > 320) throw new FormProblem('Enter a valid email address.');
    const problem = passwordProblem(password);
    if (problem) throw new FormProblem(problem);
    const existing = await this.accounts.getByEmail(email);
    if (existing) {
      await this.sendLink(existing, 'password', 'Someone (maybe you) tried to sign up for Lectern with this address, which already has an account. To sign in, set a password with this link');
      return;
    }
    let account: Account;
    try {
      account = await this.accounts.create({ email, emailVerified: false });
    } catch (e) {
      if (e instanceof AppError && e.code === 'conflict') return;
      throw e;
    }
    await this.store.setPassword({ accountId: account.id, hash: await hashPassword(password), updatedAt: nowSeconds(this.clock) });
    if (this.onSignedUp) await this.onSignedUp(account);
    await this.sendLink(account, 'verify', 'Welcome to Lectern. Confirm your email address with this link');
  }

  /** Checks email and password; returns a new session token, or null (same answer for every failure). */
  async signIn(emailInput: string, password: string): Promise<{ token: string; account: Account } | null> {
    const account = await this.accounts.getByEmail(PeopleService.normalizeEmail(emailInput));
    const record = account ? await this.store.getPassword(account.id) : null;
    const ok = record ? await verifyPassword(password, record.hash) : await verifyAgainstDummy(password);
    if (!account || !ok) return null;
    return { token: await this.startSession(account.id), account };
  }

  /** A new session for the account; returns its token (the cookie value). */
  async startSession(accountId: number): Promise<string> {
    const s = issueSecret('lss');
    const now = nowSeconds(this.clock);
    await this.store.createSession({ id: s.id, hash: s.hash, accountId, createdAt: now, expiresAt: now + this.settings.sessionTtlSeconds });
    return s.token;
  }

  /** The signed-in person of a session cookie, or null. */
  async session(token: string | undefined): Promise<SignedIn | null> {
    if (!token) return null;
    const id = secretId('lss', token);
    if (!id) return null;
    const record = await this.store.getSession(id);
    if (!record || !matchesDigest(token, record.hash) || record.expiresAt <= nowSeconds(this.clock)) return null;
    const account = await this.accounts.get(record.accountId);
    return account ? { account, sessionId: record.id } : null;
  }

  async signOut(token: string | undefined): Promise<void> {
    const id = token ? secretId('lss', token) : null;
    if (id) await this.store.deleteSession(id);
  }

  /** Emails a password link when the address has an account (silently does nothing otherwise). */
  async requestPasswordLink(emailInput: string): Promise<void> {
    const account = await this.accounts.getByEmail(PeopleService.normalizeEmail(emailInput));
    if (account) await this.sendLink(account, 'password', 'To set a new Lectern password, open this link');
  }

  async resendVerification(account: Account): Promise<void> {
    if (!account.emailVerified) await this.sendLink(account, 'verify', 'Confirm your Lectern email address with this link');
  }

  private async sendLink(account: Account, purpose: EmailTokenPurpose, lead: string): Promise<void> {
    const s = issueSecret(LINK_PREFIX[purpose]);
    const ttl = LINK_TTL[purpose];
    await this.store.createEmailToken({ id: s.id, hash: s.hash, accountId: account.id, purpose, expiresAt: nowSeconds(this.clock) + ttl, usedAt: null });
    const link = `${authUrl(this.settings, purpose === 'verify' ? 'verifyEmail' : 'setPassword')}?token=${encodeURIComponent(s.token)}`;
    await this.mailer.send({
      to: account.email,
      subject: purpose === 'verify' ? 'Confirm your Lectern email address' : 'Set your Lectern password',
      text: `${lead} (valid for ${ttl / 3600} hour${ttl === 3600 ? '' : 's'}):\n\n${link}\n\nIf you did not ask for this, ignore this message.\n`,
    });
  }

  /** The account of a valid, unused link of this purpose (without using it), or null. */
  async peekLink(token: string, purpose: EmailTokenPurpose): Promise<Account | null> {
    const id = secretId(LINK_PREFIX[purpose], token);
    if (!id) return null;
    const record = await this.store.getEmailToken(id);
    if (!record || record.purpose !== purpose || record.usedAt !== null || record.expiresAt <= nowSeconds(this.clock) || !matchesDigest(token, record.hash)) return null;
    return this.accounts.get(record.accountId);
  }

  /** Uses a link once: marks the email verified (both purposes prove the address) and, for password links, sets the password. */
  async useLink(token: string, purpose: EmailTokenPurpose, password?: string): Promise<Account> {
    if (purpose === 'password') {
      const problem = passwordProblem(password ?? '');
      if (problem) throw new FormProblem(problem);
    }
    const account = await this.peekLink(token, purpose);
    if (!account || !(await this.store.useEmailToken(secretId(LINK_PREFIX[purpose], token)!, nowSeconds(this.clock)))) {
      throw new FormProblem('This link is invalid, used or expired. Ask for a new one.');
    }
    if (!account.emailVerified) {
      // First proof that the owner of the address is here: end whatever was done before it.
      await this.store.deleteSessionsOf(account.id);
      for (const g of await this.oauth.listGrantsOf(account.id)) if (g.revokedAt === null) await this.oauth.revokeGrant(g.id, nowSeconds(this.clock));
      await this.accounts.update(account.id, { emailVerified: true });
    }
    if (purpose === 'password') await this.setPassword(account.id, password!);
    return (await this.accounts.get(account.id))!;
  }
}
