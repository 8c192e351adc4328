// Rebuilds the extra judged test collections of bench/quality (issue 27) from public GitHub repositories
// fetched onto this machine (their git directories, e.g. /work/.mirror/<owner>+<name>/repo), into the
// BEIR layout the harness reads (corpus.jsonl, queries.jsonl, qrels/test.tsv). The collections are the
// classic SMART/Glasgow ones (CACM, CISI, MED, NPL, LISA): free for research but with no licence that
// says they may be redistributed, so the data is not committed; this script and MANIFEST.md (sources,
// commits, SHA-256 of every input) are. Every input is read by `git show <commit>:<path>` and checked
// against its recorded SHA-256, so a rebuild is the same bytes or fails. Usage:
//   node dist/bench/quality/sets/build.js [--mirrors /work/.mirror] [--out tmp/ir-sets]
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { repoRoot } from '../../../test/helpers/paths.js';

interface Source {
  repo: string;
  commit: string;
  path: string;
  /** A member of a .tar.gz at `path`. */
  member?: string;
}

export const SOURCES = {
  cacmDocs: { repo: 'atcherepanov/Stemming-Algorithm', commit: 'a92ce141e3cba95b0213569a42cb1668201963f7', path: 'cacm.all' },
  cacmQueries: { repo: 'atcherepanov/Stemming-Algorithm', commit: 'a92ce141e3cba95b0213569a42cb1668201963f7', path: 'query.text' },
  cacmQrels: { repo: 'atcherepanov/Stemming-Algorithm', commit: 'a92ce141e3cba95b0213569a42cb1668201963f7', path: 'qrels.text' },
  cisiDocs: { repo: 'lailaglez/belief-network-irs', commit: '9094e4cde738bd93ed1747dc958b5acb0e0fa684', path: 'cisi/cisi.tar.gz', member: 'CISI.ALL' },
  cisiQueries: { repo: 'lailaglez/belief-network-irs', commit: '9094e4cde738bd93ed1747dc958b5acb0e0fa684', path: 'cisi/cisi.tar.gz', member: 'CISI.QRY' },
  cisiQrels: { repo: 'lailaglez/belief-network-irs', commit: '9094e4cde738bd93ed1747dc958b5acb0e0fa684', path: 'cisi/cisi.tar.gz', member: 'CISI.REL' },
  medDocs: { repo: 'lailaglez/belief-network-irs', commit: '9094e4cde738bd93ed1747dc958b5acb0e0fa684', path: 'med/med.tar.gz', member: 'MED.ALL' },
  medQueries: { repo: 'lailaglez/belief-network-irs', commit: '9094e4cde738bd93ed1747dc958b5acb0e0fa684', path: 'med/med.tar.gz', member: 'MED.QRY' },
  medQrels: { repo: 'lailaglez/belief-network-irs', commit: '9094e4cde738bd93ed1747dc958b5acb0e0fa684', path: 'med/med.tar.gz', member: 'MED.REL' },
  nplDocs: { repo: 'stefreschke/Information-Retrieval', commit: 'ec84884f012ae2c655004f1025753381bef27adb', path: 'npl/doc-text' },
  nplQueries: { repo: 'stefreschke/Information-Retrieval', commit: 'ec84884f012ae2c655004f1025753381bef27adb', path: 'npl/query-text' },
  nplQrels: { repo: 'stefreschke/Information-Retrieval', commit: 'ec84884f012ae2c655004f1025753381bef27adb', path: 'npl/rlv-ass' },
  lisaQueries: { repo: 'HamzaMouaz/AI-powered-information-retrieval-system', commit: '9b403e8cde7fe9c7d2ec0feaca19a1198d87579d', path: 'LISA.QUE' },
  lisaQrels: { repo: 'HamzaMouaz/AI-powered-information-retrieval-system', commit: '9b403e8cde7fe9c7d2ec0feaca19a1198d87579d', path: 'LISA.REL' },
} satisfies Record<string, Source>;

