/**
 * npm run demo: the whole system on one machine, used the way a person would.
 * Starts the services, a local SMTP server (messages in .sfbench/mail/*.eml),
 * the portal and the worker; creates a demo account (the portal's operator,
 * its address verified with the mailed link) and an API token; submits every
 * bundled target with `sfbench submit`; the
 * worker verifies and benchmarks them (standard profile, checkout/uniform:
 * publishable numbers, knee known to 10%, see docs/running.md) and the leaderboard at
 * http://127.0.0.1:3000 fills in. Keeps running until Ctrl-C, then stops
 * everything it started: the worker (a run in progress ends as interrupted,
 * not failed), the portal, and every service that was not up before the demo,
 * also those the worker started (Kafka, for tracing). SFBENCH_DEMO_EXIT=1
 * exits once the runs are done.
 *
 * --with-image also submits node-postgres from its OCI image, as a team would
 * (image built, `podman save`d, `sfbench submit --image-archive`), under the
 * name node-postgres-image: the worker runs it as a podman container, and the
 * board shows the same target as processes and as a container side by side.
 * Not by default: the image build (minutes the first time) and one more
 * standard run do not fit the demo's 15 minutes on 2 cores.
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { ProgressEvent } from "@sfbench/core";
import { listTargets } from "@sfbench/provider-local";
import { up, type ServiceName } from "@sfbench/services";
import { linkIn, startMailSink, type MailSink } from "../apps/web/scripts/mail-sink.ts";
import { ensureBuild } from "../apps/web/scripts/server.ts";
import { demoAccount, demoCredentials } from "./lib/demo-account.ts";
import { IMAGE_DEMO, prepareImageSubmission } from "./lib/demo-image.ts";
import { getJson, serversUp, startLogged, stopAll, waitHttp, type Started } from "./lib/processes.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = join(root, "packages/cli/bin/sfbench.mjs");
const server = "http://127.0.0.1:3000";
const logs = join(root, ".sfbench/demo");
const say = (line: string) => process.stdout.write(`${line}\n`);
/** What the demo measures per bundled target: one publishable cell (standard profile), so ~3-4 targets fit in 15 minutes on 2 cores. */
const DEMO = { profile: "standard", workload: "checkout", distribution: "uniform" } as const;
const DEMO_CELL = `${DEMO.workload}/${DEMO.distribution}`;
const WITH_IMAGE = process.argv.slice(2).includes("--with-image");
const unknownFlags = process.argv.slice(2).filter((a) => a !== "--with-image");
if (unknownFlags.length) {
  process.stderr.write(`demo: unknown argument ${unknownFlags.join(" ")} (allowed: --with-image)\n`);
  process.exit(2);
}

interface Progress {
  status: string;
  stage: string | null;
  progress: number;
  live: ProgressEvent | null;
  errorStage: string | null;
  errorMessage: string | null;
}

