/**
 * The capture gate: what a content script needs to decide, before reading anything from the page,
 * whether this page may be captured. The background mirrors it into extension storage so the check
 * needs no round trip to a worker that may be asleep (or stopped) when the page is being left.
 */
import { siteMatches, siteOf } from './url.js';

export const CAPTURE_GATE_KEY = 'captureGate';

export interface CaptureGate {
  paused: boolean;
  excludedSites: string[];
}

export function gateAllows(gate: CaptureGate, url: string): boolean {
  if (gate.paused) return false;
  const site = siteOf(url);
  if (!site) return false;
  return !gate.excludedSites.some((p) => siteMatches(site, p));
}

export function isCaptureGate(v: unknown): v is CaptureGate {
  const g = v as CaptureGate | null;
  return !!g && typeof g.paused === 'boolean' && Array.isArray(g.excludedSites) && g.excludedSites.every((s) => typeof s === 'string');
}
