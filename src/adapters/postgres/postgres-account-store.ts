// Accounts and API keys in PostgreSQL (same semantics as the SQLite stores; test/contract/storage.contract.ts).
import type pg from 'pg';
import { AppError } from '../../domain/errors.js';
import type { Account, AccountStore, ApiKeyRecord, ApiKeyStore, NewAccount } from '../../ports/account-store.js';
import { sqlState } from './postgres-pool.js';
import { API_KEY_CACHE_MAX } from '../sql/auth-rows.js';

/** SQLSTATE unique_violation. */
const UNIQUE_VIOLATION = '23505';

interface AccountRow {
  id: number;
  email: string;
  email_verified: boolean;
  eligible_for_originals: boolean;
  created_at: number;
}

const ACCOUNT_COLUMNS = 'id, email, email_verified, eligible_for_originals, created_at';

const toAccount = (r: AccountRow): Account => ({
  id: r.id,
  email: r.email,
  emailVerified: r.email_verified,
  eligibleForOriginals: r.eligible_for_originals,
  createdAt: r.created_at,
});

export class PostgresAccountStore implements AccountStore {
  constructor(private readonly pool: pg.Pool) {}

  async create(input: NewAccount): Promise<Account> {
    const email = input.email.trim().toLowerCase();
    try {
      const { rows } = await this.pool.query<AccountRow>(
        `INSERT INTO accounts (email, email_verified, eligible_for_originals, created_at) VALUES ($1, $2, $3, $4) RETURNING ${ACCOUNT_COLUMNS}`,
        [email, input.emailVerified ?? false, input.eligibleForOriginals ?? false, Math.floor(Date.now() / 1000)],
      );
      return toAccount(rows[0]!);
    } catch (e) {
      if (sqlState(e) === UNIQUE_VIOLATION) throw new AppError('conflict', `An account with email ${email} already exists.`);
      throw e;
    }
  }

  async get(id: number): Promise<Account | null> {
    const { rows } = await this.pool.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE id = $1`, [id]);
    return rows[0] ? toAccount(rows[0]) : null;
  }

  async getByEmail(email: string): Promise<Account | null> {
    const { rows } = await this.pool.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM accounts WHERE email = $1`, [email.trim().toLowerCase()]);
    return rows[0] ? toAccount(rows[0]) : null;
  }

  async update(id: number, patch: Partial<Pick<Account, 'emailVerified' | 'eligibleForOriginals'>>): Promise<Account | null> {
    // NULL means "leave as is", so one statement applies any subset of the patch.
    const { rows } = await this.pool.query<AccountRow>(
      `UPDATE accounts SET email_verified = COALESCE($2, email_verified), eligible_for_originals = COALESCE($3, eligible_for_originals)
       WHERE id = $1 RETURNING ${ACCOUNT_COLUMNS}`,
      [id, patch.emailVerified ?? null, patch.eligibleForOriginals ?? null],
    );
    return rows[0] ? toAccount(rows[0]) : null;
  }
}

interface ApiKeyRow {
  id: string;
  account_id: number;
  hash: string;
  label: string | null;
  created_at: number;
  revoked_at: number | null;
}

const toKey = (r: ApiKeyRow): ApiKeyRecord => ({
  id: r.id,
  accountId: r.account_id,
  hash: r.hash,
  label: r.label,
  createdAt: r.created_at,
  revokedAt: r.revoked_at,
});

/** The channel core/004's trigger notifies with a key id whenever a key row changes (ADR 0185). */
export const API_KEY_CHANNEL = 'lectern_api_keys';
/** How long a revocation waits for its own notification to come back (then it returns anyway). */
const ECHO_WAIT_MS = 2_000;
/**
 * Then how long it waits before returning, so that every listening process has had time to read the
 * notification that reached this one: the revocation returns when it is in force everywhere.
 */
const SPREAD_WAIT_MS = 50;
/** Wait before listening again after the listening connection failed. */
const RELISTEN_MS = 1_000;

/**
 * API keys, with the records of presented keys cached while this process LISTENs on the channel that
 * every change to a key row notifies (ADR 0185): a notification drops that key, a lost listening
 * connection drops them all and turns the cache off until it listens again. A lookup caches its row
 * only if nothing was invalidated while it ran (so a read that raced a revocation is never kept).
 * A revocation through this store returns once its own notification has come back through the server,
 * and a moment more (SPREAD_WAIT_MS) for the other listeners to have read theirs.
 */
export class PostgresApiKeyStore implements ApiKeyStore {
  readonly #cache = new Map<string, ApiKeyRecord>();
  /** Bumped by every invalidation; a lookup caches only when it did not move while the lookup ran. */
  #generation = 0;
  #listener: pg.Client | null = null;
  #listening = false;
  #starting: Promise<boolean> | null = null;
  #retryAt = 0;
  #closed = false;
  readonly #echoes = new Map<string, Set<() => void>>();

