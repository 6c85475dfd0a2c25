/**
 * The client's address, for throttling per address. Next.js puts the socket's
 * address in X-Forwarded-For only when the request has none, and a reverse
 * proxy appends the address it was connected from; so the address is the
 * entry SFBENCH_TRUSTED_PROXIES places from the right (the last one with 0 or
 * 1 proxy). Without a proxy a client can send its own X-Forwarded-For: put the
 * portal behind one that sets it (README, "Throttling"). IPv6 addresses count
 * by their /64, the block one host usually has.
 */
import { isIPv4, isIPv6 } from "node:net";
import { env } from "../../env.ts";

export function clientAddress(headers: Headers, trustedProxies: number = env.SFBENCH_TRUSTED_PROXIES): string | null {
  const entries = (headers.get("x-forwarded-for") ?? "")
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) return null;
  const entry = entries[Math.max(0, entries.length - Math.max(1, trustedProxies))]!;
  return addressKey(entry);
}

/** An address as a throttling key: IPv4 as it is, IPv4-mapped IPv6 as IPv4, IPv6 as its /64; anything else as given (at most 64 characters). */
export function addressKey(raw: string): string {
  let address = raw.replace(/^\[(.*)\](:\d+)?$/, "$1").replace(/%.*$/, "");
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address);
  if (mapped) address = mapped[1]!;
  if (isIPv4(address)) return address;
  if (isIPv6(address)) return `${ipv6Groups(address).slice(0, 4).join(":")}::/64`;
  return raw.slice(0, 64);
}

/** The eight 16-bit groups of a valid IPv6 address, in lower-case hex without leading zeros. */
function ipv6Groups(address: string): string[] {
  const v4 = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(address);
  if (v4) {
    const [a, b, c, d] = v4.slice(1).map(Number) as [number, number, number, number];
    address = `${address.slice(0, v4.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head, tail] = address.split("::") as [string, string | undefined];
  const front = head ? head.split(":") : [];
  const back = tail ? tail.split(":") : [];
  const groups = tail === undefined ? front : [...front, ...Array<string>(8 - front.length - back.length).fill("0"), ...back];
  return groups.map((g) => parseInt(g, 16).toString(16));
}
