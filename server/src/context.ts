import type { Config } from './config.js';
import type { Duck } from './duck/index.js';
import type { Db } from './db/index.js';
import type { JobService } from './jobs/service.js';
import type { Mailer } from './mail/mailer.js';
import type { LocalStorage } from './storage/local.js';

/** What every area needs, handed to plugins by decoration (never imported as a global). */
export interface AppContext {
  config: Config;
  db: Db;
  dialect: 'sqlite' | 'postgres';
  /** The PostgreSQL schema the tables live in when not the default one (tests). */
  pgSchema?: string;
  storage: LocalStorage;
  jobs: JobService;
  duckdb: Duck;
  mailer: Mailer;
  secret: Buffer;
  log: { info(msg: string): void; warn(msg: string): void; error(msg: string): void };
}

declare module 'fastify' {
  interface FastifyInstance {
    ctx: AppContext;
  }
}
