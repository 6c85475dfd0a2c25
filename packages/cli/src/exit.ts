/** The exit codes, as the README's table lists them. */
export const EXIT = {
  ok: 0,
  /** a check or validation failed: verify, a manifest, a run that failed, input the portal refused */
  failed: 1,
  /** a bad command line: the message names the flag or argument and what is allowed */
  usage: 2,
  /** the environment: a missing prerequisite, a target that does not start, a portal out of reach, a run that could not be measured here */
  environment: 3,
  /** the portal refused who you are: no API token, a token it does not accept (401), or not yours (403) */
  auth: 4,
} as const;
