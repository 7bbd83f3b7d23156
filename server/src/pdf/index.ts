export type { PdfBlock, PdfDocument } from './document.js';
export { renderPdf } from './render.js';
export { renderHtml } from './html.js';
export { embedReportFont } from './html-font.js';
