import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import readline from 'node:readline';
import { repoRoot, type Config } from '../config.js';

/** What the engine streams for a job (engine/mitate_engine/worker.py); other `type`s are task-specific events. */
export type EngineEvent =
  | { type: 'started'; pid?: number }
  | { type: 'progress'; progress: number; message?: string }
  | { type: 'log'; line: string }
  | { type: 'result'; result: unknown; seconds?: number }
  | { type: 'error'; error: string; traceback?: string; cancelled?: boolean }
  | { type: string; [key: string]: unknown };

/** A job as the queue carries it: the engine needs no more than this. */
export interface QueuedJob {
  id: string;
  kind: string;
  spec: Record<string, unknown>;
  /** The request that created it: the engine's log lines about the job carry it. */
  request_id?: string | null;
  /** W3C trace context of that request's span: the engine's job span becomes its child. */
  trace?: Record<string, string> | null;
  /** Which run of the job this is (1 first), for the engine's log lines. */
  attempt?: number;
}

/** A log line; `fields` (job_id, pid, kind ...) become properties of the structured (JSON) log record. */
export type LogFn = (level: 'info' | 'warn' | 'error', msg: string, fields?: Record<string, unknown>) => void;

export const engineDir = path.join(repoRoot, 'engine');

/**
 * The engine's structured log line (engine/mitate_engine/logs.py: one JSON object per line on stderr, marked
 * `"logger": "mitate_engine"`), as a record for the server's log; null for any other line (a library's print).
 * The engine's own time, level and pid keep their meaning under names that do not clash with pino's.
 */
export function engineLogRecord(line: string): { level: 'info' | 'warn' | 'error'; msg: string; fields: Record<string, unknown> } | null {
  if (!line.startsWith('{') || !line.includes('"mitate_engine"')) return null;
  let rec: Record<string, unknown>;
  try {
    rec = JSON.parse(line);
  } catch {
    return null;
  }
  if (!rec || typeof rec !== 'object' || rec.logger !== 'mitate_engine') return null;
  const { time, level, msg, pid, logger: _logger, ...fields } = rec;
  const lv = level === 'error' || level === 'critical' ? 'error' : level === 'warning' || level === 'warn' ? 'warn' : 'info';
  return { level: lv, msg: `engine: ${String(msg ?? '')}`, fields: { ...fields, source: 'engine', engine_time: time, engine_pid: pid } };
}

/** Starts `python -m <module>` inside engine/, with the package importable and output unbuffered. */
export function spawnEngine(config: Config, module: string, args: string[] = []): ChildProcess {
  // eslint-disable-next-line no-restricted-properties -- the engine inherits the whole environment (its own settings, PYTHONPATH)
  const inherited = process.env;
  const pythonPath = [engineDir, inherited.PYTHONPATH].filter(Boolean).join(path.delimiter);
  return spawn(config.pythonPath, ['-u', '-m', module, ...args], {
    cwd: engineDir,
    // strict (tests): the engine also checks each result against its kind's declaration (mitate_engine/job_kinds.py)
    env: { ...inherited, PYTHONPATH: pythonPath, PYTHONUNBUFFERED: '1', PYTHONIOENCODING: 'utf-8', ...(config.strictResponses ? { MITATE_STRICT_RESULTS: '1' } : {}) },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
}

export function eachLine(stream: NodeJS.ReadableStream, onLine: (line: string) => void): void {
  const rl = readline.createInterface({ input: stream, crlfDelay: Infinity });
  rl.on('line', onLine);
}

/** Delay before starting a worker again after `streak` deaths in a row: 0, 0, 1 s, 2 s, 4 s ... 30 s. */
export function respawnDelayMs(streak: number): number {
  return streak <= 1 ? 0 : Math.min(30_000, 1000 * 2 ** (streak - 2));
}

/** Sends SIGTERM, then SIGKILL if the process has not gone after `graceMs`; resolves when it has exited
 * and its output is read to the end. */
export function stopProcess(proc: ChildProcess, graceMs: number, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (proc.pid === undefined || proc.exitCode !== null || proc.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(() => proc.kill('SIGKILL'), graceMs);
    proc.once('close', () => {
      clearTimeout(timer);
      resolve();
    });
    proc.kill(signal);
  });
}
