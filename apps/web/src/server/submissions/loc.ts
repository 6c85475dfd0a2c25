/** LOC pasted into the submission form: JSON validated with @sfbench/db's LocCounts (the TargetVersion.loc column's schema). */
import { LocCounts } from "@sfbench/db";
import { fieldError } from "../trpc/errors.ts";

export function parseLoc(text: string | undefined): LocCounts | undefined {
  if (text === undefined) return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw fieldError("loc", `not valid JSON: ${(e as Error).message}`);
  }
  const parsed = LocCounts.safeParse(json);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.map(String).join(".") || "(root)"}: ${i.message}`);
    throw fieldError("loc", `${problems.join("; ")} (expected {"<language>": {"app": <lines>, "gateway": <lines>}})`);
  }
  return parsed.data;
}
