/** A seeded pseudo-random generator (mulberry32), so query sampling is reproducible from its seed. */

export type Rng = () => number;

/** 32-bit FNV-1a of a string: turns a seed phrase ("python/span") into a generator state. */
export function seedOf(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

export function rng(seed: string | number): Rng {
  let a = typeof seed === 'number' ? seed >>> 0 : seedOf(seed);
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

export function randInt(r: Rng, n: number): number {
  return Math.floor(r() * n);
}

/** Fisher–Yates on a copy. */
export function shuffled<T>(r: Rng, xs: readonly T[]): T[] {
  const a = [...xs];
  for (let i = a.length - 1; i > 0; i--) {
    const j = randInt(r, i + 1);
    [a[i], a[j]] = [a[j]!, a[i]!];
  }
  return a;
}
