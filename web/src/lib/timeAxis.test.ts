import { describe, expect, it } from 'vitest';
import { axisNote, formatFor, formatTime, fullTime, isoOf, tickLabel, timeMs } from './timeAxis';

describe('time axis labels', () => {
  it('shortens date-times to what changes over the span, read as text (no zone shift)', () => {
    const minutes = ['2020-03-09T10:14:33.000', '2020-03-09T10:20:01.000'];
    expect(formatFor(minutes)).toBe('seconds');
    expect(formatTime(minutes[0], 'seconds')).toBe('10:14:33');
    expect(axisNote(minutes, 'seconds')).toBe('2020-03-09');
    const hours = ['2020-03-09 00:00:00', '2020-03-09 23:59:00'];
    expect(formatFor(hours)).toBe('minutes');
    expect(formatTime(hours[1], 'minutes')).toBe('23:59');
    // a short span over midnight needs the day
    expect(formatFor(['2020-03-09T23:50:00', '2020-03-10T00:10:00'])).toBe('dayMinutes');
    const days = ['2020-03-01T00:00:00', '2020-03-20T12:30:00'];
    expect(formatFor(days)).toBe('dayMinutes');
    expect(formatTime(days[1], 'dayMinutes')).toBe('03-20 12:30');
    expect(axisNote(days, 'dayMinutes')).toBe('2020');
    const months = ['2020-01-01', '2020-11-30'];
    expect(formatFor(months)).toBe('date');
    expect(formatTime('2020-11-30', 'date')).toBe('2020-11-30');
    expect(axisNote(months, 'date')).toBeNull();
    expect(formatFor(['2015-01-01T00:00:00', '2020-06-01T00:00:00'])).toBe('month');
    expect(formatTime('2020-06-01T00:00:00', 'month')).toBe('2020-06');
    expect(fullTime('2020-03-09T10:14:33.250')).toBe('2020-03-09 10:14:33');
  });

  it('shows row-order numbers as they are', () => {
    expect(formatFor([1, 2, 960])).toBe('number');
    expect(formatTime(161, 'number')).toBe('161');
    expect(axisNote([1, 960], 'number')).toBeNull();
    expect(fullTime(161)).toBe('161');
    expect(formatTime(null, 'number')).toBe('');
  });
});

describe('score axis ticks', () => {
  it('gives as many decimals as the step needs', () => {
    expect([0.031, 0.0325, 0.034].map((v) => tickLabel(v, 0.0015))).toEqual(['0.0310', '0.0325', '0.0340']);
    expect(tickLabel(2.9, 2.9)).toBe('2.9');
    expect(tickLabel(230.9, 13.4)).toBe('231');
    expect(tickLabel(123456, 1000)).toBe('1.23e+5');
  });
});

describe('a time on an axis', () => {
  it('is placed as written (no zone moves it) and labelled back from its place', () => {
    expect(timeMs('2020-03-09T10:14:33')).toBe(Date.UTC(2020, 2, 9, 10, 14, 33));
    expect(timeMs('2020-03-09')).toBe(Date.UTC(2020, 2, 9));
    expect(timeMs('not a time')).toBeNull();
    const f = formatFor(['2020-03-09T10:14:33', '2020-03-09T10:34:32']);
    expect(formatTime(isoOf(Date.UTC(2020, 2, 9, 10, 20, 0)), f)).toBe('10:20');
  });
});
