/**
 * What the portal shows of a stored manifest to someone who does not own the
 * system: everything but the values of local.env, whose names stay. A team
 * may set a password, a token or a licence key there for its own runs; the
 * names say what the target is configured with, the values are the team's.
 */
export const HIDDEN_ENV_VALUE = "(hidden: shown to the system's owner)";

export function manifestView<M>(manifest: M, owner: boolean): M {
  if (owner || !manifest || typeof manifest !== "object") return manifest;
  const local = (manifest as { local?: unknown }).local;
  if (!local || typeof local !== "object") return manifest;
  const env = (local as { env?: unknown }).env;
  if (!env || typeof env !== "object") return manifest;
  const hidden = Object.fromEntries(Object.keys(env).map((k) => [k, HIDDEN_ENV_VALUE]));
  return { ...manifest, local: { ...local, env: hidden } };
}
