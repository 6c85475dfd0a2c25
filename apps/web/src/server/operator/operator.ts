/**
 * The operator: the account whose email is SFBENCH_OPERATOR_EMAIL, once the
 * operator took it through a link `npm run operator` printed on the portal's
 * machine (setup.ts); nobody who signs up with the address first becomes the
 * operator, and sign-up refuses that address anyway. The bundled targets' names belong to the operator: another
 * account submitting one is refused (403, which `sfbench submit` reports as
 * exit 4), and the operator's submission takes the system over, whether the
 * worker created it (no owner) or an account claimed it before names were
 * reserved.
 */
import type { Db } from "@sfbench/db";
import { buildManifest } from "../../shared/submit.ts";
import type { SessionUser } from "../auth/sessions.ts";
import { fieldError } from "../trpc/errors.ts";
import { bundledTargetNames } from "./bundled.ts";

export function isOperator(user: Pick<SessionUser, "email" | "operatorSince">, operatorEmail: string | null): boolean {
  return operatorEmail !== null && user.email === operatorEmail && user.operatorSince !== null;
}

/**
 * Before a submission: refuses a bundled target's name to anyone but the
 * operator, and hands such a system to the operator when the operator submits
 * it. A submission whose manifest is invalid passes untouched: submit() names
 * its fields.
 */
export async function reserveBundledName(
  db: Db,
  user: SessionUser,
  input: Parameters<typeof buildManifest>[0],
  operatorEmail: string | null,
  bundled: Set<string> = bundledTargetNames(),
): Promise<void> {
  const built = buildManifest(input);
  if (!built.ok || !bundled.has(built.manifest.name)) return;
  const name = built.manifest.name;
  if (!isOperator(user, operatorEmail)) {
    const why =
      operatorEmail !== null && user.email === operatorEmail
        ? " (this is the operator's address, but this account was not set up through an operator link: run `npm run operator -w @sfbench/web -- --email <address>` on the portal's machine and follow the link it prints)"
        : "";
    throw fieldError("name", `the name "${name}" is a bundled target and belongs to the operator${why}; choose another name`, "FORBIDDEN");
  }
  await db.$transaction(async (tx) => {
    // the same lock as submit()'s: a system being created under this name is not taken over half-made
    await tx.$executeRaw`SELECT pg_advisory_xact_lock(hashtextextended(${`system:${name}`}, 0))`;
    await tx.system.updateMany({ where: { slug: name, OR: [{ ownerId: null }, { ownerId: { not: user.id } }] }, data: { ownerId: user.id } });
  });
}
