import '@testing-library/jest-dom/vitest';
import { cleanup, configure } from '@testing-library/react';
import { afterEach, vi } from 'vitest';
import '../i18n';

// findBy*/waitFor wait for conditions, never for a time: on a busy 2-core machine a lazy route can take
// seconds to render, so the default 1 s is far too short (issue 15); tests never pass their own shorter limit.
configure({ asyncUtilTimeout: 60_000 });

afterEach(() => {
  cleanup();
  localStorage.clear();
  vi.restoreAllMocks();
});

// jsdom lacks these; MUI and the DataGrid use them.
if (!window.matchMedia) {
  window.matchMedia = (query: string) =>
    ({
      matches: false,
      media: query,
      onchange: null,
      addListener: () => undefined,
      removeListener: () => undefined,
      addEventListener: () => undefined,
      removeEventListener: () => undefined,
      dispatchEvent: () => false,
    }) as MediaQueryList;
}
if (!('ResizeObserver' in window)) {
  (window as unknown as { ResizeObserver: unknown }).ResizeObserver = class {
    observe() {}
    unobserve() {}
    disconnect() {}
  };
}
// jsdom's scrollTo only logs 'not implemented' (react-router's ScrollRestoration calls it).
window.scrollTo = (() => undefined) as typeof window.scrollTo;
