import { describe, expect, it } from 'vitest';
import { tsReport } from '../src/features/timeseries/schemas.js';

/** Issue 34: a detector fitted on a sample of a long normal period (engine timeseries/trainer.py FIT_SAMPLE_ROWS) says so. */
describe('time-series report: the rows a detector was fitted on', () => {
  it('keeps the sample and what it was drawn from in the detector figures the report page lists', () => {
    const detector = tsReport.shape.detector.parse({ percentile: 99, fit_rows: 100000, fit_sample_of: 3499993 });
    expect(detector).toEqual({ percentile: 99, fit_rows: 100000, fit_sample_of: 3499993 });
    // fitted on every row: nothing said
    expect(tsReport.shape.detector.parse({ components: 3 })).toEqual({ components: 3 });
    expect(() => tsReport.shape.detector.parse({ fit_rows: 1.5 })).toThrow();
  });
});