async function follow(runs: Map<string, string>): Promise<void> {
  const last = new Map<string, string>();
  for (;;) {
    let open = 0;
    for (const [id, name] of runs) {
      const p = (await getJson<{ result: { data: Progress } }>(`${server}/api/trpc/runs.progress?input=${encodeURIComponent(JSON.stringify({ id }))}`)).result.data;
      const line =
        p.status === "running"
          ? // one line per step of the load; the seed's request count would print a line a second
            `running: ${p.live ? (p.live.phase === "seed" || p.live.phase === "populate" ? p.live.phase : `${p.live.phase} ${p.live.detail}`) : (p.stage ?? "starting")} (${p.progress}%)`
          : p.status === "failed" || p.status === "interrupted"
            ? `${p.status} during ${p.errorStage}: ${p.errorMessage}`
            : p.status;
      if (last.get(id) !== line) say(`  ${name}: ${line}`);
      last.set(id, line);
      if (p.status === "queued" || p.status === "running") open++;
    }
    if (!open) return;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

const started: Started[] = [];
let mail: MailSink | undefined;
let upBefore: Set<ServiceName> | undefined;
let stopping: Promise<never> | undefined;

async function shutdown(code: number): Promise<never> {
  // Ctrl-C twice, or an error while stopping, waits for the same shutdown
  stopping ??= (async () => {
    say("\nstopping the worker (a run in progress ends as interrupted) and the portal");
    await stopAll(started, upBefore, say);
    await mail?.stop();
    process.exit(code);
  })();
  return stopping;
}

async function main(): Promise<void> {
  const wanted: ServiceName[] = ["postgres", "redis", "k6"];
  upBefore = await serversUp();
  say("== services (PostgreSQL, Redis, k6)");
  await up(wanted, { onProgress: (s, m) => say(`  ${s}: ${m}`) });

  say("== mail");
  mail = await startMailSink({ dir: join(root, ".sfbench/mail") });
  say(`  SMTP server on ${mail.host}:${mail.port}; the portal's mail is written to ${mail.dir}/*.eml`);

  say("== portal");
  const credentials = demoCredentials(join(root, ".sfbench/demo-account.json"));
  ensureBuild(say);
  say("  portal build is up to date");
  const inUse = await fetch(server, { signal: AbortSignal.timeout(1000) }).then(() => true, () => false);
  if (inUse) throw new Error(`${server} is already taken by another process: stop it and run the demo again`);
  const web = startLogged("portal", join(root, "node_modules/.bin/next"), ["start", "--hostname", "127.0.0.1", "--port", "3000"], {
    cwd: join(root, "apps/web"),
    log: join(logs, "web.log"),
    // the demo is this portal's operator submitting its own bundled targets, again on every demo: the public limit (10 an hour per account) is for strangers
    // the demo account is the operator: the bundled targets' names are reserved for it
    env: {
      SFBENCH_SUBMISSIONS_PER_HOUR: process.env.SFBENCH_SUBMISSIONS_PER_HOUR ?? "1000",
      SFBENCH_OPERATOR_EMAIL: credentials.email,
      SFBENCH_SMTP_HOST: mail.host,
      SFBENCH_SMTP_PORT: String(mail.port),
    },
  });
  started.push(web);
  await waitHttp(server, 120_000, () => web.child.exitCode !== null);
  say(`  portal up at ${server} (log ${web.log})`);

  say("== worker");
  const worker = startLogged("worker", process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], { cwd: root, log: join(logs, "worker.log") });
  started.push(worker);
  say(`  worker started (log ${worker.log})`);

  say("== demo account");
  const sink = mail;
  const account = await demoAccount(server, credentials, async (email) => {
    const received = await sink.next(email);
    say(`  verification mail: ${received.file}`);
    return linkIn(received, "/verify-email");
  });
  say(`  email ${account.email}, password ${account.password} (the portal's operator: SFBENCH_OPERATOR_EMAIL)`);
  if (account.verifiedWith) say(`  address verified with the mailed link ${account.verifiedWith}`);
  say(`  API token: ${account.token}`);
  say(`  try: SFBENCH_TOKEN=${account.token} npx sfbench submit --manifest packages/targets/node-postgres/target.json --server ${server}`);

  say("== submitting the bundled targets (sfbench submit)");
  const runs = new Map<string, string>();
  const submit = (name: string, manifest: string, extra: string[] = []) => {
    let out: string;
    try {
      out = execFileSync(process.execPath, [cli, "submit", "--manifest", manifest, ...extra, "--server", server, "--profile", DEMO.profile, "--workload", DEMO.workload, "--distribution", DEMO.distribution], {
        cwd: root,
        env: { ...process.env, SFBENCH_TOKEN: account.token },
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
      }).trim();
    } catch {
      // the CLI printed why (e.g. a target.json changed under a version the portal already has): the other targets go on
      say(`  ${name}: not submitted (the reason is above)`);
      return;
    }
    say(`  ${name}: ${out}`);
    runs.set(out.split("/").pop()!, name);
  };
  for (const t of listTargets()) submit(t.name, join(t.dir, "target.json"));
  if (WITH_IMAGE) {
    say(`== ${IMAGE_DEMO.target} from its image as ${IMAGE_DEMO.name} (sfbench image build, podman save, sfbench submit --image-archive)`);
    try {
      const prepared = await prepareImageSubmission({ root, cli, dir: join(logs, IMAGE_DEMO.name), say });
      submit(IMAGE_DEMO.name, prepared.manifest, ["--image-archive", prepared.archive]);
    } catch (e) {
      // podman missing, the build failing: the processes' runs go on without it
      say(`  ${IMAGE_DEMO.name}: not submitted: ${(e as Error).message}`);
    }
  }

  if (runs.size === 0) throw new Error("no bundled target was submitted (the reasons are above), so there is nothing to benchmark");
  say(`== runs (the worker verifies, then benchmarks ${DEMO_CELL} with the ${DEMO.profile} profile: the knee bisected to 10%)`);
  await follow(runs);
  const names = [...new Set(runs.values())];
  say(`\nleaderboard: ${server}`);
  for (const [id, name] of runs) say(`${name}: ${server}/systems/${name} (run: ${server}/runs/${id})`);
  if (names.length >= 2) say(`compare:     ${server}/compare?systems=${names.slice(0, 4).join(",")}`);
  if (process.env.SFBENCH_DEMO_EXIT === "1") await shutdown(0);
  say("Press Ctrl-C to stop the portal and the worker.");
}

process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
main().catch(async (e: Error) => {
  process.stderr.write(`demo: ${e.message}\n`);
  await shutdown(1);
});
