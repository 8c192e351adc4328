// PostgreSQL storage (selected by DATABASE_URL).
import type { Storage } from '../../ports/storage.js';

export async function openPostgresStorage(_url: string): Promise<Storage> {
  throw new Error('PostgreSQL storage is being implemented');
}
