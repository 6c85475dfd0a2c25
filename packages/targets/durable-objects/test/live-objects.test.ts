/**
 * One workerd holds the standard profile's objects: with workerd's SQLite
 * heap cap at its local default (512 MiB) it answered SQLITE_NOMEM from about
 * 3,000 live objects on; the launcher turns on the autogate that raises it
 * (src/launcher/autogates.mjs). The patch of workerd's config is checked
 * here byte for byte, and end to end on a real workerd.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { addAutogates, readAutogates } from "../src/launcher/autogates.mjs";
import { start } from "./helpers.ts";

/** A single-segment Config message as capnp-es writes it: root struct of 1 data word and 6 pointers, all unset. */
function emptyConfig(): Buffer {
  const words = 1 + 1 + 6;
  const b = Buffer.alloc(8 + words * 8);
  b.writeUInt32LE(0, 0); // one segment
  b.writeUInt32LE(words, 4);
  b.writeUInt32LE(0, 8); // root: struct pointer, offset 0
  b.writeUInt32LE(1 | (6 << 16), 12); // 1 data word, 6 pointers
  b.writeUInt32LE(0xdeadbeef, 16); // the data word (structuredLogging and friends) stays as it was
  return b;
}

describe("workerd's config gets the autogates", () => {
  it("sets Config.autogates (pointer 4) to the prefixed names, appended to the segment, and leaves the rest as it was", () => {
    const before = emptyConfig();
    const after = addAutogates(before, ["increase-sqlite-hard-heap-limit", "x"]);
    expect(readAutogates(before)).toEqual([]);
    expect(readAutogates(after)).toEqual(["workerd-autogate-increase-sqlite-hard-heap-limit", "workerd-autogate-x"]);
    // segment table: one segment, grown by 2 pointer words + ceil(49/8) + ceil(19/8) text words
    expect(after.readUInt32LE(0)).toBe(0);
    expect(after.readUInt32LE(4)).toBe(8 + 2 + 7 + 3);
    expect(after.length).toBe(8 + (8 + 2 + 7 + 3) * 8);
    // every word but pointer 4 is unchanged
    const slot4 = 8 + (2 + 4) * 8;
    expect(Buffer.concat([after.subarray(0, 4), after.subarray(8, slot4), after.subarray(slot4 + 8, before.length)])).toEqual(
      Buffer.concat([before.subarray(0, 4), before.subarray(8, slot4), before.subarray(slot4 + 8)]),
    );
  });

  it("refuses what it cannot patch safely, saying why", () => {
    const multi = emptyConfig();
    multi.writeUInt32LE(1, 0);
    expect(() => addAutogates(multi, ["g"])).toThrow(/2 segments; only a single-segment message/);
    expect(() => addAutogates(addAutogates(emptyConfig(), ["g"]), ["h"])).toThrow(/autogates are already set/);
    expect(() => addAutogates(Buffer.alloc(8), ["g"])).toThrow(/8 bytes is not a Cap'n Proto message/);
  });

  it("holds 4,000 live objects in one workerd (3,000 failed without the autogate), and workerd is the wrapper's own pid", async () => {
    const t = await start(18718);
    try {
      const log = t.log();
      const pid = Number(/workerd pid (\d+)/.exec(log)?.[1]);
      expect(readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0")[0]).toMatch(/\/workerd$/);
      const statuses = new Map<number, number>();
      let next = 0;
      let firstError: string | undefined;
      await Promise.all(
        Array.from({ length: 20 }, async () => {
          while (next < 4000) {
            next++;
            const a = await t.call("POST", "/products", { price: 10, stock: 100 });
            statuses.set(a.status, (statuses.get(a.status) ?? 0) + 1);
            if (a.status !== 200) firstError ??= a.text;
          }
        }),
      );
      expect(Object.fromEntries(statuses), firstError).toEqual({ 200: 4000 });
      expect(t.log()).not.toMatch(/SQLITE_NOMEM/);
    } finally {
      await t.stop();
    }
    // 4,000 objects each opening its SQLite file: a loaded CI machine took more than 120 s
  }, 300_000);
});
