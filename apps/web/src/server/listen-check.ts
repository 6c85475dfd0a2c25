/**
 * A portal reachable from other machines must know the origin people reach it
 * at (SFBENCH_PUBLIC_ORIGIN): without it, mailed links point to
 * http://127.0.0.1:<port>, which is nobody else's portal, and mutations are
 * accepted only from the request's own origin. So the portal refuses to start
 * on anything but a loopback address without it: `npm run serve` before it
 * starts Next.js, `next start` run by hand in instrumentation.ts.
 */

/** 127.0.0.0/8, ::1 and localhost: only this machine reaches them. */
export function isLoopback(hostname: string): boolean {
  const host = hostname.replace(/^\[(.*)\]$/, "$1").toLowerCase();
  return (
    host === "localhost" ||
    host === "::1" ||
    host === "0:0:0:0:0:0:0:1" ||
    /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host) ||
    /^::ffff:127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(host)
  );
}

/**
 * The one-line reason not to listen on `hostname` (undefined: `next start`'s
 * default, every interface), or undefined when it may.
 */
export function listenProblem(hostname: string | undefined, publicOrigins: readonly string[]): string | undefined {
  if (hostname !== undefined && isLoopback(hostname)) return undefined;
  if (publicOrigins.length) return undefined;
  const where = hostname === undefined ? "every interface (next start without --hostname)" : hostname;
  return `refusing to listen on ${where} without SFBENCH_PUBLIC_ORIGIN: set it to the origin people reach this portal at (e.g. SFBENCH_PUBLIC_ORIGIN=https://sfbench.example.org), or listen on 127.0.0.1`;
}

/**
 * The hostname `next start` was given on its command line (`-H x`, `-Hx`,
 * `--hostname x`, `--hostname=x`; the last one counts, as with commander), or
 * undefined without one; "not next start" for every other process (`next dev`
 * serves from a child without these arguments).
 */
export function nextStartHostname(argv: readonly string[]): string | undefined | "not next start" {
  const start = argv.findIndex((a, i) => i >= 2 && a === "start");
  if (start < 0 || !argv.slice(0, start).some((a) => /(^|[\\/])next([\\/]dist[\\/]bin[\\/]next)?$/.test(a))) return "not next start";
  let hostname: string | undefined;
  const args = argv.slice(start + 1);
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!;
    if (a === "-H" || a === "--hostname") hostname = args[++i];
    else if (a.startsWith("--hostname=")) hostname = a.slice("--hostname=".length);
    else if (a.startsWith("-H")) hostname = a.slice(2);
  }
  return hostname;
}
