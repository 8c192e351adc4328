// Password hashing with scrypt (memory-hard; RFC 7914), Node's built-in implementation:
// N = 2^15, r = 8, p = 1 (32 MiB, ~50-100 ms), 16-byte salt, 32-byte key. Stored self-described as
// `scrypt$<log2 N>$<r>$<p>$<salt b64url>$<key b64url>` so parameters can be raised later; verification
// compares in constant time. Unknown accounts are checked against a dummy hash so that timing does not
// reveal which emails have accounts.
import { randomBytes, scrypt as scryptCb, timingSafeEqual, type ScryptOptions } from 'node:crypto';

const scrypt = (password: string, salt: Buffer, keylen: number, options: ScryptOptions): Promise<Buffer> =>
  new Promise((resolve, reject) => scryptCb(password, salt, keylen, options, (err, key) => (err ? reject(err) : resolve(key))));

const LOG_N = 15;
const R = 8;
const P = 1;
const KEY_LEN = 32;
const maxmem = (logN: number, r: number) => 256 * (1 << logN) * r + 16 * 1024 * 1024;

/** Password rules: 10 to 256 characters. Returns a problem to show, or null. */
export function passwordProblem(password: string): string | null {
  if (password.length < 10) return 'Use at least 10 characters.';
  if (password.length > 256) return 'Use at most 256 characters.';
  return null;
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const key = await scrypt(password.normalize('NFC'), salt, KEY_LEN, { N: 1 << LOG_N, r: R, p: P, maxmem: maxmem(LOG_N, R) });
  return `scrypt$${LOG_N}$${R}$${P}$${salt.toString('base64url')}$${key.toString('base64url')}`;
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const m = /^scrypt\$(\d+)\$(\d+)\$(\d+)\$([A-Za-z0-9_-]+)\$([A-Za-z0-9_-]+)$/.exec(stored);
  if (!m) return false;
  const [logN, r, p] = [Number(m[1]), Number(m[2]), Number(m[3])];
  if (logN > 20 || r > 32 || p > 16) return false;
  const expected = Buffer.from(m[5]!, 'base64url');
  const key = await scrypt(password.normalize('NFC'), Buffer.from(m[4]!, 'base64url'), expected.length, { N: 1 << logN, r, p, maxmem: maxmem(logN, r) });
  return key.length === expected.length && timingSafeEqual(key, expected);
}

let dummy: Promise<string> | null = null;
/** Spends the time of one verification and returns false (for unknown accounts). */
export async function verifyAgainstDummy(password: string): Promise<false> {
  dummy ??= hashPassword(randomBytes(16).toString('hex'));
  await verifyPassword(password, await dummy);
  return false;
}
