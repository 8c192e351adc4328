// The framing of the shard calls on one persistent connection (issue 24, "Cost of distribution", ADR
// 0291): what the search node (http/shard-frames.ts) and the coordinator's client
// (adapters/cluster/frame-shard-client.ts) both speak once an HTTP upgrade has authenticated the
// connection with the cluster secret.
//
// Every frame, in either direction:   u32 length of what follows | u32 call id | u8 kind | payload
// (big-endian). The call id pairs an answer with its call, so many calls share one connection and their
// answers come back in any order (multiplexed).
//   request  (kind 1..8, FRAME_OPS): u16 shard | JSON of the request body (the HTTP endpoint's body)
//   answer   (kind 0x80):            u32 n | n bytes of JSON (the answer without its records) | records
//   error    (kind 0x81):            JSON {status, code, message, extra?}
// records: u32 count, then per record u16 id length | id (UTF-8) | u32 length | the stored bytes as the
// index keeps them (the display record's JSON text, ADR 0280): carried as they are, never escaped into
// a JSON string and parsed out again.

/** Request kinds: the ShardClient calls, in the order of the HTTP endpoints. */
export const FRAME_OPS = ['stats', 'search', 'vectors', 'document-vector', 'suggest', 'score-parts', 'cited-by', 'records'] as const;
export type FrameOp = (typeof FRAME_OPS)[number];

export const FRAME_ANSWER = 0x80;
export const FRAME_ERROR = 0x81;

/** Bytes before a frame's payload: length, call id, kind. */
export const FRAME_HEADER = 9;

/** The path and the Upgrade token of the connection (the HTTP request carries the cluster secret). */
export const FRAMES_PATH = '/internal/v1/shard-frames';
export const FRAMES_PROTOCOL = 'lectern-shard-frames/1';

/** A request frame: the call, its shard and the request body as JSON. */
export function encodeRequest(id: number, op: FrameOp, shard: number, body: unknown): Buffer {
  const json = JSON.stringify(body);
  const n = Buffer.byteLength(json, 'utf8');
  const buf = Buffer.allocUnsafe(FRAME_HEADER + 2 + n);
  buf.writeUInt32BE(5 + 2 + n, 0);
  buf.writeUInt32BE(id, 4);
  buf[8] = FRAME_OPS.indexOf(op) + 1;
  buf.writeUInt16BE(shard, 9);
  buf.write(json, 11, 'utf8');
  return buf;
}

/**
 * An answer frame: the answer as JSON (stringified once, written straight into the frame) and the
 * stored records as their bytes. One allocation; each record's bytes are copied once, into it.
 */
export function encodeAnswer(id: number, answer: unknown, records: ReadonlyMap<string, Uint8Array> | null): Buffer {
  const json = JSON.stringify(answer);
  const n = Buffer.byteLength(json, 'utf8');
  let size = FRAME_HEADER + 4 + n + 4;
  if (records) for (const [rid, bytes] of records) size += 2 + Buffer.byteLength(rid, 'utf8') + 4 + bytes.length;
  const buf = Buffer.allocUnsafe(size);
  buf.writeUInt32BE(size - 4, 0);
  buf.writeUInt32BE(id, 4);
  buf[8] = FRAME_ANSWER;
  buf.writeUInt32BE(n, 9);
  let at = 13 + buf.write(json, 13, 'utf8');
  buf.writeUInt32BE(records ? records.size : 0, at);
  at += 4;
  if (records) {
    for (const [rid, bytes] of records) {
      const k = buf.write(rid, at + 2, 'utf8');
      buf.writeUInt16BE(k, at);
      at += 2 + k;
      buf.writeUInt32BE(bytes.length, at);
      buf.set(bytes, at + 4);
      at += 4 + bytes.length;
    }
  }
  return buf;
}

/** An error frame (an ApiError's status, code and message). */
export function encodeError(id: number, err: { status: number; code: string; message: string; extra?: unknown }): Buffer {
  const json = JSON.stringify(err);
  const n = Buffer.byteLength(json, 'utf8');
  const buf = Buffer.allocUnsafe(FRAME_HEADER + n);
  buf.writeUInt32BE(5 + n, 0);
  buf.writeUInt32BE(id, 4);
  buf[8] = FRAME_ERROR;
  buf.write(json, 9, 'utf8');
  return buf;
}

const dec = new TextDecoder();

/** A request frame's parts (the payload after the header); throws on a malformed one. */
export function decodeRequest(kind: number, payload: Buffer): { op: FrameOp; shard: number; body: unknown } {
  const op = FRAME_OPS[kind - 1];
  if (op === undefined || payload.length < 2) throw new Error(`not a shard call (kind ${kind})`);
  return { op, shard: payload.readUInt16BE(0), body: JSON.parse(dec.decode(payload.subarray(2))) };
}

/** An answer frame's JSON and records (each record decoded from its bytes in the received buffer, not copied first). */
export function decodeAnswer(payload: Buffer): { answer: Record<string, unknown>; records: Record<string, string> | null } {
  const n = payload.readUInt32BE(0);
  const answer = JSON.parse(dec.decode(payload.subarray(4, 4 + n))) as Record<string, unknown>;
  let at = 4 + n;
  const count = payload.readUInt32BE(at);
  at += 4;
  if (count === 0) return { answer, records: null };
  const records: Record<string, string> = {};
  for (let i = 0; i < count; i++) {
    const k = payload.readUInt16BE(at);
    const rid = dec.decode(payload.subarray(at + 2, at + 2 + k));
    at += 2 + k;
    const len = payload.readUInt32BE(at);
    records[rid] = dec.decode(payload.subarray(at + 4, at + 4 + len));
    at += 4 + len;
  }
  if (at !== payload.length) throw new Error('answer frame: trailing bytes');
  return { answer, records };
}

/**
 * Cuts a byte stream into frames: `push` each chunk; `onFrame` gets every complete frame's id, kind and
 * payload. A payload lying in one chunk is a view of it (no copy); only a frame split across chunks is
 * joined. A frame longer than `maxBytes` throws (the caller closes the connection).
 */
export class FrameReader {
  #chunks: Buffer[] = [];
  #have = 0;

  constructor(
    private readonly maxBytes: number,
    private readonly onFrame: (id: number, kind: number, payload: Buffer) => void,
  ) {}

  push(chunk: Buffer): void {
    if (this.#have === 0) {
      // the common case: whole frames in this chunk, read in place
      let at = 0;
      while (chunk.length - at >= 4) {
        const len = chunk.readUInt32BE(at);
        if (len < 5 || len > this.maxBytes) throw new Error(`frame of ${len} bytes (at most ${this.maxBytes})`);
        if (chunk.length - at - 4 < len) break;
        this.onFrame(chunk.readUInt32BE(at + 4), chunk[at + 8]!, chunk.subarray(at + FRAME_HEADER, at + 4 + len));
        at += 4 + len;
      }
      if (at < chunk.length) {
        this.#chunks.push(chunk.subarray(at));
        this.#have = chunk.length - at;
      }
      return;
    }
    this.#chunks.push(chunk);
    this.#have += chunk.length;
    if (this.#have < 4) return;
    const head = this.#chunks[0]!.length >= 4 ? this.#chunks[0]! : Buffer.concat(this.#chunks);
    const len = head.readUInt32BE(0);
    if (len < 5 || len > this.maxBytes) throw new Error(`frame of ${len} bytes (at most ${this.maxBytes})`);
    if (this.#have < 4 + len) return;
    const all = Buffer.concat(this.#chunks, this.#have);
    this.#chunks = [];
    this.#have = 0;
    this.push(all);
  }
}
