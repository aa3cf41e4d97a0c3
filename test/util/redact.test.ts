import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { redactSecrets, redactUrl } from '../../src/util/redact.js';

describe('redactUrl', () => {
  it.each([
    [
      'https://me:hunter2@api.example.com/items?page=2&token=abc',
      'https://***@api.example.com/items?page=2&token=***',
    ],
    ['https://TOKEN@github.com/x', 'https://***@github.com/x'],
    [
      'http://a/b?X-Amz-Signature=zz&apiKey=3&session_id=4&access_token=5',
      'http://a/b?X-Amz-Signature=***&apiKey=***&session_id=***&access_token=***',
    ],
    ['http://a/b?monkey=1&passage=2&page=3&q=x y', 'http://a/b?monkey=1&passage=2&page=3&q=x y'],
    [
      'http://a:8080/p?x=1#access_token=abc&state=2',
      'http://a:8080/p?x=1#access_token=***&state=2',
    ],
    ['http://a/p#section-2', 'http://a/p#section-2'],
    ['not a url', 'not a url'],
  ])('%s', (url, expected) => {
    expect(redactUrl(url)).toBe(expected);
  });

  it('never lets a password or a token value through, whatever the URL', () => {
    const word = fc.stringMatching(/^[a-z0-9]{1,8}$/);
    fc.assert(
      fc.property(
        word,
        word,
        word,
        fc.constantFrom('token', 'api_key', 'password', 'sig'),
        (user, secret, host, name) => {
          const url = `https://${user}:SECRET${secret}@${host}.test/p?${name}=SECRET${secret}&page=1`;
          const shown = redactUrl(url);
          expect(shown).not.toContain(`SECRET${secret}`);
          expect(shown).toContain(`${host}.test/p?`);
          expect(shown).toContain('page=1');
        },
      ),
    );
  });
});

describe('redactSecrets', () => {
  it('redacts every URL in a message, keeping the punctuation around them', () => {
    expect(
      redactSecrets('fetch failed: http://u:p@h/x?key=v: refused (see https://x/?token=1).'),
    ).toBe('fetch failed: http://***@h/x?key=***: refused (see https://x/?token=***).');
  });
});
