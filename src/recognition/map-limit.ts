// Runs an async function over items with at most `limit` calls in flight, preserving nothing but
// completion: callers record results by key. Used to OCR several pages of one document at once.

/** Calls `fn` for every item, at most `limit` at a time; rejects with the first error after all settle. */
export async function mapLimit<T>(items: readonly T[], limit: number, fn: (item: T, index: number) => Promise<void>): Promise<void> {
  let next = 0;
  let failure: unknown = null;
  const worker = async (): Promise<void> => {
    while (next < items.length && failure === null) {
      const i = next++;
      try {
        await fn(items[i]!, i);
      } catch (e) {
        failure ??= e;
      }
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(limit, items.length)) }, worker));
  if (failure !== null) throw failure;
}