/** The LISA documents are split over 14 files. */
export const LISA_DOC_FILES = ['0.001', '0.501', '1.001', '1.501', '2.001', '2.501', '3.001', '3.501', '4.001', '4.501', '5.001', '5.501', '5.627', '5.850'].map(
  (s): Source => ({ repo: SOURCES.lisaQueries.repo, commit: SOURCES.lisaQueries.commit, path: `Collections/LISA${s}` }),
);

const args = process.argv.slice(2);
const arg = (name: string): string | undefined => {
  const i = args.indexOf(`--${name}`);
  return i >= 0 ? args[i + 1] : undefined;
};

function untar(buf: Buffer, member: string): Buffer {
  let off = 0;
  while (off + 512 <= buf.length) {
    const name = buf.subarray(off, off + 100).toString('latin1').replace(/\0.*$/s, '');
    if (!name) break;
    const size = parseInt(buf.subarray(off + 124, off + 136).toString('latin1').replace(/\0.*$/s, '').trim() || '0', 8);
    if (name === member || name.endsWith(`/${member}`)) return buf.subarray(off + 512, off + 512 + size);
    off += 512 + Math.ceil(size / 512) * 512;
  }
  throw new Error(`${member} not in archive`);
}

/** Reads one input from the fetched repository and returns it with its SHA-256 (checked if recorded). */
function read(mirrors: string, s: Source, shas: Record<string, string>): string {
  const gitDir = join(mirrors, s.repo.replace('/', '+'), 'repo');
  let buf: Buffer = execFileSync('git', ['-C', gitDir, 'show', `${s.commit}:${s.path}`], { maxBuffer: 1 << 28 });
  if (s.member) buf = untar(gunzipSync(buf), s.member);
  const sha = createHash('sha256').update(buf).digest('hex');
  const key = `${s.repo}@${s.commit.slice(0, 12)}:${s.path}${s.member ? `#${s.member}` : ''}`;
  const want = EXPECTED_SHA256[key];
  if (want && want !== sha) throw new Error(`${key}: SHA-256 ${sha}, expected ${want}`);
  shas[key] = sha;
  return buf.toString('latin1').replace(/\r\n?/g, '\n');
}

/** SMART format (.I n, then .T/.W/.A/... sections): id -> section letter -> text. */
function smart(text: string): Map<string, Map<string, string>> {
  const out = new Map<string, Map<string, string>>();
  let cur: Map<string, string> | null = null;
  let field = '';
  for (const line of text.split('\n')) {
    const m = /^\.I\s+(\d+)\s*$/.exec(line);
    if (m) {
      out.set(String(Number(m[1])), (cur = new Map()));
      field = '';
      continue;
    }
    const f = /^\.([A-Z])\s*$/.exec(line);
    if (f) {
      field = f[1]!;
      continue;
    }
    if (cur && field) cur.set(field, ((cur.get(field) ?? '') + ' ' + line).trim());
  }
  return out;
}

const clean = (s: string): string => s.replace(/\s+/g, ' ').trim();

interface Built {
  corpus: { _id: string; title: string; text: string }[];
  queries: { _id: string; text: string }[];
  qrels: [string, string, number][];
}

function fromSmart(docs: string, queries: string, qrels: [string, string, number][]): Built {
  const corpus = [...smart(docs)].map(([id, f]) => ({ _id: id, title: clean(f.get('T') ?? ''), text: clean(f.get('W') ?? '') }));
  const qs = [...smart(queries)].map(([id, f]) => ({ _id: id, text: clean(f.get('W') ?? '') })).filter((q) => q.text);
  return { corpus, queries: qs, qrels };
}

/** Whitespace-separated "qid docid ..." lines (CACM, CISI, MED formats differ in the columns used). */
function pairs(text: string, qcol: number, dcol: number): [string, string, number][] {
  const out: [string, string, number][] = [];
  for (const line of text.split('\n')) {
    const c = line.trim().split(/\s+/);
    if (c.length <= Math.max(qcol, dcol)) continue;
    out.push([String(Number(c[qcol])), String(Number(c[dcol])), 1]);
  }
  return out;
}

