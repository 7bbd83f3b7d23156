import { buildApp } from './app.js';
import { loadConfig } from './config.js';

const config = loadConfig();
const app = await buildApp({ logger: true });
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    app.log.info(`${sig}: shutting down`);
    app.close().then(() => process.exit(0), () => process.exit(1));
  });
}
await app.listen({ port: config.port, host: config.host });
app.log.info(`Mitate is serving on http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port} (data in ${config.dataDir})`);
