/**
 * WCAG AA contrast of the extension pages' colours, in both themes: reads the custom properties of
 * popup/styles.css (light in :root, dark in the prefers-color-scheme block) and checks every pair of
 * text colour and background the stylesheet uses. axe-core checks the rendered pages too
 * (tests/e2e/a11y.test.ts), but only the states a test shows; this covers every pair.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';

const css = readFileSync(join(import.meta.dirname, '../../popup/styles.css'), 'utf8');

function vars(block: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of block.matchAll(/--([\w-]+):\s*(#[0-9a-fA-F]{6})/g)) out[m[1]!] = m[2]!;
  return out;
}

const light = vars(/:root\s*{([^}]*)}/.exec(css)![1]!);
const dark = { ...light, ...vars(/prefers-color-scheme:\s*dark\)\s*{\s*:root\s*{([^}]*)}/.exec(css)![1]!) };

function luminance(hex: string): number {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(hex.slice(i, i + 2), 16) / 255).map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!;
}
export function contrast(a: string, b: string): number {
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x);
  return (hi! + 0.05) / (lo! + 0.05);
}

/** [text, background] pairs as the stylesheet uses them. */
const PAIRS: [string, string][] = [
  ['fg', 'bg'],
  ['muted', 'bg'],
  ['accent', 'bg'],
  ['danger', 'bg'],
  ['lexical', 'bg'],
  ['dense', 'bg'],
  ['fg', 'sel'], // the active result and the undo bar
  ['muted', 'sel'],
  ['accent', 'sel'],
  ['lexical', 'sel'],
  ['dense', 'sel'],
  ['fg', 'chip'], // buttons, code
  ['muted', 'chip'],
  ['mark-fg', 'mark'], // matched words
  ['bg', 'accent'], // a chosen date chip
  ['danger-fg', 'danger'], // a destructive button
];

describe('colour contrast (WCAG AA, 4.5:1 for text)', () => {
  for (const [name, theme] of [
    ['light', light],
    ['dark', dark],
  ] as const) {
    it(`${name} theme`, () => {
      const failures = PAIRS.map(([fg, bg]) => ({ pair: `${fg} on ${bg}`, ratio: Math.round(contrast(theme[fg]!, theme[bg]!) * 100) / 100 })).filter((p) => !(p.ratio >= 4.5));
      expect(failures).toEqual([]);
    });
  }
  it('the focus ring stands out from the page (3:1, WCAG 1.4.11)', () => {
    expect(contrast(light.focus!, light.bg!)).toBeGreaterThanOrEqual(3);
    expect(contrast(dark.focus!, dark.bg!)).toBeGreaterThanOrEqual(3);
    expect(contrast(light.focus!, light.sel!)).toBeGreaterThanOrEqual(3);
    expect(contrast(dark.focus!, dark.sel!)).toBeGreaterThanOrEqual(3);
  });
});
