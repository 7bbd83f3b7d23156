import { render, screen } from '@testing-library/react';
import userEvent from '@testing-library/user-event';
import { afterEach, describe, expect, it, vi } from 'vitest';
import * as browser from '../lib/browser';
import { CHUNK_TIMEOUT_MS, ChunkLoadError, classifyChunkError, withTimeout } from './lazy';
import { ErrorPanel } from './RouteErrorPage';

afterEach(() => vi.useRealTimers());

describe('chunk loading (SPEC §8)', () => {
  it('fails a chunk that has not loaded after 120 s', async () => {
    vi.useFakeTimers();
    const never = new Promise<never>(() => undefined);
    const p = withTimeout(never);
    const check = expect(p).rejects.toMatchObject({ code: 'CHUNK_LOAD_TIMEOUT' });
    vi.advanceTimersByTime(CHUNK_TIMEOUT_MS - 1);
    await Promise.resolve();
    vi.advanceTimersByTime(1);
    await check;
    expect(CHUNK_TIMEOUT_MS).toBe(120_000);
  });

  it('passes a chunk that loads in time', async () => {
    await expect(withTimeout(Promise.resolve(42), 1000)).resolves.toBe(42);
  });

  it('tells a failing style chunk apart by its own code', () => {
    expect(classifyChunkError(new Error('Unable to preload CSS for /assets/datasets-x.css')).code).toBe('CSS_CHUNK_LOAD_FAILED');
    expect(classifyChunkError(new TypeError('Failed to fetch dynamically imported module: /assets/a.js')).code).toBe('CHUNK_LOAD_FAILED');
  });

  it('shows a clear page with the code and a Reload button', async () => {
    const reload = vi.spyOn(browser, 'reloadPage').mockImplementation(() => undefined);
    render(<ErrorPanel error={new ChunkLoadError('CHUNK_LOAD_TIMEOUT')} />);
    expect(screen.getByRole('heading', { name: 'This page could not be loaded' })).toBeInTheDocument();
    expect(screen.getByText(/longer than 120 seconds/)).toBeInTheDocument();
    expect(screen.getByText('Error code: CHUNK_LOAD_TIMEOUT')).toBeInTheDocument();
    await userEvent.click(screen.getByRole('button', { name: 'Reload' }));
    expect(reload).toHaveBeenCalled();
  });

  it('the style failure page has its own code', () => {
    render(<ErrorPanel error={new ChunkLoadError('CSS_CHUNK_LOAD_FAILED')} />);
    expect(screen.getByText('Error code: CSS_CHUNK_LOAD_FAILED')).toBeInTheDocument();
    expect(screen.getByText(/styles of this page/)).toBeInTheDocument();
  });
});
