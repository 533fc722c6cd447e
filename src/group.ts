/** Results grouped by page: each page's best section first, with up to `perPage - 1` more under it. */

export interface Groupable {
  id: number;
  url: string;
}

export interface Group<T extends Groupable> {
  best: T;
  more: T[];
}

export function groupByPage<T extends Groupable>(ranked: readonly T[], limitPages: number, perPage = 3): Group<T>[] {
  const groups = new Map<string, Group<T>>();
  for (const hit of ranked) {
    const g = groups.get(hit.url);
    if (g) {
      if (g.more.length < perPage - 1) g.more.push(hit);
      continue;
    }
    if (groups.size >= limitPages) continue;
    groups.set(hit.url, { best: hit, more: [] });
  }
  return [...groups.values()];
}
