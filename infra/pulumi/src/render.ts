/**
 * The Kubernetes objects the program of one run would create, without the
 * Pulumi engine or a cluster: the program runs under Pulumi's mocks and every
 * resource it registers is kept as the object it describes. The program's
 * unit test validates these against the Kubernetes API schemas; the kube-play
 * path (kube-play/) runs them with `podman kube play`.
 */
import * as pulumi from "@pulumi/pulumi";
import { z } from "zod";
import type { RunStackConfigInput } from "./config.ts";
import { runProgram } from "./program.ts";

export const KubeObject = z
  .object({
    apiVersion: z.string().min(1),
    kind: z.string().min(1),
    metadata: z.object({ name: z.string().min(1), namespace: z.string().optional(), labels: z.record(z.string(), z.string()).optional() }).loose(),
  })
  .loose();
export type KubeObject = z.infer<typeof KubeObject>;

/** `kubernetes:apps/v1:Deployment` -> apps/v1, Deployment; the core group has no prefix (`v1`). */
export function typeToKind(type: string): { apiVersion: string; kind: string } | undefined {
  const m = /^kubernetes:([^:]+)\/([^:/]+):([A-Za-z]+)$/.exec(type);
  if (!m) return undefined;
  const [, group, version, kind] = m;
  return { apiVersion: group === "core" ? version! : `${group}/${version}`, kind: kind! };
}

/** The program's resources register asynchronously after their outputs resolve; these turns of the event loop without a new one mean it is done. */
const QUIET_TURNS = 20;

let stackNo = 0;
/** Pulumi's mocks are process-wide: one rendering at a time. */
let queue: Promise<unknown> = Promise.resolve();

/** Runs the program under Pulumi's mocks and returns the Kubernetes objects it registered, in registration order. */
export function renderRun(input: RunStackConfigInput): Promise<KubeObject[]> {
  const next = queue.then(() => render(input));
  queue = next.catch(() => undefined);
  return next;
}

async function render(input: RunStackConfigInput): Promise<KubeObject[]> {
  const objects: KubeObject[] = [];
  let registrations = 0;
  await pulumi.runtime.setMocks(
    {
      newResource: (args) => {
        registrations++;
        const kind = typeToKind(args.type);
        if (kind) objects.push(KubeObject.parse({ ...kind, ...(args.inputs as object) }));
        return { id: `${args.name}-id`, state: args.inputs };
      },
      call: (args) => args.inputs,
    },
    "sfbench-render",
    `render-${++stackNo}`,
    false,
  );
  const out = runProgram(input);
  const resolve = <T>(o: pulumi.Output<T>) => new Promise<T>((r) => o.apply((v) => (r(v), v)));
  await Promise.all([resolve(out.namespace), resolve(out.targetUrl)]);
  for (let quiet = 0, seen = registrations; quiet < QUIET_TURNS; seen = registrations) {
    await new Promise((r) => setImmediate(r));
    quiet = registrations === seen ? quiet + 1 : 0;
  }
  return objects;
}