/** NPL: records "id\ntext...\n   /". */
function slashRecords(text: string): [string, string][] {
  return text
    .split(/\n\s*\/\s*(?:\n|$)/)
    .map((r) => r.trim())
    .filter(Boolean)
    .map((r) => {
      const nl = r.indexOf('\n');
      return [String(Number(r.slice(0, nl).trim())), clean(r.slice(nl + 1))];
    });
}

function npl(docs: string, queries: string, rel: string): Built {
  const qrels: [string, string, number][] = [];
  for (const [q, ids] of slashRecords(rel)) for (const d of ids.split(' ').filter(Boolean)) qrels.push([q, String(Number(d)), 1]);
  // NPL documents are titles only, lower case: indexed as the abstract (no title field)
  return { corpus: slashRecords(docs).map(([id, t]) => ({ _id: id, title: '', text: t })), queries: slashRecords(queries).map(([id, t]) => ({ _id: id, text: t })), qrels };
}

function lisa(docFiles: string[], queries: string, rel: string): Built {
  const corpus: Built['corpus'] = [];
  for (const f of docFiles)
    for (const rec of f.split(/\n\*{10,}\s*(?:\n|$)/)) {
      const m = /^\s*Document\s+(\d+)\s*\n([\s\S]*)$/.exec(rec);
      if (!m) continue;
      // title: the lines up to the first blank line; abstract: the rest
      const body = m[2]!;
      const blank = body.search(/\n\s*\n/);
      const title = blank >= 0 ? body.slice(0, blank) : body;
      const text = blank >= 0 ? body.slice(blank) : '';
      corpus.push({ _id: String(Number(m[1])), title: clean(title), text: clean(text) });
    }
  const qs: Built['queries'] = [];
  for (const rec of queries.split('#')) {
    const m = /^\s*(\d+)\s*\n([\s\S]*)$/.exec(rec);
    if (m) qs.push({ _id: String(Number(m[1])), text: clean(m[2]!) });
  }
  const qrels: [string, string, number][] = [];
  for (const m of rel.matchAll(/Query\s+(\d+)\s*\n\s*\d+\s+Relevant Refs:\s*\n([\s\S]*?)-1/g)) for (const d of m[2]!.split(/\s+/).filter(Boolean)) qrels.push([String(Number(m[1])), String(Number(d)), 1]);
  return { corpus, queries: qs, qrels };
}

