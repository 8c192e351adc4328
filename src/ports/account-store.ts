// Accounts and their API keys.

export interface Account {
  /** Numeric account id (the wire `user_id`). */
  id: number;
  /** Lower-cased email address. */
  email: string;
  emailVerified: boolean;
  /** May download originals (interface: "Originals are available to eligible accounts only"). */
  eligibleForOriginals: boolean;
  /** Unix seconds. */
  createdAt: number;
}

export interface NewAccount {
  email: string;
  emailVerified?: boolean;
  eligibleForOriginals?: boolean;
}

export interface AccountStore {
  /** Creates an account; throws AppError `conflict` when the email is taken. */
  create(input: NewAccount): Promise<Account>;
  get(id: number): Promise<Account | null>;
  getByEmail(email: string): Promise<Account | null>;
  update(id: number, patch: Partial<Pick<Account, 'emailVerified' | 'eligibleForOriginals'>>): Promise<Account | null>;
}

export interface ApiKeyRecord {
  /** Public key id (the part of the key before the secret). */
  id: string;
  accountId: number;
  /** SHA-256 of the whole key, hex. The key itself is never stored. */
  hash: string;
  label: string | null;
  createdAt: number;
  revokedAt: number | null;
}

export interface ApiKeyStore {
  create(record: Omit<ApiKeyRecord, 'revokedAt'>): Promise<ApiKeyRecord>;
  get(id: string): Promise<ApiKeyRecord | null>;
  listByAccount(accountId: number): Promise<ApiKeyRecord[]>;
  /** Marks the key revoked; returns false when unknown or already revoked. */
  revoke(id: string, at: number): Promise<boolean>;
}
