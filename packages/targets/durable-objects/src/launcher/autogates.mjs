/**
 * Autogates for workerd that Miniflare cannot set.
 *
 * workerd caps SQLite's heap for the whole process (512 MiB) and every live
 * Durable Object holds its own SQLite database open, so one workerd process
 * answers SQLITE_NOMEM from about 3,000 live objects on: the standard
 * profile's 5000 products do not fit. workerd raises the cap to 8 GiB behind
 * the autogate `increase-sqlite-hard-heap-limit` (cloudflare/workerd#6570),
 * which production rolls out and a local workerd leaves off. workerd reads
 * autogates from its config (workerd.capnp: Config's field 4, a List(Text)),
 * a Cap'n Proto message that Miniflare writes to workerd's stdin and offers
 * no option for; `--all-autogates` would turn on every pending change at
 * once. So workerd.sh, started by Miniflare in workerd's place,
 * runs this file on that message and then becomes workerd.
 *
 * Plain JavaScript, not TypeScript: it runs with every (re)start of workerd,
 * where a TypeScript loader would add start-up time to measured restarts.
 *
 *   node autogates.mjs < config.capnp > patched.capnp   (gates: SFBENCH_WORKERD_AUTOGATES, comma separated)
 */
import { readFileSync, writeSync } from "node:fs";
import { fileURLToPath } from "node:url";

/** workerd.capnp: Config's pointer slot of `autogates` */
const AUTOGATES_SLOT = 4;
const PREFIX = "workerd-autogate-";

const ELEMENT_BYTE = 2;
const ELEMENT_POINTER = 6;

/**
 * A list pointer (Cap'n Proto encoding: kind 1) at word `at`, pointing at word `target`.
 * @param {Buffer} seg @param {number} at @param {number} target @param {number} elementSize @param {number} count
 */
function writeListPointer(seg, at, target, elementSize, count) {
  seg.writeInt32LE(((target - (at + 1)) << 2) | 1, at * 8);
  seg.writeUInt32LE((elementSize | (count << 3)) >>> 0, at * 8 + 4);
}

/**
 * The root struct of a single-segment message: where its pointers start and how many there are.
 * @param {Buffer} seg
 */
function rootStruct(seg) {
  const lo = seg.readInt32LE(0);
  const hi = seg.readUInt32LE(4);
  if ((lo & 3) !== 0) throw new Error("workerd config: the root is not a struct pointer");
  const start = 1 + (lo >> 2);
  return { pointers: start + (hi & 0xffff), pointerCount: hi >>> 16 };
}

/**
 * The message with `Config.autogates` set to `gates` (names without the
 * `workerd-autogate-` prefix). Throws on anything but a single-segment
 * message whose autogates are unset: Miniflare (capnp-es) writes those.
 * @param {Uint8Array} message
 * @param {string[]} gates
 * @returns {Buffer}
 */
export function addAutogates(message, gates) {
  const buf = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  if (buf.length < 16) throw new Error(`workerd config: ${buf.length} bytes is not a Cap'n Proto message`);
  const segments = buf.readUInt32LE(0) + 1;
  if (segments !== 1) throw new Error(`workerd config: ${segments} segments; only a single-segment message can be patched`);
  const words = buf.readUInt32LE(4);
  if (buf.length !== 8 + words * 8) throw new Error(`workerd config: ${buf.length} bytes, but the segment table says ${8 + words * 8}`);
  const seg = buf.subarray(8);
  const root = rootStruct(seg);
  if (root.pointerCount <= AUTOGATES_SLOT) throw new Error(`workerd config: Config has ${root.pointerCount} pointers, no autogates field`);
  const slot = root.pointers + AUTOGATES_SLOT;
  if (seg.readUInt32LE(slot * 8) !== 0 || seg.readUInt32LE(slot * 8 + 4) !== 0) throw new Error("workerd config: autogates are already set");

  const texts = gates.map((g) => Buffer.from(`${PREFIX}${g}\0`, "utf8"));
  const textWords = texts.map((t) => Math.ceil(t.length / 8));
  const extra = gates.length + textWords.reduce((a, b) => a + b, 0);
  const out = Buffer.alloc(8 + (words + extra) * 8);
  buf.copy(out);
  out.writeUInt32LE(words + extra, 4);
  const o = out.subarray(8);
  // appended: the list of text pointers, then the texts (NUL-terminated, padded to words)
  const list = words;
  writeListPointer(o, slot, list, ELEMENT_POINTER, gates.length);
  let at = list + gates.length;
  texts.forEach((text, i) => {
    writeListPointer(o, list + i, at, ELEMENT_BYTE, text.length);
    text.copy(o, at * 8);
    at += textWords[i] ?? 0;
  });
  return out;
}

/**
 * The autogates a config message sets (prefix included), for checking.
 * @param {Uint8Array} message
 * @returns {string[]}
 */
export function readAutogates(message) {
  const buf = Buffer.from(message.buffer, message.byteOffset, message.byteLength);
  const segments = buf.readUInt32LE(0) + 1;
  const seg = buf.subarray(Math.ceil((4 + 4 * segments) / 8) * 8); // the first segment, after the segment table
  const root = rootStruct(seg);
  const slot = root.pointers + AUTOGATES_SLOT;
  if (root.pointerCount <= AUTOGATES_SLOT || (seg.readUInt32LE(slot * 8) === 0 && seg.readUInt32LE(slot * 8 + 4) === 0)) return [];
  const list = slot + 1 + (seg.readInt32LE(slot * 8) >> 2);
  const count = seg.readUInt32LE(slot * 8 + 4) >>> 3;
  return Array.from({ length: count }, (_, i) => {
    const p = list + i;
    const start = p + 1 + (seg.readInt32LE(p * 8) >> 2);
    const length = seg.readUInt32LE(p * 8 + 4) >>> 3;
    return seg.subarray(start * 8, start * 8 + length - 1).toString("utf8");
  });
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const gates = (process.env.SFBENCH_WORKERD_AUTOGATES ?? "").split(",").filter(Boolean);
  try {
    const out = gates.length ? addAutogates(readFileSync(0), gates) : readFileSync(0);
    for (let off = 0; off < out.length;) off += writeSync(1, out, off);
  } catch (e) {
    process.stderr.write(`durable-objects: ${e instanceof Error ? e.message : String(e)}\n`);
    process.exit(1);
  }
}
