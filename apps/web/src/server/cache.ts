/**
 * A small in-process cache with stale-while-revalidate: a fresh value is
 * served as it is; a stale one is served while one reload runs in the
 * background; a missing one is loaded. A failed reload keeps the old value.
 * Values are kept per database client (tests run several databases at once).
 */
export interface Cache<V> {
  get(key: string): Promise<V>;
  clear(): void;
}

interface Entry<V> {
  value?: V;
  at: number;
  pending?: Promise<V>;
}

export function swrCache<V>(ttlMs: number, load: (key: string) => Promise<V>, now = () => Date.now()): Cache<V> {
  const entries = new Map<string, Entry<V>>();
  const reload = (key: string, entry: Entry<V>): Promise<V> => {
    entry.pending ??= load(key)
      .then((value) => {
        Object.assign(entry, { value, at: now() });
        return value;
      })
      .finally(() => {
        entry.pending = undefined;
      });
    return entry.pending;
  };
  return {
    async get(key) {
      if (ttlMs <= 0) return load(key);
      let entry = entries.get(key);
      if (!entry) entries.set(key, (entry = { at: 0 }));
      if (entry.value === undefined) return reload(key, entry);
      if (now() - entry.at >= ttlMs) reload(key, entry).catch(() => undefined);
      return entry.value;
    },
    clear() {
      entries.clear();
    },
  };
}
