import Paper from '@mui/material/Paper';
import Table from '@mui/material/Table';
import TableBody from '@mui/material/TableBody';
import TableCell from '@mui/material/TableCell';
import TableHead from '@mui/material/TableHead';
import TableRow from '@mui/material/TableRow';
import Typography from '@mui/material/Typography';
import { useTranslation } from 'react-i18next';
import type { ImageModelView, PlatformProject } from './api';
import { NS } from './common';
import { openApiHead } from './openapiHead';

const mib = (bytes: number) => `${Math.round((bytes / 1024 / 1024) * 10) / 10} MiB`;
const formats = (v: ImageModelView) => v.formats.map((f) => f.toUpperCase()).join(', ');

/** curl, Python and an OpenAPI excerpt for an image model's API: one image per request (multipart or base64 JSON). */
export function imageExamples(p: PlatformProject, v: ImageModelView, comments: { json: string }) {
  const outputs = v.kind === 'analysis' ? 'predicted (OK or NG), score, threshold' : `predicted (${v.classes.join(', ')}), score, probabilities`;
  return {
    curl: [
      `curl -X POST '${p.endpoint}' \\`,
      '  -H "X-API-Key: $MITATE_API_KEY" \\',
      '  -F image=@part.png \\',
      '  -F heatmap=true',
      '',
      `# ${comments.json}`,
      `curl -X POST '${p.endpoint}' \\`,
      '  -H "X-API-Key: $MITATE_API_KEY" \\',
      "  -H 'Content-Type: application/json' \\",
      '  -d "{\\"image\\": \\"$(base64 -w0 part.png)\\"}"',
    ].join('\n'),
    python: [
      'import base64, os, requests',
      '',
      'with open("part.png", "rb") as f:',
      '    res = requests.post(',
      `        "${p.endpoint}",`,
      '        headers={"X-API-Key": os.environ["MITATE_API_KEY"]},',
      '        files={"image": ("part.png", f, "image/png")},',
      '        data={"heatmap": "true"},',
      '        timeout=10,',
      '    )',
      'res.raise_for_status()',
      'answer = res.json()["detail"]["response"]',
      `print(answer["predicted"], answer["score"]${v.kind === 'analysis' ? ', answer["threshold"]' : ''})`,
      'if answer.get("heatmap_png"):',
      '    with open("heatmap.png", "wb") as out:',
      '        out.write(base64.b64decode(answer["heatmap_png"]))',
    ].join('\n'),
    openapi: [
      ...openApiHead(p),
      '      parameters:',
      '        - { name: heatmap, in: query, schema: { type: string, enum: ["true", "false"] } }',
      '      requestBody:',
      '        content:',
      '          multipart/form-data:',
      '            schema:',
      '              type: object',
      '              required: [image]',
      '              properties:',
      `                image: { type: string, format: binary, description: '${formats(v)}, at most ${mib(v.max_bytes)}' }`,
      "                heatmap: { type: string, enum: ['true', 'false'] }",
      '          application/json:',
      '            schema:',
      '              type: object',
      '              required: [image]',
      '              properties:',
      '                image: { type: string, description: the image file as base64 }',
      '                heatmap: { type: boolean }',
      '      responses:',
      `        '200': { description: 'detail.response: kind, ${outputs}, heatmap_png (base64, when asked)' }`,
      `        '413': { description: 'image_too_large or image_too_many_pixels' }`,
      `        '422': { description: 'image_missing, image_not_image, image_format_unsupported, image_not_base64, image_unreadable (detail[0].type)' }`,
      `        '401': { description: 'missing, wrong or revoked key' }`,
      `        '429': { description: 'rate limit (Retry-After)' }`,
      `        '503': { description: 'the API is stopped or busy' }`,
    ].join('\n'),
  };
}

/** What an image model's API takes and answers, field by field, in the reader's language. */
export default function ImageRequestPanel({ image: v }: { image: ImageModelView }) {
  const { t } = useTranslation(NS);
  const analysis = v.kind === 'analysis';
  const rows = (list: [string, string, string][]) =>
    list.map(([name, type, what]) => (
      <TableRow key={name}>
        <TableCell>
          <code>{name}</code>
        </TableCell>
        <TableCell>{type}</TableCell>
        <TableCell>{what}</TableCell>
      </TableRow>
    ));
  const head = (
    <TableHead>
      <TableRow>
        <TableCell>{t('image.field')}</TableCell>
        <TableCell>{t('image.type')}</TableCell>
        <TableCell>{t('image.meaning')}</TableCell>
      </TableRow>
    </TableHead>
  );
  return (
    <Paper variant="outlined" sx={{ p: 2, mb: 2 }} data-testid="image-request">
      <Typography variant="h6" component="h2" sx={{ mb: 1 }}>
        {t('image.title')}
      </Typography>
      <Typography variant="body2" sx={{ mb: 1 }}>
        {t('image.intro', { formats: formats(v), size: mib(v.max_bytes), side: v.image_size })}
      </Typography>
      <Typography variant="subtitle2" component="h3">
        {t('image.request')}
      </Typography>
      <Table size="small" sx={{ mb: 2 }}>
        {head}
        <TableBody>
          {rows([
            ['image', t('image.fileType'), t('image.imageField', { formats: formats(v), size: mib(v.max_bytes) })],
            ['heatmap', 'boolean', t('image.heatmapField')],
          ])}
        </TableBody>
      </Table>
      <Typography variant="subtitle2" component="h3">
        {t('image.answer')}
      </Typography>
      <Table size="small">
        {head}
        <TableBody>
          {rows([
            ['predicted', 'string', analysis ? t('image.predictedOkNg') : t('image.predictedClass', { classes: v.classes.join(', ') })],
            ['score', 'number', analysis ? t('image.scoreOkNg') : t('image.scoreClass')],
            ['threshold', analysis ? 'number' : 'null', analysis ? t('image.threshold', { value: v.threshold === null ? '—' : String(Number(v.threshold.toPrecision(6))) }) : t('image.noThreshold')],
            ['probabilities', analysis ? 'object | null' : 'object', t('image.probabilities')],
            ['heatmap_png', 'string (base64 PNG)', t('image.heatmapAnswer')],
          ])}
        </TableBody>
      </Table>
    </Paper>
  );
}
