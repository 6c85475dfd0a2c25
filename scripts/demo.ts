/**
 * npm run demo: the whole system on one machine, used the way a person would.
 * Starts the services, a local SMTP server (messages in .sfbench/mail/*.eml),
 * the portal and the worker; imports the campaigns the repository keeps
 * (results/campaigns: real documents, each row labelled with its machine and
 * date) so a ranked board is there as soon as the portal is; creates a demo
 * account (the portal's operator,
 * set up through the link `npm run operator` prints) and an API token; registers
 * bundled targets with `sfbench submit --register-only` and queues one
 * campaign over them with `sfbench campaign --server`: n = 3 trials of each
 * system in randomised interleaved rounds, standard profile (publishable
 * numbers: the knee bisected and confirmed to 5%). By default the campaign
 * is sized to a time budget (--budget, 30 minutes): the reference
 * (node-postgres) and as many systems as fit, on checkout/uniform, each
 * system's trial time estimated from the newest kept campaign that measured
 * it (scripts/lib/demo-budget.ts), the plan printed before anything starts.
 * --full runs every bundled target on the original benchmark's two workloads
 * (checkout and analytics, uniform): hours on two cores. The worker runs the
 * rounds; the leaderboard at http://127.0.0.1:3000 shows each system as
 * provisional after its first trial and ranks the campaign's medians with
 * their intervals once its trials are in. The demo prints when each
 * happened and, at the end, where the time went (per system and stage) and
 * each system's ratio to the reference here beside the kept one. Keeps running until Ctrl-C, then stops everything it started: the
 * worker (a run in progress ends as interrupted, not failed), the portal, and
 * every service that was not up before the demo, also those the worker
 * started (Kafka, for tracing). SFBENCH_DEMO_EXIT=1 exits once the runs are
 * done.
 *
 *   npm run demo [-- --budget 30m | --full] [-- --targets a,b] [-- --trials N] [-- --workloads a,b] [-- --with-image] [-- --dry-run]
 *
 * --targets names the systems instead of the budget choosing them;
 * --workloads the workloads (checkout by default, checkout and analytics
 * with --full; under a budget each workload counts as another checkout's
 * time); --trials the trials (3). --dry-run prints the campaign it would
 * queue and starts nothing. --with-image also
 * submits node-postgres from its OCI image, as a team would (image built,
 * `podman save`d, `sfbench submit --image-archive`), under the name
 * node-postgres-image: the worker runs it as a podman container in the same
 * campaign, and the board shows the same target as processes and as a
 * container side by side. A later demo measures the image the portal already
 * has for that version (a version's archive is kept as first submitted).
 */
import { execFileSync } from "node:child_process";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { WORKLOADS, type ProgressEvent, type ResultDocument } from "@sfbench/core";
import { compareStatistics, comparisonText, minutes, parseBudget } from "../packages/cli/src/reproduce.ts";
import { keptCampaigns, keptRatios, liveStatistics, planDemo, UNKNOWN_FACTOR, type DemoPlan, type LiveTrial } from "./lib/demo-budget.ts";
import { findTarget, listTargets } from "@sfbench/catalogue";
import { up, type ServiceName } from "@sfbench/services";
import { startMailSink, type MailSink } from "../apps/web/scripts/mail-sink.ts";
import { ensureBuild } from "../apps/web/scripts/server.ts";
import { demoAccount, demoCredentials, operatorLink } from "./lib/demo-account.ts";
import { campaignTiming, observe, timingTable, type TrialClock } from "./lib/demo-timing.ts";
import { IMAGE_DEMO, prepareImageSubmission } from "./lib/demo-image.ts";
import { systemVerdict } from "./lib/demo-verdict.ts";
import { getJson, serversUp, startLogged, stopAll, waitHttp, type Started } from "./lib/processes.ts";

