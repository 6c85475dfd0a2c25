/**
 * The ports of one target instance: Restate's node-to-node (fabric), ingress
 * and admin ports and the service endpoint's, all on 127.0.0.1. New ones are
 * leased below the kernel's ephemeral range, as every sfbench process chooses
 * ports: one from listen(0) could become an outgoing connection's source port
 * (a loaded machine makes thousands) before Restate binds it. They are
 * remembered in the data directory, so a restart on the same data reuses them
 * while they are free: Restate keeps the node's address and the deployment's
 * URI in its metadata.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { freePort, portFree } from "@sfbench/core/ports";
import { z } from "zod";

const Port = z.number().int().min(1).max(65535);
export const Ports = z.object({ fabric: Port, ingress: Port, admin: Port, service: Port });
export type Ports = z.infer<typeof Ports>;

/** The ports remembered in `dataDir` where still free, new free ones for the rest; written back. */
export async function choosePorts(dataDir: string, exclude: readonly number[]): Promise<Ports> {
  const file = join(dataDir, "ports.json");
  let previous: Partial<Ports> = {};
  if (existsSync(file)) {
    try {
      const parsed = Ports.safeParse(JSON.parse(readFileSync(file, "utf8")));
      if (parsed.success) previous = parsed.data;
    } catch {
      // a damaged file: choose new ports
    }
  }
  const taken = new Set(exclude);
  const pick = async (old: number | undefined): Promise<number> => {
    let port = old !== undefined && !taken.has(old) && (await portFree(old)) ? old : await freePort();
    while (taken.has(port)) port = await freePort();
    taken.add(port);
    return port;
  };
  const ports: Ports = {
    fabric: await pick(previous.fabric),
    ingress: await pick(previous.ingress),
    admin: await pick(previous.admin),
    service: await pick(previous.service),
  };
  writeFileSync(file, JSON.stringify(ports, null, 2));
  return ports;
}
