export const SERVICE_NAMES = ["postgres", "redis", "kafka", "k6"] as const;

export type ServiceName = (typeof SERVICE_NAMES)[number];

export interface ServiceStatus {
  name: ServiceName;
  running: boolean;
  url?: string;
  pid?: number;
  detail: string;
}

/**
 * A server's URL as it may be shown: its password replaced by `***` (a
 * status line or an error ends up in terminals, logs and CI output; the
 * password stays in its 0600 file and in the URL clients are handed).
 */
export function redactUrl(url: string): string {
  try {
    const u = new URL(url);
    if (!u.password) return url;
    u.password = "***";
    return u.toString().replace("%2A%2A%2A", "***");
  } catch {
    return url;
  }
}

export type Progress = (message: string) => void;

/** What every service module provides; index.ts fans calls out over these. */
export interface Service {
  up(progress: Progress): Promise<ServiceStatus>;
  down(): Promise<void>;
  status(): Promise<ServiceStatus>;
}

/** A tool the machine lacks and sfbench cannot install by itself; the message says how to install it. */
export class MissingPrerequisiteError extends Error {
  override name = "MissingPrerequisiteError";
}
