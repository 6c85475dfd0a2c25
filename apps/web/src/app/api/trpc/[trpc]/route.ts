/** The tRPC endpoint (/api/trpc/<procedure>): queries by GET, mutations by POST. */
import { handleTrpc } from "../../../../server/trpc/http.ts";

export const dynamic = "force-dynamic";

export const GET = (req: Request) => handleTrpc(req);
export const POST = (req: Request) => handleTrpc(req);
