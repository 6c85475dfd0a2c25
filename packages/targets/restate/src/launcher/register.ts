/**
 * Waiting for the Restate server and registering the service endpoint as a
 * deployment through the admin API. On a restart with the same data the
 * deployment exists already: it is re-discovered at the same URI, or moved to
 * the new URI when the endpoint's port had to change.
 */
import { connect } from "node:net";
import { z } from "zod";

const Deployments = z.object({
  deployments: z.array(z.object({ id: z.string(), uri: z.string().optional() }).loose()),
});
const IngressHealth = z.object({ services: z.array(z.string()).optional() }).loose();

export const SERVICES = ["Product", "User", "Cart", "Order", "CoPurchase", "Micro", "MicroPing", "MicroPong", "MicroDivide", "MicroBig", "MicroDriver"];

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

async function answers(url: string): Promise<Response | undefined> {
  try {
    return await fetch(url, { signal: AbortSignal.timeout(2000) });
  } catch {
    return undefined;
  }
}

/** Polls until `ready` says yes, or throws after the deadline (on `performance.now()`) naming what was awaited. */
export async function waitFor(what: string, deadline: number, ready: () => Promise<boolean>, aborted: () => string | undefined): Promise<void> {
  while (!(await ready())) {
    const why = aborted();
    if (why) throw new Error(`${why} while waiting for ${what}`);
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(100);
  }
}

async function admin(adminUrl: string, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(adminUrl + path, {
    method,
    headers: { "content-type": "application/json" },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    signal: AbortSignal.timeout(30_000),
  });
  const text = await res.text();
  if (!res.ok) throw new Error(`Restate admin ${method} ${path} answered ${res.status}: ${text.slice(0, 500)}`);
  return text ? JSON.parse(text) : undefined;
}

/** Registers the endpoint at `serviceUri`; says what it did. */
export async function registerDeployment(adminUrl: string, serviceUri: string): Promise<string> {
  const { deployments } = Deployments.parse(await admin(adminUrl, "GET", "/deployments"));
  const same = deployments.find((d) => d.uri === serviceUri);
  const other = deployments[0];
  if (!same && other) {
    await admin(adminUrl, "PATCH", `/deployments/${encodeURIComponent(other.id)}`, { uri: serviceUri, overwrite: true });
    return `deployment ${other.id} moved from ${other.uri} to ${serviceUri}`;
  }
  await admin(adminUrl, "POST", "/deployments", { uri: serviceUri, force: true });
  return same ? `deployment ${same.id} at ${serviceUri} re-discovered` : `deployment at ${serviceUri} registered`;
}

export const adminHealthy = async (adminUrl: string) => (await answers(`${adminUrl}/health`))?.status === 200;

/** The ingress knows every service of the deployment (schema changes reach it shortly after registration). */
export async function ingressServesAll(ingressUrl: string): Promise<boolean> {
  const res = await answers(`${ingressUrl}/restate/health`);
  if (res?.status !== 200) return false;
  const parsed = IngressHealth.safeParse(await res.json().catch(() => null));
  const services = parsed.success ? (parsed.data.services ?? []) : [];
  return SERVICES.every((s) => services.includes(s));
}

/** Something accepts connections on 127.0.0.1:port (the endpoint is up, so discovery can reach it). */
export function listening(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ port, host: "127.0.0.1" });
    socket.once("connect", () => {
      socket.destroy();
      resolve(true);
    });
    socket.once("error", () => resolve(false));
  });
}
