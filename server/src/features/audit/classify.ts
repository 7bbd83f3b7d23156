export const AUDIT_ACTIONS = [
  'sign_up', 'sign_in', 'sign_in_failed', 'sign_out', 'password_reset', 'member_invite', 'member_change', 'member_remove',
  'key_create', 'key_revoke', 'delete', 'payment', 'service', 'create', 'change',
] as const;
export type AuditAction = (typeof AUDIT_ACTIONS)[number];

/** POST calls that only read (queries with a body, reports, downloads, quotes, progress): not changes. */
const READ_POST = /(\/report\/|\/download|\/visualization\/|\/statistics\/|\/progress\/|\/quote$|\/load\/dataset\/|\/preview|\/result\/|\/auth\/refresh$|\/rows)/;

/** What a call did, from its method and route (null: not an auditable change). */
export function classify(method: string, route: string, status: number): AuditAction | null {
  if (route.startsWith('/serve/')) return null; // hosted-API predictions: counted in the request statistics, not changes
  if (route === '/account/api/auth/login') return status < 400 ? 'sign_in' : status === 401 || status === 403 ? 'sign_in_failed' : null;
  if (status >= 400 || method === 'GET' || method === 'HEAD' || method === 'OPTIONS') return null;
  if (method === 'POST' && READ_POST.test(route)) return null;
  if (route === '/account/api/auth/register') return 'sign_up';
  if (route.endsWith('/auth/logout')) return 'sign_out';
  if (route.endsWith('/auth/reset-password') || route.endsWith('/auth/change-password')) return 'password_reset';
  if (route.includes('/credentials')) return method === 'DELETE' ? 'key_revoke' : 'key_create';
  if (/\/members\/:id$/.test(route)) return method === 'DELETE' ? 'member_remove' : 'member_change';
  if (route.endsWith('/members') && method === 'POST') return 'member_invite';
  if (/subscri|payment|checkout|billing/.test(route)) return 'payment';
  if (route.startsWith('/api/services/')) return 'service';
  if (method === 'DELETE' || /\/delete(\/|$)/.test(route)) return 'delete';
  if (/\/register(\/|$)/.test(route) || (method === 'POST' && !/:/.test(route))) return 'create';
  return 'change';
}
