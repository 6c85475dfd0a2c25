/** Server response time of one page: sequential GETs (body read in full), after a warm-up; percentiles in ms. */

export interface Timing {
  name: string;
  requests: number;
  p50: number;
  p95: number;
  max: number;
  mean: number;
  /** bytes of the last response */
  bytes: number;
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
const round = (x: number) => Math.round(x * 10) / 10;

export async function measure(name: string, urls: () => string, requests: number, warmup = 10): Promise<Timing> {
  let bytes = 0;
  const once = async () => {
    const url = urls();
    const started = performance.now();
    const res = await fetch(url);
    const body = await res.arrayBuffer();
    const ms = performance.now() - started;
    if (!res.ok) throw new Error(`${url}: HTTP ${res.status}`);
    bytes = body.byteLength;
    return ms;
  };
  for (let i = 0; i < warmup; i++) await once();
  const times: number[] = [];
  for (let i = 0; i < requests; i++) times.push(await once());
  times.sort((a, b) => a - b);
  return {
    name,
    requests,
    p50: round(percentile(times, 50)),
    p95: round(percentile(times, 95)),
    max: round(times.at(-1)!),
    mean: round(times.reduce((s, x) => s + x, 0) / times.length),
    bytes,
  };
}
