// The server secret (signing key material for feedback tokens and similar): generated once with
// 256 random bits and kept in {data_dir}/secret with mode 0600, unless configured.
import { randomBytes } from 'node:crypto';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function loadOrCreateSecret(dataDir: string): string {
  const path = join(dataDir, 'secret');
  try {
    const s = readFileSync(path, 'utf8').trim();
    if (s.length >= 32) return s;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  mkdirSync(dataDir, { recursive: true });
  const secret = randomBytes(32).toString('base64url');
  try {
    writeFileSync(path, secret + '\n', { mode: 0o600, flag: 'wx' });
    return secret;
  } catch (e) {
    // Another process created it first: use theirs.
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return readFileSync(path, 'utf8').trim();
    throw e;
  }
}
