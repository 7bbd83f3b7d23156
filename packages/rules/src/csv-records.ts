/**
 * The CSV record rules shared by the server's sniffing of an upload and the browser's look at a file before upload
 * (web/src/features/datasets/csvHeader.ts), so both read a header the same way.
 * Pure string functions: no Node or browser API.
 */

/** Splits one CSV record on the delimiter, honouring double-quoted fields with "" escapes. */
export function splitRecord(line: string, delim: string): string[] {
  const out: string[] = [];
  let cur = '';
  let quoted = false;
  for (let i = 0; i < line.length; i++) {
    const ch = line[i];
    if (quoted) {
      if (ch === '"') {
        if (line[i + 1] === '"') {
          cur += '"';
          i++;
        } else quoted = false;
      } else cur += ch;
    } else if (ch === '"') quoted = true;
    else if (ch === delim) {
      out.push(cur);
      cur = '';
    } else cur += ch;
  }
  out.push(cur);
  return out;
}

/**
 * The first logical records (a newline inside quotes does not end a record); `complete` is false when no record
 * ended within the text (a header longer than the sample).
 */
export function leadingRecords(text: string, max: number): { records: string[]; complete: boolean } {
  const records: string[] = [];
  let quoted = false;
  let start = 0;
  for (let i = 0; i < text.length && records.length < max; i++) {
    const ch = text[i];
    if (ch === '"') quoted = !quoted;
    else if (ch === '\n' && !quoted) {
      records.push(text.slice(start, i).replace(/\r$/, ''));
      start = i + 1;
    }
  }
  const complete = records.length > 0;
  if (records.length < max && start < text.length) records.push(text.slice(start).replace(/\r$/, ''));
  return { records, complete };
}

const CANDIDATES = [',', ';', '\t', '|'];

/** The delimiter that splits the header most, consistently over the first rows. */
export function detectDelimiter(records: string[]): string {
  let best = ',';
  let bestScore = 0;
  for (const d of CANDIDATES) {
    const counts = records.slice(0, 20).map((r) => splitRecord(r, d).length - 1);
    const header = counts[0] ?? 0;
    if (header === 0) continue;
    const consistent = counts.filter((c) => c === header).length;
    const score = header * (consistent / counts.length);
    if (score > bestScore) {
      best = d;
      bestScore = score;
    }
  }
  return best;
}
