/** The one-line section labels of result rows (popup/components/ResultCard.tsx shortPath). */
import { describe, expect, it } from 'vitest';
import { shortPath } from '../../popup/components/ResultCard.js';

describe('shortPath', () => {
  it('shows the deepest heading, the rest for screen readers', () => {
    expect(shortPath(['5. Data Structures', '5.1. More on Lists', '5.1.3. List Comprehensions'])).toEqual({ shown: '5.1.3. List Comprehensions', above: '5. Data Structures › 5.1. More on Lists' });
    expect(shortPath(['Usage'])).toEqual({ shown: 'Usage', above: '' });
    expect(shortPath([])).toEqual({ shown: '', above: '' });
  });

  it('keeps the parent when another row of the card has the same deepest heading', () => {
    const open = ['Functions', 'open()', 'Example'];
    const close = ['Functions', 'close()', 'Example'];
    expect(shortPath(open, [open, close])).toEqual({ shown: 'open() › Example', above: 'Functions' });
    expect(shortPath(close, [open, close])).toEqual({ shown: 'close() › Example', above: 'Functions' });
    // A heading that holds " › " itself is one heading, not two.
    expect(shortPath(['Menus', 'File › Save'])).toEqual({ shown: 'File › Save', above: 'Menus' });
  });
});
