import type { AppContext } from '../../context.js';

/** The time source of billing: the real time, unless a test sets or moves it. */
export class Clock {
  private fixed: number | null = null;
  private offset = 0;
  now(): Date {
    return new Date((this.fixed ?? Date.now()) + this.offset);
  }
  /** Stops the clock at `at` (tests). */
  set(at: Date | string): void {
    this.fixed = new Date(at).getTime();
    this.offset = 0;
  }
  advance(ms: number): void {
    this.offset += ms;
  }
}

const clocks = new WeakMap<AppContext, Clock>();

/** One clock per app, so the routes, the sweep and the tests share it. */
export function clockOf(ctx: AppContext): Clock {
  let c = clocks.get(ctx);
  if (!c) {
    c = new Clock();
    clocks.set(ctx, c);
  }
  return c;
}
