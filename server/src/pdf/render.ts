import PDFDocument from 'pdfkit';
import SVGtoPDF from 'svg-to-pdfkit';
import { fonts } from './fonts.js';
import { defaultPageLabel, type PdfBlock, type PdfDocument, type PdfTableColumn } from './document.js';

type Doc = PDFKit.PDFDocument;

const REGULAR = 'NotoSansJP';
const BOLD = 'NotoSansJP-Bold';

const COLOR = { text: '#1f2328', muted: '#57606a', warning: '#9a3412', rule: '#d0d7de', headFill: '#eef2f7', zebra: '#f7f9fb' };

const MARGIN = { top: 64, bottom: 60, left: 50, right: 50 };

/** Renders the document model to the bytes of a PDF (A4, Japanese and Latin text, page numbers). */
export async function renderPdf(model: PdfDocument): Promise<Buffer> {
  const f = fonts();
  const doc = new PDFDocument({
    size: 'A4',
    margins: MARGIN,
    bufferPages: true,
    autoFirstPage: true,
    lang: model.language === 'ja' ? 'ja-JP' : 'en-US',
    displayTitle: true,
    info: { Title: model.title, Author: model.author ?? 'Mitate', Subject: model.subject ?? model.title, Creator: 'Mitate' },
  });
  const chunks: Buffer[] = [];
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('data', (c: Buffer) => chunks.push(c));
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  doc.registerFont(REGULAR, f.regular);
  doc.registerFont(BOLD, f.bold);
  doc.font(REGULAR).fillColor(COLOR.text);

  drawTitle(doc, model);
  for (const block of model.blocks) drawBlock(doc, block);
  drawRunningHeads(doc, model);
  doc.end();
  return done;
}

function contentWidth(doc: Doc): number {
  return doc.page.width - doc.page.margins.left - doc.page.margins.right;
}

function bottomLimit(doc: Doc): number {
  return doc.page.height - doc.page.margins.bottom;
}

/** Starts a new page unless `height` points still fit on this one. */
function ensureSpace(doc: Doc, height: number): void {
  if (doc.y + height > bottomLimit(doc)) {
    doc.addPage();
    doc.x = doc.page.margins.left;
  }
}

function drawTitle(doc: Doc, model: PdfDocument): void {
  const x = doc.page.margins.left;
  doc.font(BOLD).fontSize(20).fillColor(COLOR.text).text(model.title, x, doc.y, { width: contentWidth(doc) });
  if (model.subtitle) {
    doc.moveDown(0.2);
    doc.font(REGULAR).fontSize(10).fillColor(COLOR.muted).text(model.subtitle, x, doc.y, { width: contentWidth(doc) });
  }
  doc.moveDown(0.4);
  rule(doc);
  doc.moveDown(0.6);
  doc.fillColor(COLOR.text);
}

function rule(doc: Doc): void {
  const y = doc.y;
  doc
    .save()
    .moveTo(doc.page.margins.left, y)
    .lineTo(doc.page.width - doc.page.margins.right, y)
    .lineWidth(0.7)
    .strokeColor(COLOR.rule)
    .stroke()
    .restore();
}

function drawBlock(doc: Doc, block: PdfBlock): void {
  const x = doc.page.margins.left;
  const width = contentWidth(doc);
  switch (block.kind) {
    case 'heading': {
      const size = block.level === 3 ? 10.5 : block.level === 2 ? 12.5 : 15;
      doc.font(BOLD).fontSize(size);
      // Keep a heading with at least a few lines of what follows it.
      ensureSpace(doc, doc.heightOfString(block.text, { width }) + 60);
      doc.moveDown(block.level === 1 || !block.level ? 0.6 : 0.4);
      doc.fillColor(COLOR.text).text(block.text, x, doc.y, { width });
      doc.moveDown(0.3);
      break;
    }
    case 'paragraph': {
      doc.font(block.bold ? BOLD : REGULAR).fontSize(9.5);
      doc.fillColor(block.tone === 'muted' ? COLOR.muted : block.tone === 'warning' ? COLOR.warning : COLOR.text);
      doc.text(block.text, x, doc.y, { width, lineGap: 2 });
      doc.fillColor(COLOR.text);
      doc.moveDown(0.4);
      break;
    }
    case 'bullets': {
      doc.font(REGULAR).fontSize(9.5).fillColor(COLOR.text);
      for (const item of block.items) {
        const h = doc.heightOfString(item, { width: width - 12, lineGap: 2 });
        ensureSpace(doc, Math.min(h, 40));
        const y = doc.y;
        doc.text('•', x, y, { width: 10, lineBreak: false });
        doc.text(item, x + 12, y, { width: width - 12, lineGap: 2 });
      }
      doc.x = x;
      doc.moveDown(0.4);
      break;
    }
    case 'keyValue':
      drawTable(
        doc,
        [
          { label: '', weight: 2 },
          { label: '', weight: 3 },
        ],
        block.rows.map((r) => [r.label, r.value]),
        { fontSize: 9, header: false, boldColumn: 0 },
      );
      break;
    case 'table':
      drawTable(doc, block.columns, block.rows, {
        fontSize: block.fontSize ?? 8.5,
        header: true,
        emphasisRows: new Set(block.emphasisRows ?? []),
      });
      break;
    case 'image':
      drawImage(doc, block);
      break;
    case 'spacer':
      doc.y += block.height ?? 10;
      break;
    case 'pageBreak':
      doc.addPage();
      break;
  }
}

