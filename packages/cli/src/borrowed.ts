/**
 * The shared servers a command borrowed (the tracing Kafka of `sfbench run`
 * and `sfbench campaign`): borrowed once, by the first trial that needs one,
 * and given back when the command ends, so a run leaves the machine as it
 * found it.
 */
// types only: main.ts loads this module in the published CLI too, which bundles no services
import type { Borrowed, ServiceName } from "@sfbench/services";

const held = new Map<ServiceName, Promise<Borrowed>>();

/** `name` for the rest of this command; a failed start is not kept, so the next trial tries again. */
export function borrowForCommand(name: Exclude<ServiceName, "k6">, onProgress: (message: string) => void): Promise<Borrowed> {
  let b = held.get(name);
  if (!b) {
    b = import("@sfbench/services").then(({ borrow }) => borrow(name, { onProgress: (_s, m) => onProgress(m) }));
    held.set(name, b);
    b.catch(() => held.delete(name));
  }
  return b;
}

/** Gives back everything this command borrowed; the last borrower stops a server a borrower started. */
export async function returnBorrowed(): Promise<void> {
  const all = [...held.values()];
  held.clear();
  for (const b of await Promise.allSettled(all)) if (b.status === "fulfilled") await b.value.release();
}
