export type { PdfBlock, PdfDocument, PdfLanguage, PdfTableColumn } from './document.js';
export { defaultPageLabel } from './document.js';
export { renderPdf } from './render.js';
export { renderHtml } from './html.js';
export { embedReportFont } from './html-font.js';
