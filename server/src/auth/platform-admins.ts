/** Platform administrators (MITATE_PLATFORM_ADMINS, comma-separated e-mails) act across organisations. */
export function platformAdmins(env: NodeJS.ProcessEnv): string[] {
  return (env.MITATE_PLATFORM_ADMINS || '')
    .split(',')
    .map((s) => s.trim().toLowerCase())
    .filter(Boolean);
}
