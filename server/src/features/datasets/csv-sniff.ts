import iconv from 'iconv-lite';
import type { MessageKey } from '../../i18n/messages.js';
import { detectDelimiter, leadingRecords, splitRecord } from '@mitate/rules';

/**
 * Widest table accepted. DuckDB's CSV reader keeps a 2,048-row vector per column (about 200 KB per text
 * column), so 3,000 text columns convert within the default 768 MB cap and 4,000 do not; wider files are
 * refused before any work with a message naming this limit.
 */
export const MAX_COLUMNS = 3_000;
export const MAX_HEADER_BYTES = 1 << 20;

export type Encoding = 'utf-8' | 'utf-8-sig' | 'cp932';

export interface Sniffed {
  encoding: Encoding;
  delimiter: string;
  header: string[];
}

export class SniffError extends Error {
  constructor(
    public key: MessageKey,
    public params: Record<string, string | number> = {},
  ) {
    super(key);
  }
}

/** True when the bytes are valid UTF-8, ignoring a character cut off at the end of the sample. */
export function isUtf8(bytes: Buffer, truncated: boolean): boolean {
  let end = bytes.length;
  if (truncated) {
    // Step back over a multi-byte sequence that the sample cut in two.
    let i = end - 1;
    while (i >= 0 && end - i <= 3 && (bytes[i] & 0xc0) === 0x80) i--;
    if (i >= 0 && bytes[i] >= 0xc0) end = i;
  }
  try {
    new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, end));
    return true;
  } catch {
    return false;
  }
}

/**
 * Looks at the first bytes of an upload: rejects what is plainly not a CSV and finds the encoding
 * (UTF-8 with or without BOM, else Shift_JIS/CP932 as Japanese Excel writes), the delimiter and the header.
 */
export function sniffCsv(sample: Buffer, fileSize: number): Sniffed {
  const truncated = sample.length < fileSize;
  let body = sample;
  let encoding: Encoding = 'utf-8';
  if (sample[0] === 0xef && sample[1] === 0xbb && sample[2] === 0xbf) {
    encoding = 'utf-8-sig';
    body = sample.subarray(3);
  }
  if (body.toString('latin1').trim().length === 0) throw new SniffError('csv_empty');
  if (body.subarray(0, 65536).includes(0)) throw new SniffError('csv_binary');
  if (encoding === 'utf-8' && !isUtf8(body, truncated)) encoding = 'cp932';
  const text = encoding === 'cp932' ? iconv.decode(body, 'cp932') : body.toString('utf8');
  const { records, complete } = leadingRecords(text, 50);
  if (!complete && truncated) throw new SniffError('csv_line_too_long', { max: '1 MB' });
  const nonEmpty = records.filter((r) => r.trim().length > 0);
  if (nonEmpty.length === 0) throw new SniffError('csv_empty');
  if (nonEmpty.length === 1 && !truncated) throw new SniffError('csv_header_only');
  const delimiter = detectDelimiter(nonEmpty);
  const header = splitRecord(nonEmpty[0], delimiter).map((h) => h.trim());
  if (header.length > MAX_COLUMNS) throw new SniffError('csv_too_many_columns', { count: header.length, max: MAX_COLUMNS });
  return { encoding, delimiter, header };
}