const root = fileURLToPath(new URL("..", import.meta.url));
const cli = join(root, "packages/cli/bin/sfbench.mjs");
const server = "http://127.0.0.1:3000";
const logs = join(root, ".sfbench/demo");
const say = (line: string) => process.stdout.write(`${line}\n`);
const clock = () => new Date().toISOString().slice(11, 19);
/**
 * The campaign the demo queues: publishable numbers, n = 3; within the budget
 * checkout alone, in full both workloads of the original benchmark.
 */
const DEMO = { profile: "standard", workloads: "checkout", fullWorkloads: "checkout,analytics", distribution: "uniform", trials: 3, budget: "30m" } as const;
/** The reference every ratio is to (the board's, too). */
const REFERENCE = "node-postgres";
const keptDir = join(root, "results/campaigns");

/** A comma-separated flag's members, trimmed, empty ones dropped. */
const members = (value: string | undefined) =>
  value
    ?.split(",")
    .map((t) => t.trim())
    .filter(Boolean);

interface DemoArgs {
  targets?: string[];
  trials: number;
  workloads: string;
  withImage: boolean;
  /** print the campaign the demo would queue, start nothing */
  dryRun: boolean;
  /** the plan within the budget; absent with --full or --targets (the systems are chosen, not fitted) */
  plan?: DemoPlan;
  budgetS?: number;
}

function demoArgs(argv: string[]): DemoArgs {
  let values;
  try {
    ({ values } = parseArgs({
      args: argv,
      options: {
        targets: { type: "string" },
        trials: { type: "string" },
        workloads: { type: "string" },
        "with-image": { type: "boolean" },
        budget: { type: "string" },
        full: { type: "boolean" },
        "dry-run": { type: "boolean" },
      },
      strict: true,
      allowPositionals: false,
    }));
  } catch (e) {
    process.stderr.write(
      `demo: ${(e as Error).message} (allowed: --budget TIME  --full  --targets a,b  --trials N  --workloads a,b  --with-image  --dry-run)\n`,
    );
    process.exit(2);
  }
  const bundled = listTargets().map((t) => t.name);
  const targets = members(values.targets);
  const unknown = targets?.filter((t) => !bundled.includes(t)) ?? [];
  if (targets && (!targets.length || unknown.length)) {
    process.stderr.write(
      `demo: --targets: ${unknown.join(", ") || "(none)"} ${unknown.length === 1 ? "is" : "are"} not bundled (bundled: ${bundled.join(", ")})\n`,
    );
    process.exit(2);
  }
  const trials = values.trials === undefined ? DEMO.trials : Number(values.trials);
  if (!Number.isInteger(trials) || trials < 1 || trials > 20) {
    process.stderr.write(`demo: --trials must be a whole number from 1 to 20, got "${values.trials}"\n`);
    process.exit(2);
  }
  const workloads = members(values.workloads);
  const unknownWorkloads = workloads?.filter((w) => !(WORKLOADS as readonly string[]).includes(w)) ?? [];
  if (workloads && (!workloads.length || unknownWorkloads.length)) {
    process.stderr.write(`demo: --workloads: expected a comma-separated list of ${WORKLOADS.join(", ")}, got "${values.workloads}"\n`);
    process.exit(2);
  }
  if (values.full && values.budget !== undefined) {
    process.stderr.write("demo: --full runs every system on both workloads whatever the time: it takes no --budget\n");
    process.exit(2);
  }
  const budgetS = parseBudget(values.budget ?? DEMO.budget);
  if (budgetS === undefined || budgetS <= 0) {
    process.stderr.write(`demo: --budget must be a time like 30m, 1h30m, 90s or a number of minutes, got "${values.budget}"\n`);
    process.exit(2);
  }
  const args: DemoArgs = {
    ...(targets ? { targets } : {}),
    trials,
    workloads: workloads ? workloads.join(",") : values.full ? DEMO.fullWorkloads : DEMO.workloads,
    withImage: values["with-image"] === true,
    dryRun: values["dry-run"] === true,
  };
  if (values.full || targets) return args;
  // within the budget: the systems that fit, planned before anything starts, so that a budget that cannot hold the reference ends here
  const perWorkload = args.workloads.split(",").length;
  try {
    const plan = planDemo({
      systems: bundled,
      reference: REFERENCE,
      kept: keptCampaigns(keptDir),
      profile: DEMO.profile,
      budgetS: budgetS / perWorkload,
      trials,
    });
    return { ...args, plan, budgetS };
  } catch (e) {
    process.stderr.write(`demo: --budget: ${(e as Error).message}; give a larger --budget, or --targets, or --full\n`);
    process.exit(2);
  }
}
const ARGS = demoArgs(process.argv.slice(2));

