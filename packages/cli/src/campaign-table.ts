/**
 * The statistics of a campaign document as a table: per cell and target the
 * median sustainable rate, min, max, CV, the median's interval with its
 * coverage (core stats) and how far it
 * reaches from the median, n, invalid and busy trials, the ratio to the
 * reference, and the target's CPU at its knee as a share of the cores it was given. Plain text for the CLI, markdown for docs (npm run results:table).
 */
import type { CampaignDocument } from "@sfbench/core";

const num = (x: number | null | undefined, digits = 0) => (x === null || x === undefined || !Number.isFinite(x) ? "-" : x.toFixed(digits));
const pct0 = (x: number) => `${Math.round(x * 100)}%`;
const pct = (x: number | null | undefined) => (x === null || x === undefined ? "-" : `${(x * 100).toFixed(1)}%`);

export const CAMPAIGN_HEAD = [
  "cell",
  "target",
  "median",
  "min",
  "max",
  "CV",
  "interval (coverage)",
  "within",
  "n",
  "invalid",
  "busy",
  "tie group",
  "ratio to reference",
  "CPU at knee",
];

/** The target's CPU at its knee as a share of the cores it was given: the median, and the range when trials differ. */
function kneeCpu(share: CampaignDocument["statistics"][number]["kneeCoreShare"]): string {
  if (!share) return "-";
  return share.min === share.max ? pct0(share.median) : `${pct0(share.median)} (${pct0(share.min)} .. ${pct0(share.max)})`;
}

export function campaignRows(doc: CampaignDocument): string[][] {
  return doc.statistics.map((s) => {
    const groups = doc.tieGroups.find((g) => g.workload === s.workload && g.distribution === s.distribution)?.groups ?? [];
    const group = groups.findIndex((g) => g.includes(s.target));
    const r = s.ratioToReference;
    return [
      `${s.workload}/${s.distribution} (${s.unit})`,
      s.target,
      num(s.median),
      num(s.min),
      num(s.max),
      pct(s.cv),
      s.interval ? `${num(s.interval.low)} .. ${num(s.interval.high)} (${s.interval.coverage === undefined ? "95% t" : pct0(s.interval.coverage)})` : "-",
      s.withinShareOfMedian === null ? "-" : `+-${pct(s.withinShareOfMedian)}`,
      String(s.n),
      String(s.invalid),
      String(s.busy),
      group < 0 ? "-" : String(group + 1),
      r ? `${r.ratio.toFixed(2)}x${r.interval ? ` (${r.interval.low.toFixed(2)} .. ${r.interval.high.toFixed(2)})` : ""} of ${r.reference}` : "-",
      kneeCpu(s.kneeCoreShare),
    ];
  });
}

/** How busy the machine was over the campaign's measured trials: busy count, CPU outside the runs and the 1-minute load average, lowest to highest. */
export function noiseLine(doc: CampaignDocument): string {
  const noises = doc.trials.flatMap((t) => (t.noise ? [t.noise] : []));
  if (!noises.length) return "no trial measured the machine's noise";
  const range = (xs: number[]) => `${Math.min(...xs).toFixed(2)}-${Math.max(...xs).toFixed(2)}`;
  return `${noises.filter((n) => n.busy).length} of ${noises.length} measured trials busy; CPU outside the runs ${range(noises.map((n) => n.outsideCores))} cores, load average (1 min) ${range(noises.map((n) => n.loadAverage.start[0]))}`;
}

const heading = (doc: CampaignDocument) =>
  `campaign ${doc.campaignId} (${doc.kind}, ${doc.status}${doc.error ? `: ${doc.error}` : ""}): ${doc.targets.map((t) => `${t.name} ${t.version}`).join(", ")}; profile ${doc.profile}, ${doc.trialsPerTarget} trial${doc.trialsPerTarget === 1 ? "" : "s"} each, order seed ${doc.orderSeed}; ${doc.busyRepeated} busy trial${doc.busyRepeated === 1 ? "" : "s"} repeated; ${noiseLine(doc)}; ${doc.machine.cpuModel}, ${doc.machine.cores} cores`;

/** The trials that gave no figure for some cell, and why (round, target, attempt). */
export function trialNotesLines(doc: CampaignDocument): string[] {
  return doc.trials.flatMap((t) =>
    t.notes.map(
      (n) => `round ${t.round}, ${t.target}${t.attempt > 1 ? ` (attempt ${t.attempt})` : ""}${t.counted ? "" : " (busy, repeated)"}: ${n.split("\n")[0]}`,
    ),
  );
}

