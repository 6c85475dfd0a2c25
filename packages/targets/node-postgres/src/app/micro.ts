/**
 * SPEC 8 microbenchmarks on the baseline. There is no entity runtime here:
 * an entity is a row of micro_entities, and a message to it is one round trip
 * through PostgreSQL. Ping-pong and Big call micro_deliver() (schema.sql),
 * which counts the message in the receiver's row and answers with the payload.
 * Divide sends each part by writing it into the child's row; the child (a
 * function invocation given only its row's id) reads its slice from there and
 * writes its sorted answer back, which the parent reads. handlerNs is the
 * time spent in these functions (process.hrtime.bigint), not in Fastify.
 */
import { createHash, randomUUID } from "node:crypto";
import { histogram, merge, now, payload, random, since, type Db, type Micro } from "@sfbench/shop-pg";

export function createMicro(db: Db): Micro {
  /** Removes a request's entity rows once it has its answer. */
  const forget = (run: string) => db.query("DELETE FROM micro_entities WHERE run = $1", [run]);

  return {
    // The key names the entity; empty, math and sleep touch no state, so nothing reads it.
    async empty() {
      const start = now();
      return { handlerNs: since(start) };
    },

    async math(_key, n) {
      const start = now();
      let inside = 0;
      for (let i = 0; i < n; i++) {
        const x = Math.random();
        const y = Math.random();
        if (x * x + y * y <= 1) inside++;
      }
      return { n, pi: (4 * inside) / n, handlerNs: since(start) };
    },

    async sleep(_key, ms) {
      const start = now();
      // A timer is due against the event loop's cached clock, so it can fire up to a
      // millisecond before ms have passed on the handler's own clock: wait out the rest.
      for (let left = ms; left > 0; left = ms - since(start) / 1e6) {
        await new Promise((resolve) => setTimeout(resolve, Math.ceil(left)));
      }
      return { ms, handlerNs: since(start) };
    },

    async io(key, bytes) {
      const start = now();
      await db.query("INSERT INTO micro_io (key, payload) VALUES ($1, $2) ON CONFLICT (key) DO UPDATE SET payload = excluded.payload", [key, payload(bytes)]);
      const { rows } = await db.query<{ payload: Buffer }>("SELECT payload FROM micro_io WHERE key = $1", [key]);
      const sha256 = createHash("sha256").update(rows[0]!.payload).digest("hex");
      return { key, bytes, sha256, handlerNs: since(start) };
    },

    async pingpong({ pairs, messages, bytes }) {
      const start = now();
      const run = randomUUID();
      const body = payload(bytes);
      const rtt = histogram();
      const first = now();
      try {
        await Promise.all(
          Array.from({ length: pairs }, async (_, i) => {
            for (let m = 0; m < messages; m++) {
              const sent = now();
              const { rows } = await db.query<{ reply: Buffer }>("SELECT micro_deliver($1, $2, $3) AS reply", [run, `pong-${i}`, body]);
              if (rows[0]!.reply.length !== bytes) throw new Error(`pong-${i} answered ${rows[0]!.reply.length} bytes, not ${bytes}`);
              rtt.add(since(sent));
            }
          }),
        );
        const totalNs = since(first);
        return { pairs, messages: pairs * messages, bytes, totalNs, histogram: rtt.buckets(), handlerNs: since(start) };
      } finally {
        await forget(run);
      }
    },

    async divide({ items, fanout, leaf, seed }) {
      const start = now();
      const run = randomUUID();
      try {
        const input = new Array<number>(items);
        let x = BigInt(seed);
        for (let k = 0; k < items; k++) {
          x = (1103515245n * x + 12345n) % 2147483648n;
          input[k] = Number(x % 1_000_000n);
        }
        const first = now();
        /** Sends a slice to entity `id`: its row, created with the slice. */
        const send = (id: string, slice: number[]) => db.query("INSERT INTO micro_entities (run, id, slice) VALUES ($1, $2, $3)", [run, id, slice]);
        /** Entity `id`: reads its slice, sorts it or divides it among children, writes its sorted answer. */
        const entity = async (id: string): Promise<void> => {
          const { rows } = await db.query<{ slice: number[] }>("SELECT slice FROM micro_entities WHERE run = $1 AND id = $2", [run, id]);
          const slice = rows[0]!.slice;
          let sorted: number[];
          if (slice.length <= leaf) sorted = slice.sort((a, b) => a - b);
          else {
            const children = Array.from({ length: fanout }, (_, j) => `${id}.${j}`);
            const answers = await Promise.all(
              children.map(async (child, j) => {
                await send(child, slice.slice(Math.floor((j * slice.length) / fanout), Math.floor(((j + 1) * slice.length) / fanout)));
                await entity(child);
                const answer = await db.query<{ slice: number[] }>("SELECT slice FROM micro_entities WHERE run = $1 AND id = $2", [run, child]);
                return answer.rows[0]!.slice;
              }),
            );
            sorted = merge(answers);
          }
          await db.query("UPDATE micro_entities SET slice = $3 WHERE run = $1 AND id = $2", [run, id, sorted]);
        };
        await send("root", input);
        await entity("root");
        const { rows } = await db.query<{ slice: number[]; entities: number }>(
          "SELECT (SELECT slice FROM micro_entities WHERE run = $1 AND id = 'root') AS slice, (SELECT count(*) FROM micro_entities WHERE run = $1)::int AS entities",
          [run],
        );
        const totalNs = since(first);
        const sorted = rows[0]!.slice;
        let checksum = 0n;
        for (let i = 0; i < sorted.length; i++) checksum = (checksum + BigInt(sorted[i]!) * BigInt(i + 1)) % 2147483647n;
        return { items, first: sorted[0]!, last: sorted.at(-1)!, checksum: Number(checksum), entities: rows[0]!.entities, totalNs, handlerNs: since(start) };
      } finally {
        await forget(run);
      }
    },

    async big({ entities, messages, seed }) {
      const start = now();
      const run = randomUUID();
      const empty = Buffer.alloc(0);
      const first = now();
      try {
        await Promise.all(
          Array.from({ length: entities }, async (_, sender) => {
            const share = Math.floor(messages / entities) + (sender < messages % entities ? 1 : 0);
            const next = random(seed * 31 + sender);
            for (let m = 0; m < share; m++) {
              const offset = 1 + Math.floor(next() * (entities - 1));
              await db.query("SELECT micro_deliver($1, $2, $3)", [run, `big-${(sender + offset) % entities}`, empty]);
            }
          }),
        );
        const { rows } = await db.query<{ delivered: number }>("SELECT coalesce(sum(received), 0)::bigint AS delivered FROM micro_entities WHERE run = $1", [
          run,
        ]);
        return { entities, messages, delivered: rows[0]!.delivered, totalNs: since(first), handlerNs: since(start) };
      } finally {
        await forget(run);
      }
    },
  };
}
