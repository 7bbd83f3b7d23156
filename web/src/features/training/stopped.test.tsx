import { render, screen } from '@testing-library/react';
import { afterEach, describe, expect, it } from 'vitest';
import i18n from '../../i18n';
import { ModelStateCell, RunErrorAlert } from './labels';

// Issue 33: a run the person stopped kept the job's English words ("The job was cancelled.") on Japanese time-series
// and image project pages, under a "failed" chip.
describe('a stopped run', () => {
  afterEach(() => void i18n.changeLanguage('en'));

  it('reads as stopped in the reader language, not as the job error', async () => {
    await i18n.changeLanguage('ja');
    render(
      <>
        <RunErrorAlert error="The job was cancelled." jobState="cancelled" />
        <table>
          <tbody>
            <tr>
              <ModelStateCell state="failed" error="The job was cancelled." stopped />
            </tr>
          </tbody>
        </table>
      </>,
    );
    expect(screen.queryByText('The job was cancelled.')).toBeNull();
    expect(screen.getByText(/前回の学習は完了前に停止したため/)).toBeTruthy();
    expect(screen.getByText('完了前に停止しました。')).toBeTruthy();
  });

  it('still shows a real failure with its reason', () => {
    render(
      <>
        <RunErrorAlert error="The engine stopped: out of memory." jobState="failed" />
        <table>
          <tbody>
            <tr>
              <ModelStateCell state="failed" error="Too few rows." />
            </tr>
          </tbody>
        </table>
      </>,
    );
    expect(screen.getByText('The engine stopped: out of memory.')).toBeTruthy();
    expect(screen.getByText('Too few rows.')).toBeTruthy();
  });
});
