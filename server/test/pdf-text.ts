import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/**
 * The text of a PDF as poppler's pdftotext reads it (poppler-utils; .ci/run installs it), one string per page.
 * Tests read a generated PDF back with this rather than trusting the renderer's input.
 */
export function pdfPages(pdf: Buffer): string[] {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-pdf-'));
  try {
    const file = path.join(dir, 'doc.pdf');
    fs.writeFileSync(file, pdf);
    const text = execFileSync('pdftotext', ['-layout', '-enc', 'UTF-8', file, '-'], { encoding: 'utf8' });
    const pages = text.split('\f');
    if (pages.at(-1)?.trim() === '') pages.pop();
    return pages;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** pdfinfo's fields (Pages, Title, Page size, …). */
export function pdfInfo(pdf: Buffer): Record<string, string> {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mitate-pdf-'));
  try {
    const file = path.join(dir, 'doc.pdf');
    fs.writeFileSync(file, pdf);
    const out = execFileSync('pdfinfo', ['-enc', 'UTF-8', file], { encoding: 'utf8' });
    return Object.fromEntries(
      out
        .split('\n')
        .filter((l) => l.includes(':'))
        .map((l) => [l.slice(0, l.indexOf(':')).trim(), l.slice(l.indexOf(':') + 1).trim()]),
    );
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
