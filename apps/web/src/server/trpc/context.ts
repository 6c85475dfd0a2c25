/** The tRPC context: the database, the request's headers, who is asking (and from where), and where Set-Cookie goes. */
import type { Db } from "@sfbench/db";
import { env } from "../../env.ts";
import { authenticate, type Authentication } from "../auth/authenticate.ts";
import { clientAddress } from "../auth/client-address.ts";
import { requestOrigin } from "../auth/origin.ts";
import { defaultThrottleLimits, type ThrottleLimits } from "../auth/throttle.ts";
import { defaultPortalSettings, type PortalSettings } from "../portal-settings.ts";
import { defaultUploadSettings, type UploadSettings } from "../uploads/limits.ts";

export interface Context extends Authentication {
  db: Db;
  headers: Headers;
  /** response headers (Set-Cookie); the HTTP adapter sends them */
  resHeaders: Headers;
  /** scheme://host the request was sent to */
  origin: string;
  /** the client's address (auth/client-address.ts); null when the request did not say */
  address: string | null;
  limits: { submissionsPerHour: number } & ThrottleLimits;
  /** the operator and the mail of verification links */
  portal: PortalSettings;
  /** where uploads are stored (a submission claims them there) */
  uploads: UploadSettings;
}

export interface CreateContextOptions {
  db: Db;
  req: Request;
  resHeaders?: Headers;
  limits?: Partial<Context["limits"]>;
  portal?: Partial<PortalSettings>;
  uploads?: UploadSettings;
}

export async function createContext({
  db,
  req,
  resHeaders = new Headers(),
  limits,
  portal,
  uploads = defaultUploadSettings(),
}: CreateContextOptions): Promise<Context> {
  return {
    db,
    headers: req.headers,
    resHeaders,
    origin: requestOrigin(req.headers, req.url),
    address: clientAddress(req.headers),
    limits: { submissionsPerHour: env.SFBENCH_SUBMISSIONS_PER_HOUR, ...defaultThrottleLimits(), ...limits },
    portal: { ...defaultPortalSettings(), ...portal },
    uploads,
    ...(await authenticate(db, req.headers)),
  };
}
