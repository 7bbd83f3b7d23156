import { createTheme } from '@mui/material/styles';
import { enUS as coreEn, jaJP as coreJa } from '@mui/material/locale';
import type {} from '@mui/x-data-grid/themeAugmentation';

const fontFamily = [
  'Inter',
  '"Segoe UI"',
  'Roboto',
  '"Helvetica Neue"',
  'Arial',
  '"Hiragino Kaku Gothic ProN"',
  '"Hiragino Sans"',
  '"Noto Sans JP"',
  '"Noto Sans CJK JP"',
  '"Yu Gothic UI"',
  'Meiryo',
  'sans-serif',
].join(',');

/** Calm, dense enterprise theme. The DataGrid's own locale is applied where the grid is used. */
export function createAppTheme(lang: 'en' | 'ja') {
  return createTheme(
    {
      palette: {
        mode: 'light',
        primary: { main: '#1f5f8b', light: '#4d87b3', dark: '#154566', contrastText: '#ffffff' },
        secondary: { main: '#2f7d6d' },
        background: { default: '#f4f6f9', paper: '#ffffff' },
        text: { primary: '#1d2733', secondary: '#5b6775' },
        divider: '#e1e6ed',
      },
      shape: { borderRadius: 6 },
      typography: {
        fontFamily,
        fontSize: 13,
        h4: { fontSize: '1.6rem', fontWeight: 600 },
        h5: { fontSize: '1.3rem', fontWeight: 600 },
        h6: { fontSize: '1.05rem', fontWeight: 600 },
        subtitle2: { fontWeight: 600 },
        button: { textTransform: 'none', fontWeight: 600 },
      },
      components: {
        MuiButton: { defaultProps: { disableElevation: true } },
        MuiTextField: { defaultProps: { size: 'small' } },
        MuiFormControl: { defaultProps: { size: 'small' } },
        MuiSelect: { defaultProps: { size: 'small' } },
        MuiPaper: {
          defaultProps: { elevation: 0 },
          styleOverrides: { outlined: { borderColor: '#e1e6ed' } },
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
            },
          },
        },
        MuiDataGrid: {
          styleOverrides: {
            root: { backgroundColor: '#ffffff', borderColor: '#e1e6ed' },
            columnHeaderTitle: { fontWeight: 600 },
          },
        },
      },
    },
    lang === 'ja' ? coreJa : coreEn,
  );
}
