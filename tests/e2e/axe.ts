/**
 * axe-core in the real extension pages. The pages' CSP (`script-src 'self'`) refuses inline and
 * injected <script> elements, so Playwright's addScriptTag cannot load it; page.evaluate runs through
 * the DevTools protocol, which CSP does not govern, so axe's source is evaluated that way.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { Page } from 'playwright';

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** The rule sets run: every WCAG 2.0/2.1/2.2 A and AA rule, plus axe's best practices (landmarks, headings). */
export const AXE_TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'];

/**
 * Moderate best-practice findings accepted on purpose, each with its reason. Nothing is listed today:
 * a finding added here must say why it cannot be fixed.
 */
export const ACCEPTED: Record<string, string> = {};

export interface AxeViolation {
  id: string;
  impact: 'minor' | 'moderate' | 'serious' | 'critical' | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

export interface AxeReport {
  violations: AxeViolation[];
  /** Rules that ran and passed or did not apply: what "clean" covered. */
  passes: string[];
  incomplete: { id: string; impact: string | null; nodes: number }[];
}

export async function runAxe(page: Page): Promise<AxeReport> {
  const loaded = await page.evaluate(() => typeof (globalThis as { axe?: unknown }).axe === 'object');
  if (!loaded) await page.evaluate(AXE_SOURCE);
  return page.evaluate(async (tags) => {
    const axe = (globalThis as unknown as { axe: { run(ctx: unknown, opts: unknown): Promise<{ violations: AxeViolation[]; passes: { id: string }[]; incomplete: { id: string; impact: string | null; nodes: unknown[] }[] }> } }).axe;
    const r = await axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations', 'incomplete', 'passes'] });
    return {
      violations: r.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) })),
      passes: r.passes.map((p) => p.id),
      incomplete: r.incomplete.map((i) => ({ id: i.id, impact: i.impact, nodes: i.nodes.length })),
    };
  }, AXE_TAGS);
}

/** A violation that fails the check: any serious or critical one, or a moderate/minor one not accepted above. */
export function failing(report: AxeReport): AxeViolation[] {
  return report.violations.filter((v) => !(v.id in ACCEPTED));
}

export function describeViolations(vs: AxeViolation[]): string {
  return vs.map((v) => `${v.impact} ${v.id}: ${v.help}\n    ${v.nodes.slice(0, 4).map((n) => `${n.target.join(' ')}${n.failureSummary ? ' — ' + n.failureSummary.replace(/\s+/g, ' ').slice(0, 200) : ''}`).join('\n    ')}`).join('\n');
}
