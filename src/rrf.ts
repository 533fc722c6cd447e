/**
 * Weighted Reciprocal Rank Fusion: score(d) = sum over lanes of w_lane / (k + rank_lane(d)), ranks from 1.
 * Rank-based, so the lanes' incomparable score scales never meet (no max-normalised score sums).
 */

export type LaneName = 'lexical' | 'dense';

export interface LaneHit {
  id: number;
  score: number;
  /** Lexical only: the query terms that contributed. */
  terms?: string[];
}

export interface Lane {
  name: LaneName;
  hits: readonly LaneHit[];
  weight: number;
}

export interface FusedHit {
  id: number;
  score: number;
  /** 1-based rank in each lane that found it. */
  ranks: Partial<Record<LaneName, number>>;
  /** Each lane's own score, for diagnostics and the dense floor. */
  laneScores: Partial<Record<LaneName, number>>;
  terms: string[];
}

export const DEFAULT_RRF_K = 60;

export function rrfFuse(lanes: readonly Lane[], k: number = DEFAULT_RRF_K): FusedHit[] {
  const byId = new Map<number, FusedHit>();
  for (const lane of lanes) {
    if (!(lane.weight > 0)) continue;
    lane.hits.forEach((h, i) => {
      let f = byId.get(h.id);
      if (!f) {
        f = { id: h.id, score: 0, ranks: {}, laneScores: {}, terms: [] };
        byId.set(h.id, f);
      }
      if (f.ranks[lane.name] !== undefined) return; // a lane lists an id once; ignore repeats
      f.ranks[lane.name] = i + 1;
      f.laneScores[lane.name] = h.score;
      f.score += lane.weight / (k + i + 1);
      if (h.terms) for (const t of h.terms) if (!f.terms.includes(t)) f.terms.push(t);
    });
  }
  return [...byId.values()].sort((a, b) => b.score - a.score || a.id - b.id);
}