interface TableOptions {
  fontSize: number;
  header: boolean;
  emphasisRows?: Set<number>;
  boldColumn?: number;
}

const PAD = 3.5;

function columnWidths(doc: Doc, columns: PdfTableColumn[], rows: string[][], total: number, fontSize: number): number[] {
  if (columns.some((c) => c.weight)) {
    const sum = columns.reduce((s, c) => s + (c.weight ?? 1), 0);
    return columns.map((c) => ((c.weight ?? 1) / sum) * total);
  }
  // Widths follow the content: the widest cell (capped) of each column, then scaled to the text width.
  const natural = columns.map((c, i) => {
    doc.font(BOLD).fontSize(fontSize);
    let w = Math.min(doc.widthOfString(c.label), 140);
    doc.font(REGULAR).fontSize(fontSize);
    for (const row of rows.slice(0, 200)) w = Math.max(w, Math.min(doc.widthOfString(row[i] ?? ''), 180));
    return w + 2 * PAD + 2;
  });
  const sum = natural.reduce((s, w) => s + w, 0);
  if (sum <= total) return natural.map((w) => w + (total - sum) / natural.length);
  // Too wide: every column shrinks in proportion, but none below a readable minimum.
  const min = Math.min(36, total / columns.length);
  const scaled = natural.map((w) => Math.max(min, (w / sum) * total));
  const scaledSum = scaled.reduce((s, w) => s + w, 0);
  return scaled.map((w) => (w / scaledSum) * total);
}

function drawTable(doc: Doc, columns: PdfTableColumn[], rows: string[][], opts: TableOptions): void {
  const x0 = doc.page.margins.left;
  const total = contentWidth(doc);
  const widths = columnWidths(doc, columns, rows, total, opts.fontSize);

  const rowHeight = (cells: string[], bold: boolean | ((i: number) => boolean)): number => {
    let h = 0;
    cells.forEach((cell, i) => {
      const isBold = typeof bold === 'function' ? bold(i) : bold;
      doc.font(isBold ? BOLD : REGULAR).fontSize(opts.fontSize);
      h = Math.max(h, doc.heightOfString(cell || ' ', { width: widths[i]! - 2 * PAD }));
    });
    return h + 2 * PAD;
  };

  const drawRow = (cells: string[], y: number, h: number, kind: 'head' | 'body', index: number): void => {
    if (kind === 'head') doc.save().rect(x0, y, total, h).fill(COLOR.headFill).restore();
    else if (index % 2 === 1) doc.save().rect(x0, y, total, h).fill(COLOR.zebra).restore();
    let x = x0;
    cells.forEach((cell, i) => {
      const bold = kind === 'head' || opts.emphasisRows?.has(index) || opts.boldColumn === i;
      doc
        .font(bold ? BOLD : REGULAR)
        .fontSize(opts.fontSize)
        .fillColor(opts.boldColumn === i ? COLOR.muted : COLOR.text);
      doc.text(cell, x + PAD, y + PAD, { width: widths[i]! - 2 * PAD, align: columns[i]?.align ?? 'left' });
      x += widths[i]!;
    });
    doc
      .save()
      .moveTo(x0, y + h)
      .lineTo(x0 + total, y + h)
      .lineWidth(0.4)
      .strokeColor(COLOR.rule)
      .stroke()
      .restore();
    doc.fillColor(COLOR.text);
  };

  const headCells = columns.map((c) => c.label);
  const headHeight = opts.header ? rowHeight(headCells, true) : 0;
  const drawHead = (): void => {
    if (!opts.header) return;
    const y = doc.y;
    drawRow(headCells, y, headHeight, 'head', -1);
    doc.y = y + headHeight;
  };

  const first = rows.length ? rowHeight(rows[0]!, (i) => opts.boldColumn === i || !!opts.emphasisRows?.has(0)) : 0;
  ensureSpace(doc, headHeight + first);
  drawHead();
  rows.forEach((cells, index) => {
    const padded = columns.map((_, i) => cells[i] ?? '');
    const h = rowHeight(padded, (i) => opts.boldColumn === i || !!opts.emphasisRows?.has(index));
    if (doc.y + h > bottomLimit(doc)) {
      doc.addPage();
      drawHead();
    }
    const y = doc.y;
    drawRow(padded, y, h, 'body', index);
    doc.y = y + h;
  });
  doc.x = x0;
  doc.moveDown(0.6);
}