/** SHA-256 of every input as first built (MANIFEST.md lists them); a mismatch stops the build. */
export const EXPECTED_SHA256: Record<string, string> = {
  'atcherepanov/Stemming-Algorithm@a92ce141e3cb:cacm.all': '10b28e355d4bd65916698da9bbc91e78f116de204b9b42bce0ce4e8b39babe42',
  'atcherepanov/Stemming-Algorithm@a92ce141e3cb:query.text': '07332cfcadad2570ce65146a701b4d93a91583c6f945fb32fad1a141b62dc0e4',
  'atcherepanov/Stemming-Algorithm@a92ce141e3cb:qrels.text': 'a027893039f4faf40b90a64a27322e85e1b0cc66f9634bb754a93ac4f81a75ca',
  'lailaglez/belief-network-irs@9094e4cde738:cisi/cisi.tar.gz#CISI.ALL': 'df5af339fa4623ef33e315f39f3e13c050d17535c18360c727bf3c96ce60ba40',
  'lailaglez/belief-network-irs@9094e4cde738:cisi/cisi.tar.gz#CISI.QRY': 'a5ffad2b39445ca5f4091351466b3d70dad9b4eb9a713b8334d46abb291ffd3c',
  'lailaglez/belief-network-irs@9094e4cde738:cisi/cisi.tar.gz#CISI.REL': 'deb203a0dc07628d14dbcbc9a9803bf3c1f86e855570edb29d907663de8d6ea9',
  'lailaglez/belief-network-irs@9094e4cde738:med/med.tar.gz#MED.ALL': 'fdcd99cf7fc6c45707c9b5bef7daac739f06c4063ebcad9b5cccf2f939fa4236',
  'lailaglez/belief-network-irs@9094e4cde738:med/med.tar.gz#MED.QRY': '41fbc9d7a0ac8620d53e09b3429d2695cecc63d4bf7e15e55bbcee0785a1798c',
  'lailaglez/belief-network-irs@9094e4cde738:med/med.tar.gz#MED.REL': 'aef5ac922c08d5711ffd525985e03cda4272694e35f646deab90177f329ff575',
  'stefreschke/Information-Retrieval@ec84884f012a:npl/doc-text': 'a69b907bdbf59e43b8004e521eb3560dbbaa9cd5facfad4b30b0392434ba18e4',
  'stefreschke/Information-Retrieval@ec84884f012a:npl/query-text': '0f5e9a179334183cc3b04fe24d9bdfc3f656b08330e6798d8df5dc621bf8e6d5',
  'stefreschke/Information-Retrieval@ec84884f012a:npl/rlv-ass': '1af78732abed49055218c1548c27cfa354c5d02a9b6c9cb854b9d0b74fcce24c',
  'HamzaMouaz/AI-powered-information-retrieval-system@9b403e8cde7f:Collections/LISA0.001': 'fa0c58d8a489ad7de4f930d2b4a42f33c7fd9e9e947f3c6900fc99906ce4c261',
  'HamzaMouaz/AI-powered-information-retrieval-system@9b403e8cde7f:Collections/LISA0.501': 'edea7bc2ee70458931952e7094071b9687669ab9265476457c63009d1aff6de5',
  'HamzaMouaz/AI-powered-information-retrieval-system@9b403e8cde7f:Collections/LISA1.001': '5607c12adba7d536345b6f6af8e47d1fa7f70b5588a29470e08cde600d3601e5',
  'HamzaMouaz/AI-powered-information-retrieval-system@9b403e8cde7f:Collections/LISA1.501': 'd3e1cc75c5f0e1fda0203951d9afaceaa6acdca8fbc7f9d2c921edad04e157ae',
  'HamzaMouaz/AI-powered-information-retrieval-system@9b403e8cde7f:Collections/LISA2.001': '25e3b410db0d78e34dbc370da49307748ccbc51521d28e7f057fcde4856ef3e6',
  'HamzaMouaz/AI-powered-information-retrieval-system@9b403e8cde7f:Collections/LISA2.501': '8894940c4bf2a363aa9490064cb620cc4056120e5ffc47da7afe199a7a4ccc26',
  'HamzaMouaz/AI-powered-information-retrieval-system@9b403e8cde7f:Collections/LISA3.001': '7abad5a2fe410a96ac30d0cfc9bbd4a8e108ad339e900fe502c2ea5687481de4',
  'HamzaMouaz/AI-powered-information-retrieval-system@9b403e8cde7f:Collections/LISA3.501': 'e1b658aaa45cfcc71bc30c24e43601c014a6d1cad9d94f6db09a3f6863a2f481',
  'HamzaMouaz/AI-powered-information-retrieval-system@9b403e8cde7f:Collections/LISA4.001': 'ba5dbe032b1973de2add02ddc3a3f9a86076153239fd34ce73176852b86fbdd4',
  'HamzaMouaz/AI-powered-information-retrieval-system@9b403e8cde7f:Collections/LISA4.501': 'ab1d6de7e40c2b1f9649d0e4de169e8e1b48e2afc2167a956386c4237a3cf589',
  'HamzaMouaz/AI-powered-information-retrieval-system@9b403e8cde7f:Collections/LISA5.001': 'fb3d6335ed2385803811496aff189ac04edfb1868956e7b972658ea7f313abec',
  'HamzaMouaz/AI-powered-information-retrieval-system@9b403e8cde7f:Collections/LISA5.501': '496e645526acbe06b0f5d2a740424d456da9c826cfe421204f1fb39b88096410',
  'HamzaMouaz/AI-powered-information-retrieval-system@9b403e8cde7f:Collections/LISA5.627': '53bb3e04023fa3b65924582879d2c9d5daa358cad4731c99fba58adf5635b492',
  'HamzaMouaz/AI-powered-information-retrieval-system@9b403e8cde7f:Collections/LISA5.850': '195854175de7cda61fb04b402d863ad32f78c53732846e83939c8620abb0c9e3',
  'HamzaMouaz/AI-powered-information-retrieval-system@9b403e8cde7f:LISA.QUE': 'd2f042f4f68f8c67546dc44aba073e6acd3582be6e88c7f41a948b760eaea935',
  'HamzaMouaz/AI-powered-information-retrieval-system@9b403e8cde7f:LISA.REL': 'b7bc6ddab84342af41353aebefc0225a70bfb0ff24a40c3140f8905fb218d3a3',
};

