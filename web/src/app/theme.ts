import { createTheme } from '@mui/material/styles';
import { enUS as coreEn, jaJP as coreJa } from '@mui/material/locale';
import type {} from '@mui/x-data-grid/themeAugmentation';
import { FONT_STACK, MONO_FONT_STACK } from '../lib/fonts';

/**
 * Calm, dense enterprise theme with a light and a dark scheme (the user's 'dark theme' setting switches them at
 * once through useColorScheme). The DataGrid's own locale is applied where the grid is used.
 */
export function createAppTheme(lang: 'en' | 'ja') {
  return createTheme(
    {
      cssVariables: { colorSchemeSelector: 'data-mitate-scheme' },
      defaultColorScheme: 'light',
      colorSchemes: {
        light: {
          palette: {
            primary: { main: '#1f5f8b', light: '#4d87b3', dark: '#154566', contrastText: '#ffffff' },
            secondary: { main: '#2f7d6d' },
            background: { default: '#f4f6f9', paper: '#ffffff' },
            text: { primary: '#1d2733', secondary: '#5b6775' },
            divider: '#e1e6ed',
          },
        },
        dark: {
          palette: {
            primary: { main: '#6fa8d6', light: '#9cc5e6', dark: '#3f7fb0', contrastText: '#0d1620' },
            secondary: { main: '#5fb8a4' },
            background: { default: '#0f161e', paper: '#16212c' },
            text: { primary: '#e3e9f0', secondary: '#9aa8b7' },
            divider: '#2a3846',
          },
        },
      },
      shape: { borderRadius: 6 },
      typography: {
        fontFamily: FONT_STACK,
        fontSize: 13,
        h4: { fontSize: '1.6rem', fontWeight: 600 },
        h5: { fontSize: '1.3rem', fontWeight: 600 },
        h6: { fontSize: '1.05rem', fontWeight: 600 },
        subtitle2: { fontWeight: 600 },
        button: { textTransform: 'none', fontWeight: 600 },
      },
      components: {
        // The browser's own monospace for these is a generic family alone: Japanese in a log or message would be boxes.
        MuiCssBaseline: { styleOverrides: { 'pre, code, kbd, samp': { fontFamily: MONO_FONT_STACK } } },
        MuiButton: { defaultProps: { disableElevation: true } },
        MuiTextField: { defaultProps: { size: 'small' } },
        MuiFormControl: { defaultProps: { size: 'small' } },
        MuiSelect: { defaultProps: { size: 'small' } },
        MuiPaper: {
          defaultProps: { elevation: 0 },
          styleOverrides: { outlined: ({ theme }) => ({ borderColor: (theme.vars ?? theme).palette.divider }) },
        },
        MuiCard: { defaultProps: { variant: 'outlined' } },
        MuiTooltip: { defaultProps: { arrow: true } },
        MuiTableCell: { styleOverrides: { sizeSmall: { padding: '6px 12px' } } },
        MuiListItemButton: {
          styleOverrides: {
            root: {
              borderRadius: 6,
              '&.Mui-selected': { backgroundColor: 'rgba(31,95,139,0.10)', color: '#154566' },
              '&.Mui-selected .MuiListItemIcon-root': { color: '#1f5f8b' },
              '[data-mitate-scheme=dark] &.Mui-selected': { backgroundColor: 'rgba(111,168,214,0.16)', color: '#cfe3f3' },
              '[data-mitate-scheme=dark] &.Mui-selected .MuiListItemIcon-root': { color: '#6fa8d6' },
            },
          },
        },
        MuiDataGrid: {
          styleOverrides: {
            root: ({ theme }) => ({ backgroundColor: (theme.vars ?? theme).palette.background.paper, borderColor: (theme.vars ?? theme).palette.divider }),
            columnHeaderTitle: { fontWeight: 600 },
          },
        },
      },
    },
    lang === 'ja' ? coreJa : coreEn,
  );
}
