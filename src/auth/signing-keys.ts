// The signing keys of access tokens and identity assertions (ES256). The newest unretired key signs;
// when it is older than the rotation period a new key is made and the old one retired: it still
// verifies and stays in the JWKS until everything it can have signed has expired (the longest token
// lifetime), then it is deleted. Private keys are stored sealed with AES-256-GCM under a subkey of the
// server secret. Several instances may rotate at once: each key they make is published, so tokens
// signed by any of them verify everywhere.
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import { exportJWK, generateKeyPair, importJWK, type CryptoKey, type JWK } from 'jose';
import type { Clock } from '../ports/clock.js';
import { nowSeconds } from '../ports/clock.js';
import type { SigningKeyRecord, SigningKeyStore } from '../ports/auth-store.js';

export const SIGNING_ALG = 'ES256';

interface LoadedKey {
  record: SigningKeyRecord;
  publicKey: CryptoKey;
  publicJwk: JWK;
}

export interface KeyRingOptions {
  /** Age at which the signing key is replaced, seconds. */
  rotationSeconds: number;
  /** How long a retired key keeps verifying (the longest lifetime of what it signed), seconds. */
  keepSeconds: number;
}

export class KeyRing {
  #cache: { at: number; keys: LoadedKey[] } | null = null;
  #signing: { kid: string; key: CryptoKey } | null = null;
  #rotating: Promise<void> | null = null;

  constructor(
    private readonly store: SigningKeyStore,
    private readonly clock: Clock,
    private readonly sealKey: Buffer,
    private readonly options: KeyRingOptions,
  ) {}

  private seal(plain: string): string {
    const iv = randomBytes(12);
    const c = createCipheriv('aes-256-gcm', this.sealKey, iv);
    const body = Buffer.concat([c.update(plain, 'utf8'), c.final()]);
    return Buffer.concat([iv, c.getAuthTag(), body]).toString('base64url');
  }

  private unseal(sealed: string): string {
    const raw = Buffer.from(sealed, 'base64url');
    const d = createDecipheriv('aes-256-gcm', this.sealKey, raw.subarray(0, 12));
    d.setAuthTag(raw.subarray(12, 28));
    return Buffer.concat([d.update(raw.subarray(28)), d.final()]).toString('utf8');
  }

  private async load(force = false): Promise<LoadedKey[]> {
    const now = this.clock.nowMs();
    if (!force && this.#cache && now - this.#cache.at < 30_000) return this.#cache.keys;
    const records = await this.store.listKeys();
    const keys: LoadedKey[] = [];
    for (const record of records) {
      const publicJwk = JSON.parse(record.publicJwk) as JWK;
      keys.push({ record, publicJwk, publicKey: (await importJWK(publicJwk, record.alg)) as CryptoKey });
    }
    this.#cache = { at: now, keys };
    return keys;
  }

  /** Makes a new signing key when there is none or the current one is due, and prunes dead keys. */
  async rotateIfDue(force = false): Promise<void> {
    this.#rotating ??= this.#rotate(force).finally(() => (this.#rotating = null));
    return this.#rotating;
  }

  async #rotate(force: boolean): Promise<void> {
    const now = nowSeconds(this.clock);
    const keys = await this.load(true);
    for (const k of keys) if (k.record.removeAfter !== null && k.record.removeAfter < now) await this.store.deleteKey(k.record.kid);
    const active = keys.filter((k) => k.record.retiredAt === null).sort((a, b) => b.record.createdAt - a.record.createdAt);
    const newest = active[0];
    if (newest && !force && now - newest.record.createdAt < this.options.rotationSeconds) return;
    const { privateKey, publicKey } = await generateKeyPair(SIGNING_ALG, { extractable: true });
    const kid = `k${now.toString(36)}${randomBytes(4).toString('hex')}`;
    const publicJwk = { ...(await exportJWK(publicKey)), kid, alg: SIGNING_ALG, use: 'sig' };
    const privateJwk = { ...(await exportJWK(privateKey)), kid, alg: SIGNING_ALG };
    await this.store.addKey({ kid, alg: SIGNING_ALG, publicJwk: JSON.stringify(publicJwk), privateJwkSealed: this.seal(JSON.stringify(privateJwk)), createdAt: now, retiredAt: null, removeAfter: null });
    for (const old of active) await this.store.retireKey(old.record.kid, now, now + this.options.keepSeconds);
    this.#signing = null;
    await this.load(true);
  }

  /** The key to sign with now (rotating first when due). */
  async signingKey(): Promise<{ kid: string; key: CryptoKey }> {
    const now = nowSeconds(this.clock);
    const keys = await this.load();
    const active = keys.filter((k) => k.record.retiredAt === null).sort((a, b) => b.record.createdAt - a.record.createdAt)[0];
    if (!active || now - active.record.createdAt >= this.options.rotationSeconds) {
      await this.rotateIfDue();
      return this.signingKey();
    }
    if (this.#signing?.kid !== active.record.kid) {
      const jwk = JSON.parse(this.unseal(active.record.privateJwkSealed)) as JWK;
      this.#signing = { kid: active.record.kid, key: (await importJWK(jwk, SIGNING_ALG)) as CryptoKey };
    }
    return this.#signing;
  }

  /** The public key with this kid (reloading once when unknown: another instance may have rotated). */
  async verificationKey(kid: string): Promise<CryptoKey | null> {
    const find = (keys: LoadedKey[]) => keys.find((k) => k.record.kid === kid && (k.record.removeAfter === null || k.record.removeAfter >= nowSeconds(this.clock)));
    const hit = find(await this.load()) ?? find(await this.load(true));
    return hit?.publicKey ?? null;
  }

  /** The JWKS document (every key still verifying). */
  async jwks(): Promise<{ keys: JWK[] }> {
    const now = nowSeconds(this.clock);
    const keys = await this.load();
    return { keys: keys.filter((k) => k.record.removeAfter === null || k.record.removeAfter >= now).map((k) => k.publicJwk) };
  }
}