  constructor(
    private readonly pool: pg.Pool,
    /** Connects the listening client (a new pg.Client like the pool's); null disables the cache. */
    private readonly connectListener: (() => pg.Client) | null = null,
  ) {}

  async create(k: Omit<ApiKeyRecord, 'revokedAt'>): Promise<ApiKeyRecord> {
    await this.pool.query('INSERT INTO api_keys (id, account_id, hash, label, created_at) VALUES ($1, $2, $3, $4, $5)', [
      k.id,
      k.accountId,
      k.hash,
      k.label,
      k.createdAt,
    ]);
    return { ...k, revokedAt: null };
  }

  async get(id: string): Promise<ApiKeyRecord | null> {
    if (this.#listening) {
      const cached = this.#cache.get(id);
      if (cached) return { ...cached };
    } else this.#listen();
    const cacheable = this.#listening;
    const generation = this.#generation;
    const { rows } = await this.pool.query<ApiKeyRow>('SELECT * FROM api_keys WHERE id = $1', [id]);
    if (!rows[0]) return null;
    const record = toKey(rows[0]);
    if (cacheable && this.#listening && generation === this.#generation) {
      if (this.#cache.size >= API_KEY_CACHE_MAX) this.#cache.clear();
      this.#cache.set(id, record);
    }
    return { ...record };
  }

  async listByAccount(accountId: number): Promise<ApiKeyRecord[]> {
    // COLLATE "C": byte order, as SQLite's BINARY, whatever the database locale.
    const { rows } = await this.pool.query<ApiKeyRow>('SELECT * FROM api_keys WHERE account_id = $1 ORDER BY created_at, id COLLATE "C"', [accountId]);
    return rows.map(toKey);
  }

  async revoke(id: string, at: number): Promise<boolean> {
    const listening = await this.#listen();
    let echoed: Promise<void> | null = null;
    let cancel = () => {};
    if (listening) {
      echoed = new Promise<void>((resolve) => {
        const waiters = this.#echoes.get(id) ?? new Set<() => void>();
        const done = () => {
          clearTimeout(timer);
          waiters.delete(done);
          // the last waiter of a key takes its set away (one per revoked key would otherwise stay)
          if (waiters.size === 0 && this.#echoes.get(id) === waiters) this.#echoes.delete(id);
          resolve();
        };
        const timer = setTimeout(done, ECHO_WAIT_MS);
        cancel = done;
        waiters.add(done);
        this.#echoes.set(id, waiters);
      });
    }
    try {
      const r = await this.pool.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id]);
      this.#invalidate(id);
      if (r.rowCount !== 1) return false;
      // committed: the trigger's notification is on its way to every listening process, ours included
      await echoed;
      await new Promise((resolve) => setTimeout(resolve, SPREAD_WAIT_MS));
      return true;
    } finally {
      cancel();
    }
  }

  /** Stops listening (storage close). */
  async close(): Promise<void> {
    this.#closed = true;
    this.#stopListening();
  }

  #invalidate(id: string | null): void {
    this.#generation++;
    if (id === null) this.#cache.clear();
    else this.#cache.delete(id);
  }

  /** Starts listening unless it does or just failed; resolves whether it listens. */
  #listen(): Promise<boolean> {
    if (this.#listening) return Promise.resolve(true);
    if (this.#starting) return this.#starting;
    if (!this.connectListener || this.#closed || Date.now() < this.#retryAt) return Promise.resolve(false);
    const client = this.connectListener();
    this.#listener = client;
    client.on('notification', (n) => {
      if (n.channel !== API_KEY_CHANNEL) return;
      const id = n.payload ?? null;
      this.#invalidate(id);
      if (id !== null) for (const w of [...(this.#echoes.get(id) ?? [])]) w();
    });
    const lost = () => {
      if (this.#listener !== client) return;
      this.#stopListening();
      this.#retryAt = Date.now() + RELISTEN_MS;
    };
    client.on('error', lost);
    client.on('end', lost);
    this.#starting = (async () => {
      try {
        await client.connect();
        await client.query(`LISTEN ${API_KEY_CHANNEL}`);
        if (this.#listener !== client) return false;
        // what was read before now may have changed unseen: start from nothing
        this.#invalidate(null);
        this.#listening = true;
        return true;
      } catch {
        lost();
        return false;
      } finally {
        this.#starting = null;
      }
    })();
    return this.#starting;
  }

  #stopListening(): void {
    this.#listening = false;
    this.#invalidate(null);
    const client = this.#listener;
    this.#listener = null;
    if (client) {
      client.removeAllListeners('notification');
      client.on('error', () => {});
      void client.end().catch(() => {});
    }
    for (const waiters of this.#echoes.values()) for (const w of [...waiters]) w();
  }
}
