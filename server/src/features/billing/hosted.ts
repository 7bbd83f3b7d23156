import type { BilledProject } from './terms.js';

/**
 * What billing needs of the hosted APIs it bills. The platform area owns them and hands this in at start-up
 * (services.ts), so billing does not depend on the platform area, which depends on billing's lock check.
 */
export interface HostedProjects {
  /** The price list in force: its currency and the price of a million requests beyond the plan. */
  prices: { currency: string; infrastructure: { per_million_requests: number } };
  /** The organisation's project; refuses with 404 when the organisation has no such project. */
  get(auth: { orgId: string }, id: string): Promise<unknown>;
  /** The hosted APIs in one of `statuses` that were reviewed once, of one organisation or of all. */
  reviewedIn(statuses: readonly BilledProject['status'][], orgId?: string): Promise<BilledProject[]>;
  /** Answered (billed) requests of a project and their serving time in [fromHour, toHour), UTC hours as the
   * request statistics store them. */
  usage(projectId: string, fromHour: string, toHour: string): Promise<{ requests: number; ms: number }>;
}
