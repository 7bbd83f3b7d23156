import { describe, expect, it } from 'vitest';
import { checkPassword, classCount, passwordProblem } from '../src/password.js';

const person = { email: 'hanako@example.com', first_name: 'Taro', last_name: 'Yamada' };

describe('password rules (SPEC §5)', () => {
  it.each([
    ['short', 'Ab1!', 'length'],
    ['two classes', 'abcdefgh12', 'classes'],
    ['contains the e-mail', 'Hanako2024!x', 'personal'],
    ['contains the name', 'xYamada#2024', 'personal'],
    ['contains the first name in another case', 'TARO-2024xz', 'personal'],
    ['strong', 'Correct-Horse-9', null],
  ])('%s', (_, pw, expected) => {
    expect(passwordProblem(pw, person)).toBe(expected);
  });

  it('reports the first broken rule in the order length, classes, personal', () => {
    expect(passwordProblem('yamada', person)).toBe('length');
    expect(passwordProblem('yamadayamada', person)).toBe('classes');
  });

  it('checks every rule at once for the live list', () => {
    expect(checkPassword('short', person)).toEqual({ length: false, classes: false, personal: true });
    expect(checkPassword('', person)).toEqual({ length: false, classes: false, personal: false });
    expect(checkPassword('Correct-Horse-9')).toEqual({ length: true, classes: true, personal: true });
  });

  it('ignores e-mail parts and names shorter than 3 characters', () => {
    expect(passwordProblem('Ab-cdefg-9', { email: 'ab@x.io', first_name: 'Al' })).toBeNull();
  });

  it('counts the character classes', () => {
    expect(classCount('aA1!')).toBe(4);
    expect(classCount('abc')).toBe(1);
    expect(classCount('')).toBe(0);
  });
});