interface Progress {
  status: string;
  stage: string | null;
  progress: number;
  live: ProgressEvent | null;
  errorStage: string | null;
  errorMessage: string | null;
  /** queued: runs the worker takes before this one */
  ahead: number | null;
}

/** What a run is doing for the time accounting: its stage, and within seed and load the experiment's phase (populate, ramp, stable, ...). */
const activityOf = (p: Progress) =>
  p.status !== "running" ? null : p.live && (p.stage === "load" || p.stage === "seed") ? p.live.phase : (p.stage ?? "provision");

/** Follows the campaign's runs to their end: a line per change, the milestones as they happen, and each trial's clock. */
async function follow(campaignId: string, rounds: number): Promise<TrialClock[]> {
  const clocks: TrialClock[] = [];
  const seen = new Map<string, { activity: string | null; at: number }>();
  const last = new Map<string, string>();
  let provisional = false;
  const ranked = new Set<string>();
  let waitingBehind: number | null = null;
  for (;;) {
    // the campaign's runs as queued: a busy trial's repeat appears when the worker queues it
    const listed = (
      await getJson<{ result: { data: Array<{ runId: string; system: string; round: number | null; attempt: number | null }> } }>(
        `${server}/api/trpc/campaigns.runs?input=${encodeURIComponent(JSON.stringify({ campaignId }))}`,
      )
    ).result.data;
    for (const r of listed) {
      if (clocks.some((c) => c.runId === r.runId)) continue;
      clocks.push({ runId: r.runId, system: r.system, round: r.round ?? 1, status: "queued", spent: {} });
      if ((r.attempt ?? 1) > 1) say(`  ${clock()} round ${r.round}/${rounds} ${r.system}: the last attempt was busy: attempt ${r.attempt} queued`);
    }
    let open = 0;
    // the campaign's first run still queued behind runs of others (an interrupted demo's leftovers): say so, or the demo seems stuck
    let behind: number | null = null;
    for (const c of clocks) {
      if (c.endedMs !== undefined) continue;
      const p = (await getJson<{ result: { data: Progress } }>(`${server}/api/trpc/runs.progress?input=${encodeURIComponent(JSON.stringify({ id: c.runId }))}`))
        .result.data;
      seen.set(c.runId, observe(c, { status: p.status, activity: activityOf(p) }, Date.now(), seen.get(c.runId)));
      const line =
        p.status === "running"
          ? // one line per step of the load; the seed's request count would print a line a second
            `running: ${p.live ? (p.live.phase === "seed" || p.live.phase === "populate" ? p.live.phase : `${p.live.cell} ${p.live.phase} ${p.live.detail}`) : (p.stage ?? "starting")} (${p.progress}%)`
          : p.status === "failed" || p.status === "interrupted"
            ? `${p.status} during ${p.errorStage}: ${p.errorMessage}`
            : p.status;
      if (last.get(c.runId) !== line && p.status !== "queued") say(`  ${clock()} round ${c.round}/${rounds} ${c.system}: ${line}`);
      if (p.status === "queued" && behind === null) behind = clocks.some((x) => x.status === "running") ? 0 : (p.ahead ?? 0);
      last.set(c.runId, line);
      if (p.status === "queued" || p.status === "running") open++;
      if (c.status === "completed" && !provisional) {
        provisional = true;
        say(`  ${clock()} the board has its first provisional row (${c.system}, one trial): ${server}`);
      }
      const own = clocks.filter((x) => x.system === c.system);
      if (!ranked.has(c.system) && own.every((x) => x.endedMs !== undefined)) {
        ranked.add(c.system);
        const completed = own.filter((x) => x.status === "completed");
        // as the board counts them: each trial (round) once, by its last completed attempt (clocks are in the order the runs were queued)
        const counted = [...new Map(completed.map((x) => [x.round, x])).values()];
        const docs = await Promise.all(
          counted.map(
            async (x) =>
              (
                await getJson<{ result: { data: { document: Pick<ResultDocument, "cells"> | null } } }>(
                  `${server}/api/trpc/runs.byId?input=${encodeURIComponent(JSON.stringify({ id: x.runId }))}`,
                )
              ).result.data.document,
          ),
        );
        const verdict = systemVerdict(docs.filter((d) => d !== null));
        const repeats = completed.length - counted.length;
        say(
          `  ${clock()} ${c.system}: all ${own.length} runs in (${completed.length} completed${repeats ? `; ${repeats} busy, each counted by its trial's last attempt` : ""}): ${verdict}`,
        );
      }
    }
    if (behind !== waitingBehind && (behind ?? 0) > 0)
      say(
        `  ${clock()} waiting: the worker takes ${behind} ${behind === 1 ? "run" : "runs"} of earlier campaigns or submissions first (queued before this one, or running)`,
      );
    waitingBehind = behind;
    if (!open) return clocks;
    await new Promise((r) => setTimeout(r, 1000));
  }
}

