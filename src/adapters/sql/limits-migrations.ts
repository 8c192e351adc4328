// Per-account rate-limit overrides (limits capability; ADR 0084). Never edit a released step.
import type { MigrationStep } from './migrations.js';

const table = (int: string, real: string) => `
  CREATE TABLE rate_limit_overrides (
    account_id ${int} NOT NULL REFERENCES accounts(id),
    scope TEXT NOT NULL,
    capacity ${int} NOT NULL CHECK (capacity >= 1),
    refill_per_second ${real} NOT NULL CHECK (refill_per_second >= 0),
    updated_at ${int} NOT NULL,
    PRIMARY KEY (account_id, scope)
  );
`;

export const LIMITS_MIGRATIONS: readonly MigrationStep[] = [{ id: 'limits/001-account-overrides', sqlite: table('INTEGER', 'REAL'), postgres: table('BIGINT', 'DOUBLE PRECISION') }];
