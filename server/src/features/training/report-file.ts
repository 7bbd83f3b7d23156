import type { Lang } from '../../i18n/messages.js';
import { embedReportFont, renderHtml, renderPdf } from '../../pdf/index.js';
import { type ReportInput, trainingReportPdf } from './report-pdf.js';

/** A model's report as a file: one document (report-pdf.ts) in `lang`, written as self-contained HTML or as PDF. */
export async function reportFile(view: ReportInput, lang: Lang, format: 'html' | 'pdf'): Promise<{ name: string; type: string; body: string | Buffer }> {
  const doc = trainingReportPdf(view, lang);
  const name = `${view.project.name}-${view.model.model_key}-report.${format}`;
  if (format === 'pdf') return { name, type: 'application/pdf', body: await renderPdf(doc) };
  return { name, type: 'text/html; charset=utf-8', body: await embedReportFont(renderHtml(doc)) };
}
