/**
 * A small in-process cache with stale-while-revalidate: a fresh value is
 * served as it is; a stale one is served while one reload runs in the
 * background; a missing one is loaded. A failed reload keeps the old value.
 * Values are kept per database client (tests run several databases at once).
 *
 * With a `version` function (a cheap query, e.g. how many runs are completed
 * and the latest finish), every get first asks for the current version: when
 * the data changed since the value was loaded (a worker in another process
 * completed a run), the value is reloaded before it is served, so a change
 * shows on the next page load, not a TTL later. A failing version check falls
 * back to the TTL.
 */
export interface Cache<V> {
  get(key: string): Promise<V>;
  clear(): void;
}

interface Entry<V> {
  value?: V;
  /** the version the value was loaded at */
  version?: string;
  at: number;
  pending?: Promise<V>;
  pendingVersion?: string;
}

export interface CacheOptions {
  now?: () => number;
  /** the data's current version for a key; a value loaded at another version is not served */
  version?: (key: string) => Promise<string>;
}

export function swrCache<V>(ttlMs: number, load: (key: string) => Promise<V>, options: CacheOptions | (() => number) = {}): Cache<V> {
  const { now = () => Date.now(), version } = typeof options === "function" ? { now: options } : options;
  const entries = new Map<string, Entry<V>>();
  const reload = (key: string, entry: Entry<V>, at: string | undefined): Promise<V> => {
    // a reload already under way for an older version would serve old data: start another
    if (entry.pending && entry.pendingVersion === at) return entry.pending;
    const pending = load(key)
      .then((value) => {
        if (entry.pending === pending || entry.pending === undefined) Object.assign(entry, { value, version: at, at: now() });
        return value;
      })
      .finally(() => {
        if (entry.pending === pending) entry.pending = entry.pendingVersion = undefined;
      });
    entry.pending = pending;
    entry.pendingVersion = at;
    return pending;
  };
  return {
    async get(key) {
      if (ttlMs <= 0) return load(key);
      let entry = entries.get(key);
      if (!entry) entries.set(key, (entry = { at: 0 }));
      const current = version ? await version(key).catch(() => undefined) : undefined;
      if (entry.value === undefined) return reload(key, entry, current);
      if (current !== undefined && current !== entry.version) return reload(key, entry, current);
      if (now() - entry.at >= ttlMs) reload(key, entry, current ?? entry.version).catch(() => undefined);
      return entry.value;
    },
    clear() {
      entries.clear();
    },
  };
}
