// The part of the WebAssembly JS API the engine's SIMD kernels use (the project's TypeScript lib has no
// DOM declarations), and the compile step they share: a kernel's committed bytes (base64) become a
// module once per thread, or null where WebAssembly (SIMD) is not available and the JavaScript path runs.
export interface WasmModule { readonly __wasmModule?: never }
export interface WasmMemory { readonly buffer: ArrayBuffer }
export interface WasmApi {
  validate(bytes: Uint8Array): boolean;
  Module: new (bytes: Uint8Array) => WasmModule;
  Memory: new (d: { initial: number; maximum: number }) => WasmMemory;
  Instance: new (m: WasmModule, imports: { env: { memory: WasmMemory } }) => { exports: Record<string, unknown> };
}
export const WA = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;

/** The module of a kernel's base64 bytes, or null where they do not validate or cannot compile here. */
export function compileKernel(base64: string): WasmModule | null {
  if (WA === undefined) return null;
  try {
    const bytes = Uint8Array.from(atob(base64), (c) => c.charCodeAt(0));
    return WA.validate(bytes) ? new WA.Module(bytes) : null;
  } catch {
    return null;
  }
}
