import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { colourAlpha, typesElsewhere, type InputLook } from '../../src/typedElsewhere.js';

/** An ordinary visible text field: 200 x 20 px, black text, on the page. */
const field: InputLook = { disabled: false, readOnly: false, opaque: true, fontPx: 16, textAlpha: 1, shownWidth: 200, shownHeight: 20, offPage: false };

describe('inputs whose typing is drawn elsewhere (src/typedElsewhere.ts)', () => {
  // Each look as measured in Chromium 156 with the real library (see the module's header).
  it('catches the hidden inputs of CodeMirror 5, Ace, Monaco (textarea) and hand-made editors', () => {
    const cases: Record<string, Partial<InputLook>> = {
      // A 1,002 x 15 px textarea inside a 3 x 0 px box that hides its overflow.
      'CodeMirror 5.65': { fontPx: 13.33, shownWidth: 3, shownHeight: 0 },
      'Ace 1.45': { opaque: false, fontPx: 1, shownWidth: 3, shownHeight: 1 },
      'Monaco (textarea.inputarea)': { textAlpha: 0, shownWidth: 1, shownHeight: 1 },
      'a transparent textarea over a highlighted pre': { textAlpha: 0, shownWidth: 600, shownHeight: 120 },
      'an input moved off the page': { offPage: true },
    };
    for (const [name, look] of Object.entries(cases)) expect(typesElsewhere({ ...field, ...look }), name).toBe(true);
  });

  it('leaves visible fields, and read-only or disabled editors (CodeMirror 5 readOnly / "nocursor", Ace setReadOnly), alone', () => {
    expect(typesElsewhere(field)).toBe(false);
    expect(typesElsewhere({ ...field, shownWidth: 3, shownHeight: 0, disabled: true, readOnly: true })).toBe(false);
    expect(typesElsewhere({ ...field, shownWidth: 3, shownHeight: 0, readOnly: true })).toBe(false);
    expect(typesElsewhere({ ...field, opaque: false, fontPx: 1, readOnly: true })).toBe(false);
    // A small but readable field (a 3-character code box).
    expect(typesElsewhere({ ...field, shownWidth: 30, shownHeight: 18, fontPx: 12 })).toBe(false);
  });

  it('never calls an input one can neither type into nor change', () => {
    const look = fc.record({
      disabled: fc.boolean(),
      readOnly: fc.boolean(),
      opaque: fc.boolean(),
      fontPx: fc.double({ min: 0, max: 100, noNaN: true }),
      textAlpha: fc.double({ min: 0, max: 1, noNaN: true }),
      shownWidth: fc.double({ min: 0, max: 2000, noNaN: true }),
      shownHeight: fc.double({ min: 0, max: 2000, noNaN: true }),
      offPage: fc.boolean(),
    });
    fc.assert(fc.property(look, (l) => !(l.disabled || l.readOnly) || !typesElsewhere(l)));
  });

  it("reads a computed colour's alpha", () => {
    expect(colourAlpha('rgb(0, 0, 0)')).toBe(1);
    expect(colourAlpha('rgba(0, 0, 0, 0)')).toBe(0);
    expect(colourAlpha('rgba(10, 20, 30, 0.5)')).toBe(0.5);
    expect(colourAlpha('transparent')).toBe(0);
    expect(colourAlpha('color(srgb 0 0 0 / 0)')).toBe(0);
    expect(colourAlpha('rgb(0 0 0 / 40%)')).toBe(0.4);
  });
});
