/**
 * The same document model as the PDF, written as one self-contained HTML file (no script, no network: charts are
 * inline SVG, pictures data URIs), so a report downloaded as HTML says what its PDF says, in the same language.
 */
import type { PdfBlock, PdfDocument } from './document.js';

const esc = (s: string) => s.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

const STYLE = `body{font-family:"Noto Sans JP","Hiragino Sans","Yu Gothic",system-ui,sans-serif;max-width:60rem;margin:2rem auto;padding:0 1rem;color:#222;line-height:1.5}
header{border-bottom:1px solid #ccc;margin-bottom:1rem}header p{color:#666;margin-top:0}
h1{font-size:1.6rem;margin-bottom:.2rem}h2{font-size:1.25rem;margin-top:2rem;border-bottom:1px solid #eee}h3,h4{font-size:1.05rem}
table{border-collapse:collapse;margin:.5rem 0 1rem;font-size:.9rem}th,td{border:1px solid #ddd;padding:.25rem .5rem;vertical-align:top}
th{background:#f5f5f5;text-align:left}tr.em td{font-weight:bold}td.right,th.right{text-align:right}td.center,th.center{text-align:center}
.muted{color:#666}.warning{color:#8a4b00;background:#fff4e5;padding:.4rem .6rem;border-left:3px solid #ed6c02}
figure{margin:1rem 0}figcaption{color:#555;font-size:.9rem}svg,img{max-width:100%;height:auto}
footer{margin-top:2rem;border-top:1px solid #ccc;color:#666;font-size:.85rem}`;

function block(b: PdfBlock): string {
  switch (b.kind) {
    case 'heading': {
      const tag = `h${(b.level ?? 1) + 1}`;
      return `<${tag}>${esc(b.text)}</${tag}>`;
    }
    case 'paragraph': {
      const text = b.bold ? `<strong>${esc(b.text)}</strong>` : esc(b.text);
      return b.tone && b.tone !== 'normal' ? `<p class="${b.tone}">${text}</p>` : `<p>${text}</p>`;
    }
    case 'bullets':
      return `<ul>${b.items.map((i) => `<li>${esc(i)}</li>`).join('')}</ul>`;
    case 'keyValue':
      return `<table>${b.rows.map((r) => `<tr><th>${esc(r.label)}</th><td>${esc(r.value)}</td></tr>`).join('')}</table>`;
    case 'table': {
      const cls = (i: number) => (b.columns[i]?.align && b.columns[i].align !== 'left' ? ` class="${b.columns[i].align}"` : '');
      const head = `<tr>${b.columns.map((c, i) => `<th${cls(i)}>${esc(c.label)}</th>`).join('')}</tr>`;
      const emphasis = new Set(b.emphasisRows ?? []);
      const rows = b.rows.map((r, j) => `<tr${emphasis.has(j) ? ' class="em"' : ''}>${r.map((v, i) => `<td${cls(i)}>${esc(v)}</td>`).join('')}</tr>`);
      return `<table><thead>${head}</thead><tbody>${rows.join('')}</tbody></table>`;
    }
    case 'image': {
      const caption = b.caption ? `<figcaption>${esc(b.caption)}</figcaption>` : '';
      // The SVGs are the server's own charts (server/src/pdf/charts.ts), drawn from numbers, never from user markup.
      const body = b.format === 'svg' ? String(b.data) : `<img alt="${esc(b.caption ?? '')}" src="data:image/${b.format};base64,${Buffer.from(b.data).toString('base64')}">`;
      return `<figure>${body}${caption}</figure>`;
    }
    case 'spacer':
      return '';
    case 'pageBreak':
      return '<hr>';
  }
}

export function renderHtml(doc: PdfDocument): string {
  const subtitle = doc.subtitle ? `<p>${esc(doc.subtitle)}</p>` : '';
  const footer = doc.footer ? `<footer>${esc(doc.footer)}</footer>` : '';
  return (
    `<!doctype html>\n<html lang="${doc.language}"><head><meta charset="utf-8"><title>${esc(doc.title)}</title>` +
    `<meta name="viewport" content="width=device-width, initial-scale=1"><style>${STYLE}</style></head>` +
    `<body><header><h1>${esc(doc.title)}</h1>${subtitle}</header>${doc.blocks.map(block).join('\n')}${footer}</body></html>\n`
  );
}
