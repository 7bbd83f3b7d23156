/**
 * The app's font stacks: every place that names a font family (the MUI theme, component styles, chart options)
 * uses these, so none can put the shipped face in the wrong place again.
 *
 * The shipped Noto Sans JP (web/src/main.tsx; variable, weights 100–900, fetched per unicode-range subset) comes
 * first. Listed after a system family or a generic one, Chromium on a machine without a Japanese font draws the
 * characters of subsets not yet loaded with the Latin font it resolved (Arial → Liberation Sans, sans-serif →
 * DejaVu) and they stay boxes (issue 33). The system faces after it only cover what it lacks; the generic is last.
 */
export const SHIPPED_JAPANESE_FONT = '"Noto Sans JP Variable"';

export const FONT_STACK = [
  SHIPPED_JAPANESE_FONT,
  'Inter',
  '"Segoe UI"',
  'Roboto',
  '"Helvetica Neue"',
  'Arial',
  '"Hiragino Kaku Gothic ProN"',
  '"Hiragino Sans"',
  '"Noto Sans CJK JP"',
  '"Yu Gothic UI"',
  'Meiryo',
  'sans-serif',
].join(', ');

/** Identifiers, paths and key prefixes: a monospaced system face for Latin, the shipped face before the generic
 * for any Japanese among them. */
export const MONO_FONT_STACK = ['ui-monospace', 'SFMono-Regular', 'Menlo', 'Consolas', '"DejaVu Sans Mono"', '"Liberation Mono"', SHIPPED_JAPANESE_FONT, 'monospace'].join(', ');
