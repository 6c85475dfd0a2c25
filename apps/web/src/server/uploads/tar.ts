/**
 * Reads a tar stream's headers (ustar, pax and GNU long names) without
 * extracting it, keeping only the few small entries asked for: enough to tell
 * an image archive's manifest.json / index.json, or to check a source
 * archive's names, with the archive never held in memory whole.
 */
const BLOCK = 512;

export type TarEntryType = "file" | "directory" | "symlink" | "hardlink" | "other";

export interface TarEntry {
  name: string;
  type: TarEntryType;
  size: number;
}

export class NotATar extends Error {}

const TYPES: Record<string, TarEntryType> = { "0": "file", "\0": "file", "7": "file", "5": "directory", "2": "symlink", "1": "hardlink" };

/** Pulls exact byte counts out of a chunked stream. */
class Reader {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private readonly it: AsyncIterator<Uint8Array>;
  private done = false;

  constructor(input: AsyncIterable<Uint8Array>) {
    this.it = input[Symbol.asyncIterator]();
  }

  private async fill(n: number): Promise<boolean> {
    while (this.buffered < n && !this.done) {
      const next = await this.it.next();
      if (next.done) this.done = true;
      else {
        this.chunks.push(Buffer.from(next.value));
        this.buffered += next.value.length;
      }
    }
    return this.buffered >= n;
  }

  /** exactly n bytes, or null at the end of the stream */
  async read(n: number): Promise<Buffer | null> {
    if (!(await this.fill(n))) return null;
    if (this.chunks[0]!.length < n) this.chunks = [Buffer.concat(this.chunks)];
    const head = this.chunks[0]!;
    this.chunks[0] = head.subarray(n);
    if (!this.chunks[0].length) this.chunks.shift();
    this.buffered -= n;
    return head.subarray(0, n);
  }

  /** drops n bytes without keeping them; false when the stream ends first */
  async skip(n: number): Promise<boolean> {
    let left = n;
    while (left > 0) {
      if (!this.buffered && !(await this.fill(1))) return false;
      const head = this.chunks[0]!;
      if (head.length <= left) {
        left -= head.length;
        this.buffered -= head.length;
        this.chunks.shift();
      } else {
        this.chunks[0] = head.subarray(left);
        this.buffered -= left;
        left = 0;
      }
    }
    return true;
  }
}

const text = (b: Buffer) => {
  const end = b.indexOf(0);
  return b.subarray(0, end < 0 ? b.length : end).toString("utf8");
};

function octal(b: Buffer): number {
  // GNU base-256 for sizes past 8 GiB: the first byte's high bit is set
  if (b[0]! & 0x80) return b.subarray(1).reduce((n, byte) => n * 256 + byte, b[0]! & 0x7f);
  const s = text(b).trim();
  return s ? parseInt(s, 8) : 0;
}

function checksumOk(header: Buffer): boolean {
  let sum = 0;
  for (let i = 0; i < BLOCK; i++) sum += i >= 148 && i < 156 ? 32 : header[i]!;
  return sum === octal(header.subarray(148, 156));
}

/** pax extended header records: "<len> key=value\n" */
function paxRecords(data: Buffer): Record<string, string> {
  const out: Record<string, string> = {};
  let at = 0;
  while (at < data.length) {
    const space = data.indexOf(0x20, at);
    const len = Number(data.subarray(at, space).toString());
    if (!(len > 0) || space < 0) break;
    const record = data.subarray(space + 1, at + len - 1).toString("utf8");
    const eq = record.indexOf("=");
    if (eq > 0) out[record.slice(0, eq)] = record.slice(eq + 1);
    at += len;
  }
  return out;
}

export interface ScanOptions {
  /** entries whose content is wanted (small JSON files) */
  keep?: (entry: TarEntry) => boolean;
  /** largest entry kept in memory; a bigger one asked for is refused */
  maxKeptBytes?: number;
}

export async function scanTar(input: AsyncIterable<Uint8Array>, opts: ScanOptions = {}): Promise<{ entries: TarEntry[]; kept: Map<string, Buffer> }> {
  const reader = new Reader(input);
  const entries: TarEntry[] = [];
  const kept = new Map<string, Buffer>();
  const maxKept = opts.maxKeptBytes ?? 1 << 20;
  let pending: { path?: string; size?: number } = {};
  for (;;) {
    const header = await reader.read(BLOCK);
    if (!header) {
      if (!entries.length) throw new NotATar("not a tar archive: it ends before its first header");
      break; // some writers omit the two zero blocks at the end
    }
    if (header.every((b) => b === 0)) break;
    if (!checksumOk(header))
      throw new NotATar(entries.length ? `a damaged tar header after ${entries.at(-1)!.name}` : "not a tar archive (its first 512 bytes are not a tar header)");
    const flag = String.fromCharCode(header[156]!);
    const size = pending.size ?? octal(header.subarray(124, 136));
    const padded = Math.ceil(size / BLOCK) * BLOCK;
    if (flag === "x" || flag === "L" || flag === "g") {
      if (size > maxKept) throw new NotATar(`a tar extended header of ${size} bytes`);
      const data = await reader.read(padded);
      if (!data) throw new NotATar("the tar archive ends inside an extended header");
      const body = data.subarray(0, size);
      if (flag === "x") {
        const pax = paxRecords(body);
        pending = { ...(pax.path ? { path: pax.path } : {}), ...(pax.size ? { size: Number(pax.size) } : {}) };
      } else if (flag === "L") pending = { ...pending, path: text(body) };
      continue;
    }
    const magic = header.subarray(257, 262).toString();
    const prefix = magic === "ustar" ? text(header.subarray(345, 500)) : "";
    const name = pending.path ?? (prefix ? `${prefix}/${text(header.subarray(0, 100))}` : text(header.subarray(0, 100)));
    pending = {};
    const entry: TarEntry = { name: name.replace(/^\.\//, ""), type: TYPES[flag] ?? "other", size: TYPES[flag] === "file" ? size : 0 };
    entries.push(entry);
    const dataBytes = entry.type === "file" || flag === "7" ? padded : 0;
    if (entry.type === "file" && opts.keep?.(entry)) {
      if (size > maxKept) throw new NotATar(`${entry.name} is ${size} bytes, more than the ${maxKept} read from an archive's metadata`);
      const data = await reader.read(padded);
      if (!data) throw new NotATar(`the tar archive ends inside ${entry.name}`);
      kept.set(entry.name, Buffer.from(data.subarray(0, size)));
    } else if (!(await reader.skip(dataBytes))) throw new NotATar(`the tar archive ends inside ${entry.name} (cut short?)`);
  }
  return { entries, kept };
}
