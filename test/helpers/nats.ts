// NATS JetStream for the cluster tests: NATS_URL (default nats://127.0.0.1:4222, the CI's server) when a
// server answers there, else the tests that need it are skipped with the reason.
import { randomBytes } from 'node:crypto';
import { connect } from '@nats-io/transport-node';
import { jetstreamManager } from '@nats-io/jetstream';

export const natsUrl = process.env.NATS_URL || 'nats://127.0.0.1:4222';

/** Null when a JetStream server answers at natsUrl, else why the test is skipped. */
export async function natsSkip(): Promise<string | null> {
  try {
    const nc = await connect({ servers: natsUrl, timeout: 2_000, maxReconnectAttempts: 0 });
    try {
      await (await jetstreamManager(nc)).getAccountInfo();
    } finally {
      await nc.close();
    }
    return null;
  } catch (e) {
    return `no NATS JetStream server at ${natsUrl} (${(e as Error).message}): cluster log test skipped`;
  }
}

/** A name for a test's stream, subjects and buckets that no other test uses. */
export const uniqueClusterName = (): string => `t${process.pid}${randomBytes(4).toString('hex')}`;