/** Whether the portal has this version of a system (an image system's version has its archive: one cannot be registered without it). */
async function portalHasVersion(slug: string, version: string): Promise<boolean> {
  const res = await fetch(`${server}/api/trpc/systems.bySlug?input=${encodeURIComponent(JSON.stringify({ slug }))}`);
  if (res.status === 404) return false;
  if (!res.ok) throw new Error(`the portal answered ${res.status} for system ${slug}`);
  const body = (await res.json()) as { result: { data: { versions: Array<{ version: string }> } } };
  return body.result.data.versions.some((v) => v.version === version);
}

/** The plan within the budget, said before anything starts. */
function planLines(plan: DemoPlan, budgetS: number, trials: number, workloads: string): string {
  const from = (system: string) => {
    const t = plan.times[system];
    return t
      ? `about ${minutes(t.seconds)} a trial (kept campaign ${t.from.campaignId.slice(0, 8)}, ${t.from.startedAt.slice(0, 10)}, ${t.from.machine.cpuModel})`
      : `about ${minutes(plan.trialS[system]!)} a trial (no kept campaign measured it yet: planned as ${UNKNOWN_FACTOR}x the longest kept trial)`;
  };
  return [
    `== the campaign within --budget ${minutes(budgetS)} (npm run demo -- --full: every system, checkout and analytics; --budget TIME: another budget)`,
    `  ${trials} trials each of ${plan.chosen.join(", ")} on ${workloads} / ${DEMO.distribution}: about ${minutes(plan.estimateS * workloads.split(",").length)}, estimated from the kept campaigns, ${minutes(plan.repeatS * workloads.split(",").length)} of it room for one busy trial's repeat (another machine may be faster or slower)`,
    ...plan.chosen.map((s) => `  ${s.padEnd(18)} ${from(s)}${s === REFERENCE ? " (the reference)" : ""}`),
    ...plan.left.map((l) => `  ${l.target.padEnd(18)} left out: ${l.why}`),
  ].join("\n");
}

