// The engine's stored-fields codec on node:zlib (ADR 0280): raw DEFLATE, the format the engine's own
// fflate codec writes and reads, in native code (several times faster on both sides). Every thread that
// writes or reads segments installs it at start (main.ts, search-worker.ts, segment-builder-worker.ts);
// a thread without it reads and writes the same bytes with fflate.
import { constants, deflateRawSync, inflateRawSync } from 'node:zlib';
import { setStoredCodec, type StoredCodec } from '../../engine/index.js';

/** Level 6 (zlib's default): the ratio of level 9 within 1-2%, at about twice its speed. */
export const ZLIB_STORED_CODEC: StoredCodec = {
  // the segment's preset dictionary (format 4, ADR 0325) when it has one
  deflate: (raw, dictionary) => deflateRawSync(raw, dictionary && dictionary.length > 0 ? { level: 6, strategy: constants.Z_DEFAULT_STRATEGY, dictionary } : { level: 6, strategy: constants.Z_DEFAULT_STRATEGY }),
  inflate: (data, rawLength, dictionary) => inflateRawSync(data, dictionary && dictionary.length > 0 ? { maxOutputLength: Math.max(1, rawLength), dictionary } : { maxOutputLength: Math.max(1, rawLength) }),
};

/** Installs the node:zlib codec on the calling thread. */
export function useZlibStoredCodec(): void {
  setStoredCodec(ZLIB_STORED_CODEC);
}
