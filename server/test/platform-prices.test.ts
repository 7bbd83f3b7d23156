import { describe, expect, it } from 'vitest';
import { DEFAULT_PRICES, loadPrices } from '../src/features/platform/prices.js';

/** MITATE_PLATFORM_PRICES gives any part of the price list; the default gives the rest. */
describe('the platform price list', () => {
  it('merges the given fields over the default, infrastructure price by price', () => {
    expect(loadPrices({})).toBe(DEFAULT_PRICES);
    expect(loadPrices({ MITATE_PLATFORM_PRICES: '{"currency":"EUR","infrastructure":{"base":1}}' })).toEqual({ ...DEFAULT_PRICES, currency: 'EUR', infrastructure: { ...DEFAULT_PRICES.infrastructure, base: 1 } });
  });

  it('stops the start-up on a list that is not JSON or not its shape', () => {
    expect(() => loadPrices({ MITATE_PLATFORM_PRICES: '{"currency":' })).toThrow();
    expect(() => loadPrices({ MITATE_PLATFORM_PRICES: '{"infrastructure":{"base":"cheap"}}' })).toThrow(/price list/);
  });
});
