export const SERVICE_NAMES = ["postgres", "redis", "kafka", "k6"] as const;

export type ServiceName = (typeof SERVICE_NAMES)[number];

export interface ServiceStatus {
  name: ServiceName;
  running: boolean;
  url?: string;
  pid?: number;
  detail: string;
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
