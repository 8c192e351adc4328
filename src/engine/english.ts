// English stemming for scientific text: Snowball English (Porter2) wrapped by a few rules that make
// spelling and inflection variants common in biomedical writing meet (see docs/engine.md, "Quality").
// Input is one lower-cased, letters-only word (the analyzer calls this only for such tokens, length > 2).
//
// Before stemming:
// - British spellings -> American: -isation/-ise(d|s|r|ing) -> -iz- (not exercise, promise, advise, rise,
//   otherwise...), -our -> -or for known stems (tumour, behaviour, favour, colour...), ae/oe in medical stems
//   (haem-, -aemia, paed-, anaes-, aetiol-, oestr-, oesoph-, oedem-, -rrhoea, foet-, coeli-, gynaec-, faec-),
//   sulph- -> sulf-, -re -> -er (centre, fibre, litre, metre, titre, goitre); -lyze -> -lyse, so the verb
//   meets its -lysis noun (analyzed/analysed/analysis);
// - irregular Latin/Greek and English plurals -> singular (mice, women, nuclei, loci, helices, criteria...);
// - plurals of acronyms: a word without vowels ending in s ("snps", "mscs") and "-rnas"/"-dnas" lose the s
//   (Porter2 keeps the s after a vowel ("mrnas") or when the word has no vowel).
// After stemming: -sis meets -ses (analysis/analyses, metastasis/metastases, diagnosis/diagnoses).
import { createStemmer } from 'multilingual-stemmer';

const IRREGULAR: Record<string, string> = {
  mice: 'mouse', women: 'woman', men: 'man', children: 'child', feet: 'foot', teeth: 'tooth', geese: 'goose',
  lice: 'louse', oxen: 'ox',
  criteria: 'criterion', phenomena: 'phenomenon', mitochondria: 'mitochondrion', ganglia: 'ganglion',
  spermatozoa: 'spermatozoon', taxa: 'taxon',
  bacteria: 'bacterium', septa: 'septum', strata: 'stratum', ova: 'ovum', sera: 'serum', media: 'medium',
  nuclei: 'nucleus', foci: 'focus', loci: 'locus', fungi: 'fungus', stimuli: 'stimulus', bacilli: 'bacillus',
  thrombi: 'thrombus', emboli: 'embolus', alveoli: 'alveolus', villi: 'villus', radii: 'radius', nevi: 'nevus',
  naevi: 'nevus', glomeruli: 'glomerulus', bronchi: 'bronchus', hippocampi: 'hippocampus', calculi: 'calculus',
  genera: 'genus', corpora: 'corpus',
  larvae: 'larva', vertebrae: 'vertebra', algae: 'alga', formulae: 'formula', fistulae: 'fistula', lamellae: 'lamella',
  indices: 'index', matrices: 'matrix', cortices: 'cortex', helices: 'helix', vertices: 'vertex', apices: 'apex',
  appendices: 'appendix', cervices: 'cervix',
};

// -ise words that are not British spellings of -ize (checked on the base form ending in "ise").
const ISE_KEEP = new Set(
  ('rise arise sunrise uprise promise compromise premise demise surmise chemise expertise treatise mortise ' +
    'paradise merchandise franchise')
    .split(' '),
);
const ISE_KEEP_SUFFIX = /(?:wise|cise|vise|prise|[aeiou]ise)$/;
const OUR = /(tum|behavi|fav|flav|col|lab|hum|vap|^od|neighb|harb|rum|hon|vig|rig|endeav|splend|ferv|ard|cand|clam|sav)our/;

function iseToIze(w: string): string {
  // -isation(s), -isational...
  const a = w.indexOf('isation');
  if (a >= 3) return w.slice(0, a) + 'ization' + w.slice(a + 7);
  let base: string | null = null;
  let rest = '';
  if (w.endsWith('ise')) (base = w), (rest = '');
  else if (w.endsWith('ised') || w.endsWith('ises') || w.endsWith('iser')) (base = w.slice(0, -1)), (rest = w.slice(-1));
  else if (w.endsWith('isers')) (base = w.slice(0, -2)), (rest = w.slice(-2));
  else if (w.endsWith('ising')) (base = w.slice(0, -3) + 'e'), (rest = 'ing');
  if (base === null || base.length < 6) return w;
  if (ISE_KEEP.has(base) || ISE_KEEP_SUFFIX.test(base)) return w;
  const stem = base.slice(0, -3);
  return rest === 'ing' ? stem + 'izing' : stem + 'ize' + rest;
}

function britishToAmerican(w: string): string {
  let s = w;
  s = iseToIze(s);
  if (s.includes('our')) s = s.replace(OUR, '$1or');
  if (s.includes('ae')) s = s.replace(/haem/g, 'hem').replace(/aemi/g, 'emi').replace(/paed/g, 'ped').replace(/anaes/g, 'anes').replace(/^aetiol/, 'etiol').replace(/gynaec/g, 'gynec').replace(/faec/g, 'fec').replace(/caes/g, 'ces');
  if (s.includes('oe')) s = s.replace(/^oestr/, 'estr').replace(/oesoph/g, 'esoph').replace(/^oedem/, 'edem').replace(/rrhoea/g, 'rrhea').replace(/pnoea/g, 'pnea').replace(/^foet/, 'fet').replace(/coeli/g, 'celi').replace(/homoeo/g, 'homeo');
  if (s.includes('sulph')) s = s.replace(/sulph/g, 'sulf');
  // -lyze/-lyse verbs meet their -lysis nouns (analyzed/analysed/analysis, hydrolyze/hydrolysis)
  if (s.includes('lyz')) s = s.replace(/lyz/g, 'lys');
  if (s.endsWith('re') || s.endsWith('res')) s = s.replace(/(cent|fib|lit|met|tit|goit|theat|calib|spect|lust)re(s?)$/, '$1er$2');
  return s;
}

const VOWEL = /[aeiouy]/;

/** A stem function for English. */
export function createEnglishStemmer(): (word: string) => string {
  const snowball = createStemmer('en');
  return (word: string): string => {
    let w = britishToAmerican(word);
    w = IRREGULAR[w] ?? w;
    if (w.length >= 3 && w.endsWith('s') && !w.endsWith('ss') && (!VOWEL.test(w) || w.endsWith('rnas') || w.endsWith('dnas'))) {
      return w.slice(0, -1);
    }
    const s = snowball(w);
    // -sis meets -ses (analysis/analyses, metastasis/metastases, diagnosis/diagnoses)
    return w.endsWith('sis') && s.endsWith('si') && s.length > 4 ? s.slice(0, -1) : s;
  };
}
