import fs from 'node:fs';

/**
 * Crash tests only: with MITATE_TEST_HOLD_FILE set and that file listing `server:<point>`, the request stops at that
 * point (after the files are committed, before the row is written, say) until the line is gone, so a test can kill the
 * server exactly there. Without the setting (config.testHoldFile) this returns at once.
 */
export async function testHold(file: string | undefined, point: string, log?: (msg: string) => void): Promise<void> {
  if (!file) return;
  const listed = () => {
    try {
      return fs.readFileSync(file, 'utf8').split(/\s+/).includes(`server:${point}`);
    } catch {
      return false;
    }
  };
  if (!listed()) return;
  const line = `[test hold] server:${point} pid ${process.pid}`;
  log?.(line);
  fs.appendFileSync(`${file}.held`, line + '\n'); // what the test waits for
  while (listed()) await new Promise((r) => setTimeout(r, 50));
}
