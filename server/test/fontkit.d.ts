// fontkit (pdfkit's font reader) ships no types: what the report-font test reads.
declare module 'fontkit' {
  export function create(data: Buffer): { hasGlyphForCodePoint(codePoint: number): boolean; familyName: string };
}
