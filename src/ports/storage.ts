// All durable state behind one bundle, so the composition root picks SQLite or PostgreSQL once.
import type { AccountStore, ApiKeyStore } from './account-store.js';
import type { ActivityStore } from './activity-store.js';
import type { CreditLedger } from './credit-ledger.js';
import type { DocumentStore } from './document-store.js';

export interface Storage {
  /** `sqlite` (embedded, default) or `postgres` (DATABASE_URL). */
  readonly kind: 'sqlite' | 'postgres';
  readonly accounts: AccountStore;
  readonly apiKeys: ApiKeyStore;
  readonly ledger: CreditLedger;
  readonly documents: DocumentStore;
  readonly activity: ActivityStore;
  /** Resolves when the database answers (readiness probe). */
  ping(): Promise<void>;
  close(): Promise<void>;
}
