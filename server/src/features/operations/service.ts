import type { AppContext } from '../../context.js';

/** The platform's operations page: workers, queue depth and recent failures across organisations. */
export function makeOperationsService({ jobs }: Pick<AppContext, 'jobs'>, deps: { organisationNames: (ids: string[]) => Promise<Map<string, string>> }) {
  return {
    async overview() {
      const since = new Date(Date.now() - 24 * 3600_000).toISOString();
      const [pool, [queue, oldest, finished, failures]] = await Promise.all([jobs.status(), jobs.operations(since)]);
      const kinds = new Map<string, { kind: string; queued: number; running: number }>();
      for (const row of queue) {
        const k = kinds.get(row.kind) ?? { kind: row.kind, queued: 0, running: 0 };
        k[row.state as 'queued' | 'running'] = Number(row.n);
        kinds.set(row.kind, k);
      }
      const n = (s: string) => Number(finished.find((f) => f.state === s)?.n ?? 0);
      const names = await deps.organisationNames(failures.map((f) => f.organisation_id));
      return {
        pool,
        queue: [...kinds.values()].sort((a, b) => b.queued + b.running - (a.queued + a.running) || a.kind.localeCompare(b.kind)),
        oldest_queued_at: (oldest?.at as string | null | undefined) ?? null,
        finished_24h: { succeeded: n('succeeded'), failed: n('failed'), cancelled: n('cancelled') },
        recent_failures: failures.map((f) => ({
          id: f.id,
          kind: f.kind,
          organisation_name: names.get(f.organisation_id) ?? null,
          error: f.error ? f.error.slice(0, 500) : null,
          attempts: Number(f.attempts),
          finished_at: f.finished_at,
          request_id: f.request_id,
        })),
      };
    },
  };
}
