import type { PlatformProject } from './api';

/** The first lines of a hosted API's OpenAPI excerpt, the same for every model type: title and version, server, the
 * key header, and the path up to its `post:`. Each type's example adds its request and answers below. */
export function openApiHead(p: PlatformProject): string[] {
  return [
    'openapi: 3.0.3',
    `info: { title: ${JSON.stringify(p.name)}, version: ${JSON.stringify(p.settings.version)} }`,
    `servers: [{ url: ${JSON.stringify(p.endpoint.replace(/\/serve\/.*$/, ''))} }]`,
    'components:',
    '  securitySchemes: { apiKey: { type: apiKey, in: header, name: X-API-Key } }',
    'security: [{ apiKey: [] }]',
    'paths:',
    `  /serve/${p.key}/predict:`,
    '    post:',
  ];
}
