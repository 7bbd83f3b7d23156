/**
 * The document model the shared PDF renderer draws: a title, then blocks in reading order. Areas (training reports,
 * invoices, …) build one of these from their data and hand it to renderPdf(); none of them draws on a page itself.
 */

export type PdfLanguage = 'en' | 'ja';

export interface PdfTableColumn {
  label: string;
  /** Numbers read best right-aligned. Default left. */
  align?: 'left' | 'right' | 'center';
  /** Relative width; when no column has one, widths follow the content. */
  weight?: number;
}

export type PdfBlock =
  | { kind: 'heading'; text: string; level?: 1 | 2 | 3 }
  | { kind: 'paragraph'; text: string; tone?: 'normal' | 'muted' | 'warning'; bold?: boolean }
  | { kind: 'bullets'; items: string[] }
  /** Label → value pairs (settings, invoice details). */
  | { kind: 'keyValue'; rows: Array<{ label: string; value: string }> }
  /** A data table; long tables continue on the next page with the header row repeated. */
  | {
      kind: 'table';
      columns: PdfTableColumn[];
      rows: string[][];
      /** Rows drawn in bold (e.g. the chosen model, a total). */
      emphasisRows?: number[];
      fontSize?: number;
    }
  /** A PNG/JPEG (Buffer) or an SVG (string, drawn as vectors). width in points; default the text width. */
  | {
      kind: 'image';
      format: 'png' | 'jpeg' | 'svg';
      data: Buffer | string;
      width?: number;
      caption?: string;
    }
  | { kind: 'spacer'; height?: number }
  | { kind: 'pageBreak' };

export interface PdfDocument {
  title: string;
  subtitle?: string;
  /** Decides the default page label ("Page 2 of 5" / "2 / 5 ページ") and the PDF's language tag. */
  language: PdfLanguage;
  /** Running header (right side; the title is on the left). */
  header?: string;
  /** Running footer (left side; the page number is on the right). */
  footer?: string;
  /** Overrides the page label. */
  pageLabel?: (page: number, pages: number) => string;
  author?: string;
  subject?: string;
  blocks: PdfBlock[];
}

export function defaultPageLabel(language: PdfLanguage): (page: number, pages: number) => string {
  return language === 'ja' ? (p, n) => `${p} / ${n} ページ` : (p, n) => `Page ${p} of ${n}`;
}
