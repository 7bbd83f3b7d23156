/**
 * Waits for a condition, never for a time: calls `fn` every 100 ms until it answers something truthy (its answer is
 * returned), up to `timeoutMs` — generous by default, for a busy 2-core machine. A throw counts as "not yet"; the last
 * one is named in the time-out error.
 */
export async function until<T>(what: string, fn: () => Promise<T | undefined | false | null> | T | undefined | false | null, timeoutMs = 600_000): Promise<T> {
  const end = Date.now() + timeoutMs;
  let last: unknown;
  for (;;) {
    try {
      const v = await fn();
      if (v) return v;
    } catch (e) {
      last = e;
    }
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}${last ? ` (last error: ${(last as Error).message})` : ''}`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
