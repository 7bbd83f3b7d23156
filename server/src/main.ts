import { buildApp } from './app.js';
import { loadConfig } from './config.js';

const config = loadConfig();
const app = await buildApp({ logger: true });
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    app.log.info(`${sig}: shutting down`);
    // A request or job that does not let go must not keep the process alive: jobs are in the database.
    setTimeout(() => {
      app.log.warn('shutdown took longer than 10 s; exiting');
      process.exit(1);
    }, 10_000).unref();
    app.close().then(() => process.exit(0), () => process.exit(1));
  });
}
await app.listen({ port: config.port, host: config.host });
app.log.info(`Mitate is serving on http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port} (data in ${config.dataDir})`);
