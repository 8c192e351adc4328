// Accounts and API keys in PostgreSQL (same semantics as the SQLite stores; test/contract/storage.contract.ts).
import type pg from 'pg';
import { AppError } from '../../domain/errors.js';
import type { Account, AccountStore, ApiKeyRecord, ApiKeyStore, NewAccount } from '../../ports/account-store.js';
import { sqlState } from './postgres-pool.js';

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

export class PostgresApiKeyStore implements ApiKeyStore {
  constructor(private readonly pool: pg.Pool) {}

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
    const { rows } = await this.pool.query<ApiKeyRow>('SELECT * FROM api_keys WHERE id = $1', [id]);
    return rows[0] ? toKey(rows[0]) : null;
  }

  async listByAccount(accountId: number): Promise<ApiKeyRecord[]> {
    // COLLATE "C": byte order, as SQLite's BINARY, whatever the database locale.
    const { rows } = await this.pool.query<ApiKeyRow>('SELECT * FROM api_keys WHERE account_id = $1 ORDER BY created_at, id COLLATE "C"', [accountId]);
    return rows.map(toKey);
  }

  async revoke(id: string, at: number): Promise<boolean> {
    const r = await this.pool.query('UPDATE api_keys SET revoked_at = $1 WHERE id = $2 AND revoked_at IS NULL', [at, id]);
    return r.rowCount === 1;
  }
}