function write(out: string, name: string, b: Built): string {
  const dir = join(out, name);
  mkdirSync(join(dir, 'qrels'), { recursive: true });
  // a document id given twice (LISA repeats 1998 and 1999 where 1993-1997 are missing) keeps its first record
  const seen = new Set<string>();
  b = { ...b, corpus: b.corpus.filter((d) => !seen.has(d._id) && seen.add(d._id)) };
  const ids = new Set(b.corpus.map((d) => d._id));
  const judged = b.qrels.filter(([q, d]) => ids.has(d) && b.queries.some((x) => x._id === q));
  const dedup = [...new Map(judged.map((r) => [`${r[0]}\t${r[1]}`, r])).values()];
  writeFileSync(join(dir, 'corpus.jsonl'), b.corpus.map((d) => JSON.stringify(d)).join('\n') + '\n');
  writeFileSync(join(dir, 'queries.jsonl'), b.queries.map((q) => JSON.stringify({ ...q, metadata: {} })).join('\n') + '\n');
  writeFileSync(join(dir, 'qrels', 'test.tsv'), 'query-id\tcorpus-id\tscore\n' + dedup.map((r) => r.join('\t')).join('\n') + '\n');
  const judgedQueries = new Set(dedup.map((r) => r[0])).size;
  return `${name}: ${b.corpus.length} documents, ${b.queries.length} queries (${judgedQueries} judged), ${dedup.length} judgments (${b.qrels.length - dedup.length} dropped: unknown id or duplicate)`;
}

function main(): void {
  const mirrors = arg('mirrors') ?? process.env['LECTERN_IR_MIRRORS'] ?? '/work/.mirror';
  const out = arg('out') ?? join(repoRoot, 'tmp', 'ir-sets');
  const shas: Record<string, string> = {};
  const r = (s: Source): string => read(mirrors, s, shas);
  const S = SOURCES;
  const lines = [
    // CACM qrels.text: "01 1410  0 0" (query, document)
    write(out, 'cacm', fromSmart(r(S.cacmDocs), r(S.cacmQueries), pairs(r(S.cacmQrels), 0, 1))),
    // CISI.REL: "     1     28\t0\t0.000000"
    write(out, 'cisi', fromSmart(r(S.cisiDocs), r(S.cisiQueries), pairs(r(S.cisiQrels), 0, 1))),
    // MED.REL (2000 revision): "1 0 13 1" (query, 0, document, relevant)
    write(out, 'med', fromSmart(r(S.medDocs), r(S.medQueries), pairs(r(S.medQrels), 0, 2))),
    write(out, 'npl', npl(r(S.nplDocs), r(S.nplQueries), r(S.nplQrels))),
    write(out, 'lisa', lisa(LISA_DOC_FILES.map(r), r(S.lisaQueries), r(S.lisaQrels))),
  ];
  for (const l of lines) console.log(l);
  writeFileSync(join(out, 'inputs-sha256.json'), JSON.stringify(shas, null, 2) + '\n');
  console.log(`inputs' SHA-256 in ${join(out, 'inputs-sha256.json')}`);
}

main();