/** Each system's ratio to the reference in this campaign's rounds beside the kept one (each trial counted by its last completed attempt, as the board counts it). */
async function beside(systems: string[], clocks: TrialClock[]): Promise<string> {
  const counted = [...new Map(clocks.filter((c) => c.status === "completed").map((c) => [`${c.system}:${c.round}`, c])).values()];
  const trials: LiveTrial[] = await Promise.all(
    counted.map(async (c) => ({
      system: c.system,
      round: c.round,
      document: (
        await getJson<{ result: { data: { document: LiveTrial["document"] } } }>(
          `${server}/api/trpc/runs.byId?input=${encodeURIComponent(JSON.stringify({ id: c.runId }))}`,
        )
      ).result.data.document,
    })),
  );
  const rows = compareStatistics(keptRatios(keptCampaigns(keptDir), DEMO.profile, REFERENCE), liveStatistics(systems, REFERENCE, trials), REFERENCE);
  return comparisonText({ reference: REFERENCE, label: "the newest kept campaign of each" }, rows);
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

/**
 * The repository's kept campaigns into the portal's database (idempotent by
 * run id): a newcomer sees a ranked board, each row with its machine and date,
 * before the first live trial is done. A failure is said and the demo goes on.
 */
function importKept(): void {
  try {
    const out = execFileSync(process.execPath, [cli, "results", "import", join(root, "results/campaigns")], {
      cwd: root,
      encoding: "utf8",
      stdio: ["ignore", "pipe", "pipe"],
    });
    say(`  ${out.trim().split("\n").at(-1)}`);
    say(`  ranked board of the kept campaigns: ${server} (the population header names their machine; the live campaign below adds this machine's)`);
  } catch (e) {
    say(`  not imported (the live campaign still runs): ${(e as { stderr?: string }).stderr?.trim() || (e as Error).message}`);
  }
}

async function main(): Promise<void> {
  if (ARGS.plan) say(planLines(ARGS.plan, ARGS.budgetS!, ARGS.trials, ARGS.workloads));
  else
    say(`== the campaign: ${ARGS.targets ? ARGS.targets.join(", ") : "every bundled system"}, ${ARGS.trials} trials each, ${ARGS.workloads}: no time budget`);
  if (ARGS.dryRun) return;
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
  const inUse = await fetch(server, { signal: AbortSignal.timeout(1000) }).then(
    () => true,
    () => false,
  );
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
  const portalUp = Date.now();
  say(`  portal up at ${server} (log ${web.log})`);

  say("== worker");
  const worker = startLogged("worker", process.execPath, ["--import", "tsx", "apps/worker/src/main.ts"], { cwd: root, log: join(logs, "worker.log") });
  started.push(worker);
  say(`  worker started (log ${worker.log})`);

  say("== the kept evidence (sfbench results import results/campaigns)");
  importKept();

  say("== demo account");
  const account = await demoAccount(server, credentials, (email) => operatorLink(server, email));
  say(`  email ${account.email}, password ${account.password} (the portal's operator: SFBENCH_OPERATOR_EMAIL)`);
  if (account.setUpWith)
    say(`  set up as an operator sets up the account: npm run operator -w @sfbench/web -- --email ${account.email}, then its link ${account.setUpWith}`);
  say(`  API token: ${account.token}`);
  say(`  try: SFBENCH_TOKEN=${account.token} npx sfbench submit --manifest packages/targets/node-postgres/target.json --server ${server}`);

  say("== registering the bundled targets (sfbench submit --register-only)");
  const cliEnv = { ...process.env, SFBENCH_TOKEN: account.token };
  const systems: string[] = [];
  const register = (name: string, manifest: string, extra: string[] = []) => {
    try {
      const out = execFileSync(process.execPath, [cli, "submit", "--manifest", manifest, ...extra, "--server", server, "--register-only"], {
        cwd: root,
        env: cliEnv,
        encoding: "utf8",
        stdio: ["ignore", "pipe", "inherit"],
      }).trim();
      say(`  ${out}`);
      systems.push(name);
    } catch {
      // the CLI printed why (e.g. a target.json changed under a version the portal already has): the other targets go on
      say(`  ${name}: not registered (the reason is above)`);
    }
  };
  const chosen = ARGS.plan?.chosen ?? ARGS.targets;
  for (const t of listTargets()) if (!chosen || chosen.includes(t.name)) register(t.name, join(t.dir, "target.json"));
  if (ARGS.withImage) {
    say(`== ${IMAGE_DEMO.target} from its image as ${IMAGE_DEMO.name} (sfbench image build, podman save, sfbench submit --image-archive)`);
    try {
      const { version } = findTarget(IMAGE_DEMO.target).manifest;
      if (await portalHasVersion(IMAGE_DEMO.name, version)) {
        // a version's archive is kept as first submitted (a changed one needs a new version): an earlier demo's image is measured again
        say(`  ${IMAGE_DEMO.name} ${version} is on the portal with the image archive an earlier demo submitted: the campaign measures that image`);
        systems.push(IMAGE_DEMO.name);
      } else {
        const prepared = await prepareImageSubmission({ root, cli, dir: join(logs, IMAGE_DEMO.name), say });
        register(IMAGE_DEMO.name, prepared.manifest, ["--image-archive", prepared.archive]);
      }
    } catch (e) {
      // podman missing, the build failing: the processes' runs go on without it
      say(`  ${IMAGE_DEMO.name}: not registered: ${(e as Error).message}`);
    }
  }
  if (systems.length === 0) throw new Error("no bundled target was registered (the reasons are above), so there is nothing to benchmark");

  say(
    `== campaign (sfbench campaign --server): ${systems.length} systems x ${ARGS.trials} trials in interleaved rounds, ${ARGS.workloads} / ${DEMO.distribution}, ${DEMO.profile} profile`,
  );
  const queued = execFileSync(
    process.execPath,
    [
      cli,
      "campaign",
      "--server",
      server,
      "--targets",
      systems.join(","),
      "--trials",
      String(ARGS.trials),
      "--profile",
      DEMO.profile,
      "--workload",
      ARGS.workloads,
      "--distribution",
      DEMO.distribution,
      "--json",
    ],
    { cwd: root, env: cliEnv, encoding: "utf8", stdio: ["ignore", "pipe", "inherit"] },
  );
  const campaign = JSON.parse(queued) as { campaignId: string; orderSeed: number; runs: Array<{ runId: string; system: string; round: number }> };
  say(`  campaign ${campaign.campaignId}: ${campaign.runs.length} runs, order seed ${campaign.orderSeed}`);
  for (let round = 1; round <= ARGS.trials; round++)
    say(
      `  round ${round}: ${campaign.runs
        .filter((r) => r.round === round)
        .map((r) => r.system)
        .join(", ")}`,
    );
  say("  (a trial taken while the machine was busy runs once more at the end of the queue)");

  say(`== runs (the worker verifies each system, then measures each cell: the knee bisected and confirmed to 5%, 30 s of stable load, the audit)`);
  const clocks = await follow(campaign.campaignId, ARGS.trials);
  const timing = campaignTiming(portalUp, clocks);
  say(`\n== where the time went\n${timingTable(timing)}`);
  if (systems.includes(REFERENCE) && systems.length > 1) say(`\n== this machine beside the kept evidence\n${await beside(systems, clocks)}`);
  say(`\nleaderboard: ${server}`);
  for (const name of systems) say(`${name}: ${server}/systems/${name}`);
  if (systems.length >= 2) say(`compare:     ${server}/compare?systems=${systems.join(",")}`);
  if (process.env.SFBENCH_DEMO_EXIT === "1") await shutdown(0);
  say("Press Ctrl-C to stop the portal and the worker.");
}

process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
main().catch(async (e: Error) => {
  process.stderr.write(`demo: ${e.message}\n`);
  await shutdown(1);
});
