/** sfbench login [--server URL] [--token TOKEN]: store an API token (from the portal's tokens page) for a server. */
import { createInterface } from "node:readline/promises";
import { ApiError, query, remote, saveToken } from "../api.ts";
import { parseFlags, UsageError, urlFlag } from "../args.ts";
import { note } from "../progress.ts";

async function readToken(): Promise<string> {
  if (process.stdin.isTTY) {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    const answer = await rl.question("API token (create one on the portal's tokens page): ");
    rl.close();
    return answer.trim();
  }
  let text = "";
  for await (const chunk of process.stdin) text += chunk;
  return text.trim();
}

export async function login(argv: string[]): Promise<number> {
  const { values } = parseFlags("sfbench login", argv, {
    server: { type: "string", value: "URL", help: "the portal, default SFBENCH_SERVER or http://127.0.0.1:3000" },
    token: { type: "string", value: "TOKEN", help: "the API token; read from stdin when absent" },
  });
  const r = remote(urlFlag("sfbench login", "server", values.server));
  const token = values.token ?? (await readToken());
  if (!token) throw new UsageError("sfbench login: no token given (--token TOKEN, or on stdin)");
  const me = await query<{ email: string } | null>({ server: r.server, token, tokenSource: values.token ? "--token" : "stdin" }, "auth.me").catch(
    (e: ApiError) => {
      throw new ApiError(`sfbench login: ${e.message}`, e.status);
    },
  );
  if (!me) throw new ApiError(`sfbench login: ${r.server} does not accept this token (revoked or mistyped?)`, 401);
  const file = saveToken(r.server, token);
  note(`logged in to ${r.server} as ${me.email}; token stored in ${file}`);
  return 0;
}
