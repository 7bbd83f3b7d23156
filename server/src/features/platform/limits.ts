/**
 * Token buckets in this process's memory: `rate` calls a second per id, bursts of `burst`. `take` answers 0 when the
 * call may go on, else the whole seconds after which one would (the Retry-After). The clock is passed in so the rule
 * is testable without waiting.
 *
 * Kept on the gateway (one per app instance). Ids are client addresses and API keys, so the map is bounded: past
 * `maxIds` it drops the buckets that have refilled (they hold nothing a new bucket would not), and if every bucket is
 * still draining, the oldest ones.
 */
export class TokenBuckets {
  private buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    private rate: number,
    private burst: number,
    private maxIds = 100_000,
  ) {}

  take(id: string, now: number = Date.now()): number {
    let b = this.buckets.get(id);
    if (!b) {
      if (this.buckets.size >= this.maxIds) this.prune(now);
      b = { tokens: this.burst, at: now };
      this.buckets.set(id, b);
    } else {
      b.tokens = Math.min(this.burst, b.tokens + (Math.max(0, now - b.at) / 1000) * this.rate);
      b.at = now;
    }
    if (b.tokens >= 1) {
      b.tokens -= 1;
      return 0;
    }
    return Math.max(1, Math.ceil((1 - b.tokens) / this.rate));
  }

  get size(): number {
    return this.buckets.size;
  }

  private prune(now: number): void {
    for (const [id, b] of this.buckets) if (b.tokens + ((now - b.at) / 1000) * this.rate >= this.burst) this.buckets.delete(id);
    for (const id of this.buckets.keys()) {
      if (this.buckets.size < this.maxIds * 0.9) break;
      this.buckets.delete(id);
    }
  }
}
