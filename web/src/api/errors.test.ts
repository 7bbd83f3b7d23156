import { afterEach, describe, expect, it } from 'vitest';
import i18n from '../i18n';
import { describeError } from './errors';

const BUSY_EN = "We're experiencing higher than usual traffic right now. Please wait a few moments and try again. Thank you for your patience.";

describe('SPEC §8 main client: describeError', () => {
  afterEach(async () => {
    await i18n.changeLanguage('en');
  });

  describe.each([
    ['en', 'Server Busy', BUSY_EN, 'Bad request.', 'Some of the entered values are not valid.'],
    ['ja', 'サーバーが混み合っています', '現在、アクセスが集中しています。', '不正なリクエストです。', '入力内容に誤りがあります。'],
  ])('in %s', (lang, busyTitle, busyText, badRequest, invalid) => {
    it('422 lists "field: message" for each detail entry (last element of loc)', async () => {
      await i18n.changeLanguage(lang);
      const m = describeError(422, {
        detail: [
          { loc: ['body', 'name'], msg: 'Field required', type: 'missing' },
          { loc: ['body', 'file', 'size'], msg: 'Too large', type: 'value_error' },
        ],
      });
      expect(m.error).toBe(invalid);
      expect(m.details).toEqual(['name: Field required', 'size: Too large']);
    });

    it('400 with detail.response shows response (Error) and error (Details)', async () => {
      await i18n.changeLanguage(lang);
      expect(describeError(400, { detail: { response: 'Row 3 has 2 fields', error: 'csv_ragged' } })).toEqual({
        error: 'Row 3 has 2 fields',
        details: 'csv_ragged',
      });
    });

    it("400 without a response is 'Bad request.'", async () => {
      await i18n.changeLanguage(lang);
      expect(describeError(400, { detail: 'nope' }).error).toBe(badRequest);
      expect(describeError(400, null).error).toBe(badRequest);
    });

    it.each([401, 403, 404, 409, 413])('%i with detail.response shows that message', async (status) => {
      await i18n.changeLanguage(lang);
      expect(describeError(status, { detail: { response: 'server says', error: 'x' } })).toEqual({ error: 'server says' });
    });

    it.each([500, 502, 503, 0])('%i (5xx, no answer) is Server Busy', async (status) => {
      await i18n.changeLanguage(lang);
      const m = describeError(status, { detail: { response: 'internal' } });
      expect(m.error).toBe(busyTitle);
      expect(String(m.details)).toContain(busyText);
    });

    it('4xx without a message is Server Busy too', async () => {
      await i18n.changeLanguage(lang);
      expect(describeError(403, null).error).toBe(busyTitle);
    });
  });

  it('the English busy text is exactly the one of the SPEC', () => {
    expect(describeError(500, null).details).toBe(BUSY_EN);
  });
});
