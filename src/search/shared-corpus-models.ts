// The corpus-trained models shared by every node of a cluster (issue 24, ADR 0267). `lectern models train`
// runs once, on any process that reaches the database (an api or worker node, or the CLI with the
// cluster's configuration), and publishes what it trained into the cluster's BlobStore (PostgreSQL,
// ADR 0207): the model files under content-addressed keys first, then the manifest, which is the switch.
// Every node pulls: when the published manifest names other models than its own model directory holds,
// it downloads them, checks each file's SHA-256, and installs them into its model directory (manifest
// last); the node's periodic model refresh (app.ts) then loads them as after a local training. So every
// api node computes the same query vectors and every search node the same document vectors: the model
// modes give one node's results on a cluster.
import { buffer } from 'node:stream/consumers';
import { INDEX_NAMES, type IndexName } from '../domain/document.js';
import type { BlobStore } from '../ports/blob-store.js';
import type { CorpusModels, ModelManifest } from './corpus-models.js';

/** Where an index's published models live in the BlobStore. */
export const modelsPrefix = (name: IndexName): string => `corpus-models/${name}/`;
const MANIFEST = 'manifest.json';

export interface PullReport {
  index: IndexName;
  /** The published models' SHA-256 (dense/sparse), or null when none are published. */
  published: string | null;
  /** Whether this call installed them (false: none published, or already installed). */
  installed: boolean;
}

export class SharedCorpusModels {
  constructor(
    private readonly blobs: BlobStore,
    private readonly models: CorpusModels,
  ) {}

  /** The published manifest of an index, or null. */
  async published(name: IndexName): Promise<ModelManifest | null> {
    const key = modelsPrefix(name) + MANIFEST;
    if ((await this.blobs.stat(key)) === null) return null;
    return JSON.parse((await buffer(this.blobs.read(key))).toString('utf8')) as ModelManifest;
  }

  /**
   * Publishes the models trained here for `name` (null when none were trained): files first (a file
   * already published under its hash is not written again), then the manifest; then the files no
   * manifest names any more are removed.
   */
  async publish(name: IndexName): Promise<ModelManifest | null> {
    const local = this.models.files(name);
    if (local === null) return null;
    const prefix = modelsPrefix(name);
    for (const [file, bytes] of local.files) {
      const at = await this.blobs.stat(prefix + file);
      if (at === null || at.bytes !== bytes.byteLength) await this.blobs.put(prefix + file, bytes);
    }
    await this.blobs.put(prefix + MANIFEST, new TextEncoder().encode(JSON.stringify(local.manifest, null, 2)));
    // keep what the manifest in force names (read again: another trainer may have published since)
    const current = (await this.published(name)) ?? local.manifest;
    const keep = new Set([current.dense.file, current.sparse.file, local.manifest.dense.file, local.manifest.sparse.file].map((f) => prefix + f));
    for (const b of await this.blobs.list(prefix)) if (b.key.endsWith('.lcm') && !keep.has(b.key)) await this.blobs.delete(b.key);
    return local.manifest;
  }

  /**
   * Installs the published models of `name` into this node's model directory when they differ from the
   * ones it holds (by SHA-256). A node still serves its old models (or none) when this fails; the next
   * pull retries (a manifest replaced between reading it and its files is read again then).
   */
  async pull(name: IndexName): Promise<PullReport> {
    const remote = await this.published(name);
    if (remote === null) return { index: name, published: null, installed: false };
    const id = `${remote.dense.sha256}/${remote.sparse.sha256}`;
    const local = this.models.manifest(name);
    if (local !== null && `${local.dense.sha256}/${local.sparse.sha256}` === id) return { index: name, published: id, installed: false };
    const files = new Map<string, Uint8Array>();
    for (const info of [remote.dense, remote.sparse]) files.set(info.file, new Uint8Array(await buffer(this.blobs.read(modelsPrefix(name) + info.file))));
    this.models.install(name, remote, files);
    return { index: name, published: id, installed: true };
  }

  async pullAll(): Promise<PullReport[]> {
    const out: PullReport[] = [];
    for (const name of INDEX_NAMES) out.push(await this.pull(name));
    return out;
  }

  async publishAll(names: readonly IndexName[] = INDEX_NAMES): Promise<(ModelManifest | null)[]> {
    const out: (ModelManifest | null)[] = [];
    for (const name of names) out.push(await this.publish(name));
    return out;
  }
}
