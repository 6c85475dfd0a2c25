/**
 * One Pulumi stack per run, behind a small interface so the provider and the
 * sweep can be tested against a fake workspace. The real one is the Pulumi
 * Automation API (LocalWorkspace with an inline program: infra/pulumi's
 * runProgram); it needs the Pulumi CLI and the kubernetes plugin on the
 * worker's machine (docs/cluster.md).
 *
 * A stack is named after its run (`sfbench-<run id>`, the same as the run's
 * namespace), so the sweep finds every run's stack by listing them, and an
 * owner record (`<dir>/<run id>.json`, the worker's pid) tells a stack that a
 * live worker is using from one that a dead worker left behind.
 */
import { mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { runNamespace, type RunStackConfigInput } from "@sfbench/infra-pulumi/config";
import { z } from "zod";

/** What the run's program exports (infra/pulumi program.ts RunStackOutputs, resolved). */
export const RunStackOutputs = z.object({
  namespace: z.string().min(1),
  targetUrl: z.url(),
  // an undefined program output may come back as null
  testRun: z
    .string()
    .min(1)
    .nullish()
    .transform((v) => v ?? undefined),
  storage: z.record(z.string(), z.record(z.string(), z.string())).default({}),
  replicas: z.number().int().positive(),
  resources: z.object({ cpu: z.string(), memory: z.string() }),
});
export type RunStackOutputs = z.infer<typeof RunStackOutputs>;

export interface RunStack {
  readonly name: string;
  /** deploys (or updates to) this configuration; resolves once every resource is ready */
  up(config: RunStackConfigInput): Promise<RunStackOutputs>;
  /** deletes every resource of the stack; a stack with none left is fine (idempotent) */
  destroy(): Promise<void>;
}

export interface RunStacks {
  /** the run's stack, created when missing */
  open(runId: string): Promise<RunStack>;
  /** the names of every stack in the backend */
  list(): Promise<string[]>;
  /** forgets a stack (after destroy); a missing stack is fine (idempotent) */
  remove(stackName: string): Promise<void>;
}

/** The stack of a run: named like its namespace. */
export const stackName = (runId: string) => runNamespace(runId);

const RUN_STACK = /^sfbench-([0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12})$/;

/** The run id of a run's stack name; undefined for any other stack (the sweep leaves those alone). */
export function runIdOfStack(name: string): string | undefined {
  return RUN_STACK.exec(name)?.[1];
}

/** Which worker process uses which run's stack (a file per run, removed when the stack is gone). */
export class StackOwners {
  constructor(readonly dir: string) {}

  claim(runId: string, pid = process.pid): void {
    mkdirSync(this.dir, { recursive: true });
    writeFileSync(join(this.dir, `${runId}.json`), JSON.stringify({ runId, pid, since: new Date().toISOString() }) + "\n");
  }

  release(runId: string): void {
    rmSync(join(this.dir, `${runId}.json`), { force: true });
  }

  /** the pid recorded for a run's stack, if any */
  owner(runId: string): number | undefined {
    try {
      const rec = JSON.parse(readFileSync(join(this.dir, `${runId}.json`), "utf8")) as { pid?: unknown };
      return typeof rec.pid === "number" ? rec.pid : undefined;
    } catch {
      return undefined;
    }
  }

  runs(): string[] {
    try {
      return readdirSync(this.dir)
        .filter((n) => n.endsWith(".json"))
        .map((n) => n.slice(0, -5));
    } catch {
      return [];
    }
  }
}

export interface PulumiStacksOptions {
  /** a Pulumi backend URL; file://<dir> keeps the state on the worker's machine */
  backend: string;
  passphrase: string;
  onOutput?: (line: string) => void;
}

export const PULUMI_PROJECT = "sfbench-runs";

/** The Pulumi Automation API as RunStacks: LocalWorkspace, inline program = infra/pulumi's runProgram. */
export function pulumiStacks(opts: PulumiStacksOptions): RunStacks {
  const workspaceOptions = {
    projectSettings: { name: PULUMI_PROJECT, runtime: "nodejs" as const, backend: { url: opts.backend } },
    envVars: { PULUMI_CONFIG_PASSPHRASE: opts.passphrase, PULUMI_SKIP_UPDATE_CHECK: "true" },
  };
  // loaded on first use: a worker without a cluster never loads Pulumi
  const automation = async () => (await import("@pulumi/pulumi")).automation;
  /** the Automation API's errors carry the whole command output; keep what says what went wrong */
  const explain = (e: unknown): Error => {
    const text = e instanceof Error ? e.message : String(e);
    if (/ENOENT: pulumi|spawn pulumi ENOENT/.test(text))
      return new Error("the Pulumi CLI is not installed on the worker's machine (no pulumi on PATH); see docs/cluster.md");
    const stderr = /stderr: ([\s\S]*?)(\n err\?:|$)/.exec(text)?.[1]?.trim();
    return new Error((stderr || text).split("\n").filter(Boolean).slice(-5).join(" | "));
  };
  const wrap = <T>(p: Promise<T>): Promise<T> => p.catch((e: unknown) => Promise.reject(explain(e)));
  const onOutput = opts.onOutput ?? (() => {});

  async function select(name: string, program: () => Promise<Record<string, unknown>>) {
    const { LocalWorkspace } = await automation();
    return LocalWorkspace.createOrSelectStack({ projectName: PULUMI_PROJECT, stackName: name, program }, workspaceOptions);
  }

  return {
    async open(runId) {
      const name = stackName(runId);
      return {
        name,
        async up(config) {
          const { runProgram } = await import("@sfbench/infra-pulumi");
          const stack = await wrap(select(name, async () => ({ ...runProgram(config) })));
          const result = await wrap(stack.up({ onOutput }));
          return RunStackOutputs.parse(Object.fromEntries(Object.entries(result.outputs).map(([k, v]) => [k, v.value])));
        },
        async destroy() {
          // destroy does not run the program; an empty one selects the stack
          const stack = await wrap(select(name, async () => ({})));
          await wrap(stack.destroy({ onOutput }));
        },
      };
    },
    async list() {
      const { LocalWorkspace } = await automation();
      const ws = await wrap(LocalWorkspace.create(workspaceOptions));
      return (await wrap(ws.listStacks())).map((s) => s.name);
    },
    async remove(name) {
      const { LocalWorkspace } = await automation();
      const ws = await wrap(LocalWorkspace.create(workspaceOptions));
      if (!(await wrap(ws.listStacks())).some((s) => s.name === name)) return;
      await wrap(ws.removeStack(name));
    },
  };
}