function svgSize(svg: string): { width: number; height: number } {
  const attr = (name: string): number | undefined => {
    const m = new RegExp(`<svg[^>]*\\s${name}="([\\d.]+)(px|pt)?"`, 'i').exec(svg);
    return m ? Number(m[1]) : undefined;
  };
  const viewBox = /<svg[^>]*\sviewBox="\s*[-\d.]+[\s,]+[-\d.]+[\s,]+([\d.]+)[\s,]+([\d.]+)\s*"/i.exec(svg);
  const width = attr('width') ?? (viewBox ? Number(viewBox[1]) : 400);
  const height = attr('height') ?? (viewBox ? Number(viewBox[2]) : 300);
  return { width, height };
}

function drawImage(doc: Doc, block: Extract<PdfBlock, { kind: 'image' }>): void {
  const x = doc.page.margins.left;
  const maxWidth = contentWidth(doc);
  const usable = bottomLimit(doc) - doc.page.margins.top;
  let natural: { width: number; height: number };
  if (block.format === 'svg') natural = svgSize(String(block.data));
  else {
    // openImage is pdfkit's own (cached) image reader; @types/pdfkit does not list it.
    const img = (doc as unknown as { openImage(data: Buffer): { width: number; height: number } }).openImage(block.data as Buffer);
    natural = { width: img.width, height: img.height };
  }
  let width = Math.min(block.width ?? maxWidth, maxWidth);
  let height = (natural.height / natural.width) * width;
  if (height > usable * 0.9) {
    height = usable * 0.9;
    width = (natural.width / natural.height) * height;
  }
  doc.font(REGULAR).fontSize(8.5);
  const captionHeight = block.caption ? doc.heightOfString(block.caption, { width: maxWidth }) + 4 : 0;
  ensureSpace(doc, height + captionHeight + 4);
  const left = x + (maxWidth - width) / 2;
  const y = doc.y;
  if (block.format === 'svg') {
    SVGtoPDF(doc as unknown as Parameters<typeof SVGtoPDF>[0], String(block.data), left, y, {
      width,
      height,
      preserveAspectRatio: 'xMidYMid meet',
      fontCallback: (_family, bold) => (bold ? BOLD : REGULAR),
    });
  } else {
    doc.image(block.data as Buffer, left, y, { width, height });
  }
  doc.y = y + height + 4;
  if (block.caption) {
    doc.fillColor(COLOR.muted).text(block.caption, x, doc.y, { width: maxWidth, align: 'center' });
    doc.fillColor(COLOR.text);
  }
  doc.x = x;
  doc.moveDown(0.6);
}

function drawRunningHeads(doc: Doc, model: PdfDocument): void {
  const label = model.pageLabel ?? defaultPageLabel(model.language);
  const range = doc.bufferedPageRange();
  const pages = range.count;
  for (let i = 0; i < pages; i++) {
    doc.switchToPage(range.start + i);
    // Writing inside the margins would otherwise make pdfkit start a new page.
    const { top, bottom } = doc.page.margins;
    doc.page.margins.top = 0;
    doc.page.margins.bottom = 0;
    const left = MARGIN.left;
    const width = doc.page.width - MARGIN.left - MARGIN.right;
    doc.font(REGULAR).fontSize(7.5).fillColor(COLOR.muted);
    const headY = 30;
    doc.text(model.title, left, headY, { width: width * 0.6, lineBreak: false, ellipsis: true });
    if (model.header) doc.text(model.header, left + width * 0.6, headY, { width: width * 0.4, align: 'right', lineBreak: false, ellipsis: true });
    doc
      .save()
      .moveTo(left, headY + 13)
      .lineTo(left + width, headY + 13)
      .lineWidth(0.5)
      .strokeColor(COLOR.rule)
      .stroke()
      .restore();
    const footY = doc.page.height - 38;
    if (model.footer) doc.text(model.footer, left, footY, { width: width * 0.7, lineBreak: false, ellipsis: true });
    doc.text(label(i + 1, pages), left + width * 0.7, footY, { width: width * 0.3, align: 'right', lineBreak: false });
    doc.page.margins.top = top;
    doc.page.margins.bottom = bottom;
  }
  doc.fillColor(COLOR.text);
}
