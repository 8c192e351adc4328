// The ranking configuration as the search service uses it, built once at start from the operator's
// options (config `ranking`, docs/ranking.md): profile formulas checked, L2 models loaded and bound to
// the feature set, the cross-encoder loaded. Every problem is reported at start with what to fix.
import { INDEX_NAMES, type IndexName } from '../domain/document.js';
import type { CrossEncoder, CrossEncoderLoader } from '../ports/cross-encoder.js';
import { loadCatBoostJson } from './catboost.js';
import { BRANCHES } from './features.js';
import { checkedFormula, type RankingSettings } from './pipeline.js';
import { bindL2Model, splitFeatures, SEARCH_MODES, type L2Model, type TrainedMode } from './l2.js';

/** The `ranking` options (config/schema.ts). */
export interface RankingOptions {
  candidateDepth: number;
  formulaDocuments: string;
  formulaPassages: string;
  /** Comma-separated search modes the profile formulas run in (the modes they were fitted for). */
  formulaModes?: string;
  l2Models: string;
  l2Auto: boolean;
  crossEncoderDir?: string | undefined;
  crossRerankCandidates: number;
  crossRerankMax: number;
}

/** One `ranking.l2Models` entry: INDEX=PATH (the mode the file records) or INDEX:MODE=PATH. */
export interface ModelEntry {
  index: IndexName;
  /** The mode the entry names; null: the one the file records (hybrid for a file that records none). */
  mode: TrainedMode | null;
  path: string;
}

/** Parses `INDEX[:MODE]=PATH, ...` (l2Models). */
export function parseModelList(spec: string): ModelEntry[] {
  const out: ModelEntry[] = [];
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    const key = eq > 0 ? part.slice(0, eq).trim() : '';
    const path = eq > 0 ? part.slice(eq + 1).trim() : '';
    const colon = key.indexOf(':');
    const name = colon >= 0 ? key.slice(0, colon).trim() : key;
    const mode = colon >= 0 ? key.slice(colon + 1).trim() : null;
    if (!(INDEX_NAMES as readonly string[]).includes(name) || !path) throw new Error(`ranking.l2Models: "${part}" is not INDEX=PATH or INDEX:MODE=PATH with INDEX one of ${INDEX_NAMES.join(', ')}`);
    if (mode !== null && !(SEARCH_MODES as readonly string[]).includes(mode)) throw new Error(`ranking.l2Models: "${part}" names mode "${mode}"; the modes are ${SEARCH_MODES.join(', ')}`);
    out.push({ index: name as IndexName, mode: mode as TrainedMode | null, path });
  }
  return out;
}

/** Parses `ranking.formulaModes` (comma-separated search modes). */
export function parseModes(spec: string, field = 'ranking.formulaModes'): Set<TrainedMode> {
  const list = spec.split(',').map((s) => s.trim()).filter(Boolean);
  const bad = list.filter((m) => !(SEARCH_MODES as readonly string[]).includes(m));
  if (bad.length > 0) throw new Error(`${field}: ${bad.join(', ')} ${bad.length > 1 ? 'are not search modes' : 'is not a search mode'}; the modes are ${SEARCH_MODES.join(', ')}`);
  return new Set(list as TrainedMode[]);
}

/** Builds the settings; `readFile` reads a model file, `loadCrossEncoder` loads the reranker directory. */
export async function rankingSettings(o: RankingOptions, io: { readFile: (path: string) => Buffer; loadCrossEncoder: CrossEncoderLoader | null }): Promise<RankingSettings> {
  const all = new Set(BRANCHES);
  for (const [name, f] of [['formulaDocuments', o.formulaDocuments], ['formulaPassages', o.formulaPassages]] as const) {
    if (!f.trim()) continue;
    try {
      checkedFormula(f, all, `ranking.${name}`);
    } catch (e) {
      throw new Error(`ranking.${name}: ${(e as Error).message}`);
    }
  }
  const formulaModes = parseModes(o.formulaModes ?? 'hybrid');
  const l2Models = new Map<IndexName, L2Model[]>();
  for (const { index, mode, path } of parseModelList(o.l2Models)) {
    let bytes: Buffer;
    try {
      bytes = io.readFile(path);
    } catch (e) {
      throw new Error(`ranking.l2Models: ${index} model ${path} cannot be read: ${(e as Error).message}`);
    }
    const model = loadCatBoostJson(bytes);
    // the loader checked the export; its splits say which features the trees read
    let bound: L2Model;
    try {
      bound = bindL2Model(model, path, splitFeatures(JSON.parse(bytes.toString('utf8'))), mode);
    } catch (e) {
      throw new Error(`ranking.l2Models: ${index}: ${(e as Error).message}`);
    }
    const list = l2Models.get(index) ?? [];
    const twin = list.find((m) => m.trainedFor.mode === bound.trainedFor.mode);
    if (twin) throw new Error(`ranking.l2Models: ${index} has two models for mode ${bound.trainedFor.mode} (${twin.source}, ${path}); one model per index and mode`);
    l2Models.set(index, [...list, bound]);
  }
  let crossEncoder: CrossEncoder | null = null;
  if (o.crossEncoderDir) {
    if (!io.loadCrossEncoder) throw new Error('ranking.crossEncoderDir is set but this process cannot load ONNX models');
    crossEncoder = await io.loadCrossEncoder({ dir: o.crossEncoderDir });
  }
  return {
    candidateDepth: o.candidateDepth,
    formulas: { documents: o.formulaDocuments.trim() || null, passages: o.formulaPassages.trim() || null },
    formulaModes,
    l2Auto: o.l2Auto,
    l2Models,
    crossEncoder,
    crossCandidates: Math.min(o.crossRerankCandidates, o.crossRerankMax),
    crossMax: o.crossRerankMax,
  };
}
