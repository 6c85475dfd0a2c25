/** sfbench verify (--url URL | --target NAME) [--json] [--only PREFIX] [--micro]: the conformance suite (with the micro routes for targets that declare them). */
import { countChecks, formatReport, runConformance } from "@sfbench/conformance";
import { parseFlags, UsageError, urlFlag } from "../args.ts";
import { note, Progress } from "../progress.ts";
import { needRepository } from "../commands-table.ts";

export const verifyFlags = {
  url: { type: "string", value: "URL", help: "base URL of a running target" },
  target: { type: "string", value: "NAME", help: "a bundled target to start, verify and stop" },
  json: { type: "boolean", help: "print the report as JSON on stdout" },
  only: { type: "string", value: "PREFIX", multiple: true, help: "run only checks whose id starts with PREFIX (repeatable)" },
  micro: { type: "boolean", help: "also check the micro routes (docs/spec.md 8); a bundled target that declares them is always checked" },
} as const;

export async function verify(argv: string[]): Promise<number> {
  const { values } = parseFlags("sfbench verify", argv, verifyFlags);
  const url = urlFlag("sfbench verify", "url", values.url);
  if (!url === !values.target) throw new UsageError("sfbench verify: give exactly one of --url URL or --target NAME");

  let base = url;
  let started = false;
  // a bundled target is the repository's; --url needs nothing of it
  const local = values.target ? await needRepository("sfbench verify --target", () => import("@sfbench/provider-local")) : undefined;
  if (values.target && local) {
    const { runningTarget, startTarget } = local;
    const running = runningTarget(values.target);
    if (running) base = running.url;
    else {
      base = (await startTarget(values.target, { onProgress: note, port: "free", forRun: true })).url;
      started = true;
      note(`${values.target} is up at ${base}`);
    }
  }
  try {
    const micro =
      Boolean(values.micro) || (values.target && local ? (await import("@sfbench/catalogue")).findTarget(values.target).manifest.micro === true : false);
    const total = countChecks({ only: values.only, micro });
    if (total === 0) throw new UsageError(`sfbench verify: --only ${values.only?.join(", ")} matches no check`);
    const bar = new Progress(total, "verify");
    let failed = 0;
    const report = await runConformance(base!, {
      only: values.only,
      micro,
      onCheck: (r, done) => bar.update(done, r.id, (failed += r.passed ? 0 : 1)),
    });
    bar.done();
    process.stdout.write(values.json ? JSON.stringify(report, null, 2) + "\n" : formatReport(report, { color: Boolean(process.stdout.isTTY) }) + "\n");
    return report.failed === 0 ? 0 : 1;
  } finally {
    if (started) await local!.stopTarget(values.target!);
  }
}
