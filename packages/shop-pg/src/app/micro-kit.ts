/**
 * What the SPEC 8 microbenchmark functions of every target here compute the
 * same way: the handler clock, the round-trip histogram, the /micro/io
 * payload, Big's seeded receivers and divide's merge.
 */
export const now = () => process.hrtime.bigint();
export const since = (start: bigint) => Number(now() - start);

/** Upper bounds of the round-trip histogram: 1, 2, 5 x 10^k ns for k = 3..9; a last bucket holds the rest. */
const BOUNDS_NS = [3, 4, 5, 6, 7, 8, 9].flatMap((k) => [1, 2, 5].map((m) => m * 10 ** k));

export function histogram(): { add(ns: number): void; buckets(): Array<[number | null, number]> } {
  const counts = new Array<number>(BOUNDS_NS.length + 1).fill(0);
  return {
    add(ns) {
      const at = BOUNDS_NS.findIndex((le) => ns <= le);
      counts[at === -1 ? BOUNDS_NS.length : at]!++;
    },
    buckets: () => [...BOUNDS_NS.map((le, i): [number, number] => [le, counts[i]!]), [null, counts[BOUNDS_NS.length]!]],
  };
}

/** The /micro/io payload: byte i is "abc...z"[i % 26]. */
export function payload(bytes: number): Buffer {
  const out = Buffer.allocUnsafe(bytes);
  for (let i = 0; i < bytes; i++) out[i] = 97 + (i % 26);
  return out;
}

/** A small seeded generator (mulberry32) for Big's random receivers. */
export function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Merges sorted arrays (the fan-in of divide). */
export function merge(parts: number[][]): number[] {
  const out = new Array<number>(parts.reduce((n, p) => n + p.length, 0));
  const at = new Array<number>(parts.length).fill(0);
  for (let o = 0; o < out.length; o++) {
    let best = -1;
    for (let j = 0; j < parts.length; j++) {
      if (at[j]! < parts[j]!.length && (best === -1 || parts[j]![at[j]!]! < parts[best]![at[best]!]!)) best = j;
    }
    out[o] = parts[best]![at[best]!++]!;
  }
  return out;
}
