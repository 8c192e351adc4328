// The ranking configuration as the search service uses it, built once at start from the operator's
// options (config `ranking`, docs/ranking.md): profile formulas checked, L2 models loaded and bound to
// the feature set, the cross-encoder loaded. Every problem is reported at start with what to fix.
import { INDEX_NAMES, type IndexName } from '../domain/document.js';
import type { CrossEncoder, CrossEncoderLoader } from '../ports/cross-encoder.js';
import { loadCatBoostJson } from './catboost.js';
import { BRANCHES } from './features.js';
import { checkedFormula, type RankingSettings } from './pipeline.js';
import { bindL2Model, splitFeatures, type L2Model } from './l2.js';

/** The `ranking` options (config/schema.ts). */
export interface RankingOptions {
  candidateDepth: number;
  formulaDocuments: string;
  formulaPassages: string;
  l2Models: string;
  l2Auto: boolean;
  crossEncoderDir?: string | undefined;
  crossRerankCandidates: number;
  crossRerankMax: number;
}

/** Parses `INDEX=PATH, ...` (l2Models). */
export function parseModelList(spec: string): [IndexName, string][] {
  const out: [IndexName, string][] = [];
  for (const part of spec.split(',').map((s) => s.trim()).filter(Boolean)) {
    const eq = part.indexOf('=');
    const name = eq > 0 ? part.slice(0, eq).trim() : '';
    const path = eq > 0 ? part.slice(eq + 1).trim() : '';
    if (!(INDEX_NAMES as readonly string[]).includes(name) || !path) throw new Error(`ranking.l2Models: "${part}" is not INDEX=PATH with INDEX one of ${INDEX_NAMES.join(', ')}`);
    if (out.some(([n]) => n === name)) throw new Error(`ranking.l2Models: ${name} is given twice`);
    out.push([name as IndexName, path]);
  }
  return out;
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
  const l2Models = new Map<IndexName, L2Model>();
  for (const [index, path] of parseModelList(o.l2Models)) {
    let bytes: Buffer;
    try {
      bytes = io.readFile(path);
    } catch (e) {
      throw new Error(`ranking.l2Models: ${index} model ${path} cannot be read: ${(e as Error).message}`);
    }
    const model = loadCatBoostJson(bytes);
    // the loader checked the export; its splits say which features the trees read
    l2Models.set(index, bindL2Model(model, path, splitFeatures(JSON.parse(bytes.toString('utf8')))));
  }
  let crossEncoder: CrossEncoder | null = null;
  if (o.crossEncoderDir) {
    if (!io.loadCrossEncoder) throw new Error('ranking.crossEncoderDir is set but this process cannot load ONNX models');
    crossEncoder = await io.loadCrossEncoder({ dir: o.crossEncoderDir });
  }
  return {
    candidateDepth: o.candidateDepth,
    formulas: { documents: o.formulaDocuments.trim() || null, passages: o.formulaPassages.trim() || null },
    l2Auto: o.l2Auto,
    l2Models,
    crossEncoder,
    crossCandidates: Math.min(o.crossRerankCandidates, o.crossRerankMax),
    crossMax: o.crossRerankMax,
  };
}
