/**
 * A bounded map that forgets what was used least recently, in two generations: lookups of a
 * recent entry cost one Map read (no reordering on every hit, which the hot paths paid on each
 * request: the parsed target, the quote dedupe, the inspected document, the cached 402). An
 * entry read from the older generation moves to the newer one; when the newer one is full it
 * becomes the older one and the oldest generation is dropped. At most `capacity` entries are
 * kept; anything used within the last capacity / 2 insertions is kept.
 */
export interface Lru<K, V> {
  get(key: K): V | undefined;
  set(key: K, value: V): void;
  readonly size: number;
}

export function createLru<K, V>(capacity: number): Lru<K, V> {
  const half = Math.max(1, Math.ceil(capacity / 2));
  let young = new Map<K, V>();
  let old = new Map<K, V>();
  const put = (key: K, value: V) => {
    if (young.size >= half) {
      old = young;
      young = new Map();
    }
    young.set(key, value);
  };
  return {
    get(key) {
      const value = young.get(key);
      if (value !== undefined) return value;
      const aged = old.get(key);
      if (aged !== undefined) {
        old.delete(key);
        put(key, aged);
      }
      return aged;
    },
    set(key, value) {
      if (young.has(key)) {
        young.set(key, value);
        return;
      }
      old.delete(key);
      put(key, value);
    },
    get size() {
      return young.size + old.size;
    },
  };
}
