import '@fontsource-variable/noto-sans-jp/wght.css';
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import './i18n';
import App from './app/App';
import { installPreloadErrorHandler } from './app/lazy';

installPreloadErrorHandler();

createRoot(document.getElementById('root')!).render(
  <StrictMode>
    <App />
  </StrictMode>,
);
