/** Query parameters that carry secrets: never written to the log. */
const SECRET_PARAMS = /^(access_token|refresh_token|id_token|token|code|state|password|api_key|key)$/i;

/** The URL with the values of secret query parameters replaced, for logs. */
export function redactUrl(url: string): string {
  const q = url.indexOf('?');
  if (q < 0) return url;
  const query = url
    .slice(q + 1)
    .split('&')
    .map((pair) => {
      const eq = pair.indexOf('=');
      const name = eq < 0 ? pair : pair.slice(0, eq);
      let decoded = name;
      try {
        decoded = decodeURIComponent(name);
      } catch {
        /* keep it as it is */
      }
      return eq >= 0 && SECRET_PARAMS.test(decoded) ? `${name}=[redacted]` : pair;
    })
    .join('&');
  return `${url.slice(0, q)}?${query}`;
}

/** Fastify's request log line with the URL redacted (the rest as pino's default). */
export const requestSerializer = (req: { method: string; url: string; host?: string; hostname?: string; ip?: string; socket?: { remotePort?: number } }) => ({
  method: req.method,
  url: redactUrl(req.url),
  host: req.host ?? req.hostname,
  remoteAddress: req.ip,
  remotePort: req.socket?.remotePort,
});
