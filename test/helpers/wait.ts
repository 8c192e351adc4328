// Tests wait for conditions, never for a fixed time (issue 25: on a loaded 2-core machine three tests
// failed on fixed budgets that pass alone). A ceiling only ends a wait that would otherwise hang: it is
// generous, about ten times what the slowest run on a loaded machine needed, and the failure says what
// did not happen.
import { request } from 'node:http';

/** The ceiling of a wait for something that takes seconds when the machine is quiet (10 minutes). */
export const CEILING_MS = 600_000;

/** A test's own ceiling (node:test `timeout`): ten times `usualMs`, its duration on a loaded machine. */
export const ceiling = (usualMs: number) => 10 * usualMs;

/**
 * Resolves with `probe()`'s value once it is truthy, polling every `intervalMs`; rejects when `failIf`
 * returns a reason (e.g. the child process exited) or after `ceilingMs`.
 */
export async function waitFor<T>(
  what: string,
  probe: () => T | Promise<T>,
  opts: { ceilingMs?: number; intervalMs?: number; failIf?: () => string | null | undefined | false } = {},
): Promise<T> {
  const ceilingMs = opts.ceilingMs ?? CEILING_MS;
  const start = Date.now();
  for (;;) {
    const v = await probe();
    if (v) return v;
    const reason = opts.failIf?.();
    if (reason) throw new Error(`${what}: ${reason}`);
    if (Date.now() - start > ceilingMs) throw new Error(`${what}: not within ${Math.round(ceilingMs / 1000)} s`);
    await new Promise((r) => setTimeout(r, opts.intervalMs ?? 20));
  }
}

/**
 * {@link waitFor} for probes that fail while what they probe is starting (a refused connection, a 503): a
 * rejected probe counts as "not yet", null as well; resolves with the first other value.
 */
export async function waitForValue<T>(what: string, probe: () => Promise<T | null>, opts: { ceilingMs?: number; intervalMs?: number; failIf?: () => string | null | undefined | false } = {}): Promise<T> {
  return (await waitFor(what, () => probe().catch(() => null), { intervalMs: 300, ...opts })) as T;
}

/** Whether `GET http://127.0.0.1:{port}{path}` answers 200 now. */
export function answers200(port: number, path = '/healthz'): Promise<boolean> {
  return new Promise((resolve) => {
    request({ host: '127.0.0.1', port, path }, (res) => {
      res.resume();
      resolve(res.statusCode === 200);
    })
      .on('error', () => resolve(false))
      .end();
  });
}
