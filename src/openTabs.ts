/**
 * Which open tabs to capture when Reread starts watching (installed, updated, capture resumed): normal
 * http(s) tabs that capture rules allow. A tab still loading or discarded is left for when it loads.
 */
export interface TabInfo {
  id?: number;
  url?: string;
  incognito: boolean;
  status?: string;
  discarded?: boolean;
}

export interface TabPlan {
  /** Inject now. */
  now: number[];
  /** Inject once they finish loading (discarded tabs load when the user returns to them). */
  whenLoaded: number[];
}

export function planTabs(tabs: readonly TabInfo[], allowed: (url: string) => boolean): TabPlan {
  const plan: TabPlan = { now: [], whenLoaded: [] };
  for (const t of tabs) {
    if (t.id === undefined || t.incognito || !t.url || !/^https?:\/\//i.test(t.url) || !allowed(t.url)) continue;
    if (t.discarded || t.status === 'loading' || t.status === 'unloaded') plan.whenLoaded.push(t.id);
    else plan.now.push(t.id);
  }
  return plan;
}
