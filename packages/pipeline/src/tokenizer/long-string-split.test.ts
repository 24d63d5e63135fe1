import { describe, expect, it } from 'vitest';
import { splitLongString } from './long-string-split.js';

describe('splitLongString()', () => {
  it('returns a text of at most workaroundLen code points whole', () => {
    expect(splitLongString('abc def', 7)).toEqual(['abc def']);
    expect(splitLongString('😀😀😀', 3)).toEqual(['😀😀😀']);
  });

  it('cuts before the first whitespace at or after workaroundLen code points from each piece start', () => {
    expect(splitLongString('aaaa bb cc dddddd e', 4)).toEqual(['aaaa', ' bb cc', ' dddddd', ' e']);
    expect(splitLongString('abcdefgh', 4)).toEqual(['abcdefgh']);
  });

  it('counts code points and uses the White_Space property (U+001C is not a cut point, U+0085 is)', () => {
    expect(splitLongString('😀😀😀😀 x', 4)).toEqual(['😀😀😀😀', ' x']);
    expect(splitLongString('abcd\u001cef\u0085gh', 4)).toEqual(['abcd\u001cef', '\u0085gh']);
  });
});