export function campaignTable(doc: CampaignDocument): string {
  const rows = campaignRows(doc);
  const widths = CAMPAIGN_HEAD.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (r: string[]) =>
    r
      .map((v, i) => (i < 2 || i >= r.length - 2 ? v.padEnd(widths[i]!) : v.padStart(widths[i]!)))
      .join("  ")
      .trimEnd();
  return [heading(doc), line(CAMPAIGN_HEAD), ...rows.map(line), ...trialNotesLines(doc)].join("\n") + "\n";
}

export function campaignMarkdown(doc: CampaignDocument, link?: string): string {
  const esc = (v: string) => v.replace(/\|/g, "\\|");
  return (
    [
      `**${link ? `[${doc.startedAt.slice(0, 10)} ${doc.campaignId.slice(0, 8)}](${link})` : doc.campaignId}**: ${esc(heading(doc).replace(/^campaign \S+ /, ""))}`,
      "",
      `| ${CAMPAIGN_HEAD.join(" | ")} |`,
      `|${CAMPAIGN_HEAD.map((_, i) => (i < 2 ? "---" : "---:")).join("|")}|`,
      ...campaignRows(doc).map((r) => `| ${r.map(esc).join(" | ")} |`),
      ...trialNotesLines(doc).map((l, i) => `${i === 0 ? "\n" : ""}- ${l}`),
    ].join("\n") + "\n"
  );
}

/** The cells the board ranks by default: SPEC's checkout and the analytics workload, both uniform. */
export const EVIDENCE_CELLS = ["checkout/uniform", "analytics/uniform"] as const;
/** The trials per system and cell the kept quiet-machine campaigns aim at; a system with fewer is said to have fewer, not hidden. */
export const EVIDENCE_TRIALS = 5;

/**
 * Per system and cell, the kept campaign that measured its current version
 * with the most trials (the newest of equals), beside the reference in the
 * same rounds: what the evidence for that system amounts to, and where
 * fewer than EVIDENCE_TRIALS trials or none back it. Without a campaign of
 * the current version, the best of an earlier one, said as such. Only
 * completed campaigns of the standard profile with a reference count.
 */
export function evidenceRows(docs: readonly CampaignDocument[], systems: readonly { name: string; version: string }[]): string[][] {
  const kept = docs.filter((d) => d.status === "completed" && d.profile === "standard" && d.reference);
  const versionIn = (doc: CampaignDocument, name: string) => doc.targets.find((t) => t.name === name)?.version;
  return systems.map(({ name, version }) => [
    name,
    ...EVIDENCE_CELLS.map((cell) => {
      const best = (current: boolean) => {
        let found: { doc: CampaignDocument; s: CampaignDocument["statistics"][number] } | undefined;
        for (const doc of kept)
          if ((versionIn(doc, name) === version) === current)
            for (const s of doc.statistics)
              if (s.target === name && `${s.workload}/${s.distribution}` === cell && s.n > 0)
                if (!found || s.n > found.s.n || (s.n === found.s.n && doc.startedAt > found.doc.startedAt)) found = { doc, s };
        return found;
      };
      const found = best(true) ?? best(false);
      if (!found) return "none";
      const { doc, s } = found;
      const r = s.ratioToReference;
      const figure =
        name === doc.reference
          ? `${num(s.median)} ${s.unit}, the reference`
          : r
            ? `${r.ratio.toFixed(2)}x${r.interval ? ` (${r.interval.low.toFixed(2)} .. ${r.interval.high.toFixed(2)})` : ""} of ${r.reference}`
            : `${num(s.median)} ${s.unit}, no ratio`;
      const short = `${s.n < EVIDENCE_TRIALS ? `, fewer than ${EVIDENCE_TRIALS}` : ""}${s.busy ? `, ${s.busy} busy` : ""}`;
      const cpu = s.kneeCoreShare ? `; CPU at knee ${kneeCpu(s.kneeCoreShare)}` : "";
      const measured = versionIn(doc, name);
      const of = measured === version ? measured : `${measured}, none yet of ${version}`;
      return `n = ${s.n}${short}: ${figure}${cpu}; ${of}, ${doc.startedAt.slice(0, 10)} ${doc.campaignId.slice(0, 8)}, ${doc.machine.cpuModel.replace(/\(R\)/g, "")}`;
    }),
  ]);
}

/** evidenceRows as a markdown table. */
export function evidenceMarkdown(docs: readonly CampaignDocument[], systems: readonly { name: string; version: string }[]): string {
  const head = ["system", ...EVIDENCE_CELLS];
  return (
    [
      `| ${head.join(" | ")} |`,
      `|${head.map(() => "---").join("|")}|`,
      ...evidenceRows(docs, systems).map((r) => `| ${r.map((v) => v.replace(/\|/g, "\\|")).join(" | ")} |`),
    ].join("\n") + "\n"
  );
}
