import { describe, expect, it } from 'vitest';
import { decimalPlaces, decimalsOk, paramDecimalsOk } from '../src/decimals.js';

describe('the 7-decimals rule (SPEC §5, §9)', () => {
  it('counts the digits after the point of the value written out in full', () => {
    expect(decimalPlaces('0.1234567')).toBe(7);
    expect(decimalPlaces('-3.25')).toBe(2);
    expect(decimalPlaces('.5')).toBe(1);
    expect(decimalPlaces('12')).toBe(0);
    expect(decimalPlaces('1.')).toBe(0);
    // 1.12345678e3 is 1123.45678; 1.5e-7 is 0.00000015
    expect(decimalPlaces('1.12345678e3')).toBe(5);
    expect(decimalPlaces('1.5e-7')).toBe(8);
    expect(decimalPlaces('1E-7')).toBe(7);
    expect(decimalPlaces(' 0.25 ')).toBe(2);
    expect(decimalPlaces(1.5e-7)).toBe(8);
    expect(decimalPlaces(1.12345678e21)).toBe(0);
  });

  it('is null for what is not a finite number', () => {
    for (const x of ['', ' ', 'abc', '.', '-', '1.2.3', '0x10', 'Infinity', '1e', NaN, Infinity]) expect(decimalPlaces(x)).toBeNull();
  });

  it('takes at most 7 digits, on texts and numbers alike', () => {
    expect(decimalsOk('0.1234567')).toBe(true);
    expect(decimalsOk('0.12345678')).toBe(false);
    expect(decimalsOk('0.1234567800')).toBe(false);
    expect(decimalsOk(0.1234567)).toBe(true);
    expect(decimalsOk(0.12345678)).toBe(false);
    expect(decimalsOk(1e-7)).toBe(true);
    expect(decimalsOk(1.5e-7)).toBe(false);
    expect(decimalsOk('1e-10')).toBe(false);
  });

  it('judges 1.12345678e3 by its value (1123.45678: 5 digits), as the server does the number', () => {
    expect(decimalsOk('1.12345678e3')).toBe(true);
    expect(decimalsOk(1.12345678e3)).toBe(true);
    expect(decimalsOk('1.123456789e1')).toBe(false);
  });

  it('leaves a text that is no number to the number check; a number that is not finite fails', () => {
    expect(decimalsOk('abc')).toBe(true);
    expect(decimalsOk(NaN)).toBe(false);
    expect(decimalsOk(Infinity)).toBe(false);
  });

  it('takes an algorithm parameter written with an exponent as such', () => {
    expect(paramDecimalsOk('1e-10')).toBe(true);
    expect(paramDecimalsOk(1e-10)).toBe(true);
    expect(paramDecimalsOk('0.0001')).toBe(true);
    expect(paramDecimalsOk('0.00000001')).toBe(false);
    expect(paramDecimalsOk(0.12345678)).toBe(false);
  });
});
