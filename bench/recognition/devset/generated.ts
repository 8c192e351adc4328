// Generated documents for the quality score's calibration (issue 17): LaTeX (pdfTeX) and LibreOffice
// documents assembled from a seeded generator (layout, fonts, columns, running heads, lists, tables,
// equations, footnotes), each with its exact ground truth and olmOCR-bench style checks, and one scanned
// variant per document at a seeded resolution, noise level and skew. Two disjoint seed ranges and two
// disjoint text pools make two sets:
//   * `fit`: the score's weights were fitted on these (with the older development set and the shared
//     documents), see bench/recognition/fit-score.ts;
//   * `heldout`: never used to tune the converter or to fit the score; the correlation reported for it is
//     the one that says whether the score generalises.
// Nothing binary is committed: `build.ts` compiles the sources when `pdflatex` and `soffice` are installed.
import type { DevCheck } from './documents.js';
import type { ProducedDocument } from './sources.js';
import { mulberry32 } from '../../../test/helpers/random.js';

/** How a generated document's scanned variant is made (see `scanPdf` in build.ts). */
export interface ScanSettings {
  readonly dpi: number;
  /** Peak-to-peak gray grain added to every pixel. */
  readonly grain: number;
  /** Share of pixels flipped to black or white. */
  readonly speckle: number;
  /** Rotation in degrees (a page fed askew). */
  readonly skew: number;
  /** A 3x3 box blur before the noise (a soft focus). */
  readonly blur: boolean;
}

export interface GeneratedDocument extends ProducedDocument {
  readonly set: 'fit' | 'heldout';
  readonly scan: ScanSettings;
}

// Two text pools: the fit documents draw from FIT_TEXT, the held-out documents from HELDOUT_TEXT, so no
// sentence of a held-out document was ever seen while fitting. No TeX or XML special characters.
const FIT_TEXT = [
  'Freshwater mussels filter large volumes of river water and remove fine particles, bacteria and algae as they feed. A dense bed of mussels can clear the whole flow of a small stream within a few hours on a warm summer day.',
  'The survey covered twenty kilometres of the upper river, divided into reaches of five hundred metres. In each reach two divers searched the bed along fixed lines and counted every living mussel they could see without moving stones.',
  'Most mussels were found in reaches with a stable gravel bed and a moderate current. Reaches below the weirs, where fine silt settles in slow water, held almost no living animals but many empty shells of older individuals.',
  'The age structure of the population gives cause for concern. Very few young mussels were found anywhere in the survey area, which suggests that reproduction has failed for at least ten years in most of the river.',
  'The host fish on which the larvae depend is still common, so the failure is more likely caused by the quality of the gravel. Young mussels live buried in the bed for several years and need clean, well oxygenated water between the stones.',
  'The railway company replaced the signalling on the coastal line during the winter months. The old mechanical signals, some of them more than a century old, were removed and replaced by light signals controlled from a single centre.',
  'Trains ran on a reduced timetable for eleven weeks while the work was carried out at night and on weekends. Replacement buses served the smaller stations, where the platforms were also raised to the height of the new trains.',
  'Since the new system came into use, delays caused by signal faults have fallen sharply. The line can now carry four trains an hour in each direction instead of three, and the company plans to add late evening services next year.',
  'The bakery uses flour from three mills in the region and bakes about two thousand loaves a day. Most of the bread is sold in its own shops, while the rest goes to schools, hospitals and small grocers in the surrounding villages.',
  'Energy is the largest cost after wages and flour. The ovens were converted from oil to electricity last year, and solar panels on the roof of the new warehouse now cover about a fifth of the electricity the bakery uses over the year.',
  'Customers were asked about their habits in a short questionnaire at the counter. Half of them buy bread every day, a third twice a week, and most would pay a little more for bread made with flour grown nearby.',
  'The observatory on the hill was built in the eighteen nineties for a private collector and given to the university after his death. Its main telescope, a refractor with a lens of twenty centimetres, is still in working order.',
];
const HELDOUT_TEXT = [
  'Glaciers in the western valleys lost about a quarter of their area between the first aerial photographs and the most recent satellite images. The smaller glaciers on south facing slopes have almost disappeared, while the large valley glaciers have thinned by tens of metres.',
  'Meltwater from the glaciers feeds the rivers during the dry late summer, when rain is scarce. As the ice retreats, this supply first increases and then declines, and farmers who irrigate their fields from the rivers will have to find other sources of water.',
  'The field campaign measured the thickness of the ice with a ground penetrating radar towed across the glacier on a sledge. Stakes drilled into the ice at the start of the season showed how much of the surface melted by the end of it.',
  'A new bridge across the estuary will shorten the journey between the two ports by forty minutes. The design chosen by the regional government is a cable stayed bridge with a main span of six hundred metres and two lanes in each direction.',
  'Construction is expected to take five years and to employ up to eight hundred workers at its peak. The foundations of the two towers will be built inside temporary dams, so that the work does not disturb the shipping channel.',
  'Fishermen have raised concerns about the effect of the construction on the spawning grounds in the estuary. The government has promised to stop the noisiest work during the spawning season and to monitor the fish stocks for ten years.',
  'The choir was founded by a group of teachers who wanted to sing together after work. It now has sixty members of all ages and gives three concerts a year, one of them with the town orchestra in the church on the market square.',
  'Rehearsals take place every Tuesday evening in the hall of the primary school. New members do not need to read music, but they are asked to attend the rehearsals regularly and to practise their parts at home with recordings.',
  'The hospital introduced a new system for booking appointments by telephone and online. Patients now receive a message the day before their appointment, and the number of missed appointments has fallen by more than a third.',
  'Waiting times for routine operations remain long, however, because the hospital lacks nurses for its operating theatres. The board has approved a plan to train twenty new theatre nurses a year and to offer housing to staff from other regions.',
  'The vineyard lies on a steep slope above the river, where the stone terraces store the heat of the day and release it at night. The grapes ripen later here than in the valley, and the harvest often lasts until the end of October.',
  'Most of the work in the vineyard is still done by hand, because machines cannot climb the terraces. The owners have planted new rows of an old local variety that resists the fungal diseases which became common after the wet summers.',
];
const FIT_TITLES = ['Freshwater Mussels of the Upper River', 'Signalling on the Coastal Line', 'A Regional Bakery in Numbers', 'The Observatory on the Hill'];
const HELDOUT_TITLES = ['Retreat of the Western Glaciers', 'The Estuary Bridge Project', 'Notes from the Town Choir', 'Appointments at the District Hospital', 'Terraces above the River'];
const FIT_HEADS = ['Background', 'Survey', 'Findings', 'Outlook', 'Costs', 'Customers'];
const HELDOUT_HEADS = ['Overview', 'Field Work', 'Observations', 'Concerns', 'Planning', 'Summary'];
const FIT_ITEMS = ['Counting living mussels along fixed lines.', 'Measuring the flow in every reach.', 'Sampling the gravel for fine silt.', 'Recording the host fish in each reach.'];
const HELDOUT_ITEMS = ['Radar profiles across the glacier.', 'Stakes drilled into the ice.', 'Weather station at the glacier snout.', 'Satellite images from late summer.'];
const FIT_TABLE = { head: ['Reach', 'Mussels', 'Young', 'Silt'], rows: [['Upper Mill', '412', '3', 'low'], ['Stone Bridge', '288', '0', 'low'], ['Old Weir', '14', '0', 'high'], ['Fox Meadow', '156', '1', 'medium']] };
const HELDOUT_TABLE = { head: ['Glacier', 'Area lost', 'Thinning', 'Aspect'], rows: [['Grey Horn', '31%', '42 m', 'south'], ['Long Valley', '18%', '27 m', 'north'], ['White Saddle', '64%', '19 m', 'south'], ['Black Cirque', '22%', '35 m', 'east']] };
// Display equations: LaTeX source and the ground truth (the same LaTeX, as issue 17 asks for).
const EQUATIONS = [
  { tex: 'Q = v A', md: 'Q = v A' },
  { tex: 'E = m c^2', md: 'E = m c^2' },
  { tex: 'y = a x + b', md: 'y = a x + b' },
];

const random = mulberry32;

const gfm = (head: readonly string[], rows: readonly (readonly string[])[]): string =>
  [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
const xml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

type Block =
  | { kind: 'h'; text: string }
  | { kind: 'p'; text: string }
  | { kind: 'list'; items: string[] }
  | { kind: 'table'; head: string[]; rows: string[][] }
  | { kind: 'eq'; tex: string; md: string };

interface Plan {
  title: string;
  blocks: Block[];
  header: string | null;
}

function plan(rnd: () => number, set: 'fit' | 'heldout'): Plan {
  const text = set === 'fit' ? FIT_TEXT : HELDOUT_TEXT;
  const titles = set === 'fit' ? FIT_TITLES : HELDOUT_TITLES;
  const heads = set === 'fit' ? FIT_HEADS : HELDOUT_HEADS;
  const items = set === 'fit' ? FIT_ITEMS : HELDOUT_ITEMS;
  const table = set === 'fit' ? FIT_TABLE : HELDOUT_TABLE;
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]!;
  const sections = 2 + Math.floor(rnd() * 3);
  const blocks: Block[] = [];
  let next = Math.floor(rnd() * text.length);
  const usedHeads = new Set<string>();
  const extras = { list: rnd() < 0.5, table: rnd() < 0.5, eq: rnd() < 0.4 };
  for (let s = 0; s < sections; s++) {
    let h = pick(heads);
    while (usedHeads.has(h)) h = pick(heads);
    usedHeads.add(h);
    blocks.push({ kind: 'h', text: h });
    const paras = 1 + Math.floor(rnd() * 3);
    for (let i = 0; i < paras; i++) {
      blocks.push({ kind: 'p', text: text[next % text.length]! });
      next++;
      if (i === 0 && s === 1 && extras.list) blocks.push({ kind: 'list', items: items.slice(0, 2 + Math.floor(rnd() * 3)) });
      if (i === 0 && s === 2 && extras.table) blocks.push({ kind: 'table', head: [...table.head], rows: table.rows.map((r) => [...r]) });
      if (i === 0 && s === 0 && extras.eq) blocks.push({ kind: 'eq', ...pick(EQUATIONS) });
    }
  }
  const header = rnd() < 0.6 ? pick(['Regional Research Notes 4 (2026)', 'Annual Report of the District', 'Working Paper Series, number 17', 'Internal memorandum, not for citation']) : null;
  return { title: pick(titles), blocks, header };
}

function truthOf(p: Plan, numbered: boolean, latexMath: boolean): string {
  const out: string[] = [`# ${p.title}`];
  let n = 0;
  for (const b of p.blocks) {
    if (b.kind === 'h') out.push(`## ${numbered ? `${++n} ` : ''}${b.text}`);
    else if (b.kind === 'p') out.push(b.text);
    else if (b.kind === 'list') out.push(b.items.map((i) => `- ${i}`).join('\n'));
    else if (b.kind === 'table') out.push(gfm(b.head, b.rows));
    // A formula typed as text in LibreOffice is text; pdfTeX sets it in math fonts, so it is LaTeX.
    else out.push(latexMath ? `$$${b.md}$$` : b.md.replace(/\^2/, '²'));
  }
  return `${out.join('\n\n')}\n`;
}

function checksOf(p: Plan): DevCheck[] {
  const checks: DevCheck[] = [{ kind: 'present', text: p.title }];
  if (p.header) checks.push({ kind: 'absent', text: p.header });
  const paras = p.blocks.filter((b): b is Block & { kind: 'p' } => b.kind === 'p');
  for (let i = 0; i + 1 < paras.length; i += 2) {
    const a = paras[i]!.text.split('. ')[0]!;
    const b = paras[i + 1]!.text.split('. ')[0]!;
    if (a !== b) checks.push({ kind: 'order', before: a.slice(-40), after: b.slice(0, 40) });
  }
  const t = p.blocks.find((b): b is Block & { kind: 'table' } => b.kind === 'table');
  if (t) checks.push({ kind: 'cell', row: t.rows[2]![0]!, column: t.head[2]!, value: t.rows[2]![2]! });
  const l = p.blocks.find((b): b is Block & { kind: 'list' } => b.kind === 'list');
  if (l) checks.push({ kind: 'present', text: l.items[1]! });
  return checks;
}

function latex(p: Plan, rnd: () => number): { source: string; numbered: boolean } {
  const size = [10, 11, 12][Math.floor(rnd() * 3)]!;
  const twocolumn = rnd() < 0.45;
  const font = ['', '\\usepackage{mathptmx}', '\\usepackage[T1]{fontenc}', '\\usepackage{helvet}\\renewcommand{\\familydefault}{\\sfdefault}'][Math.floor(rnd() * 4)]!;
  const numbered = rnd() < 0.6;
  const sec = numbered ? '\\section' : '\\section*';
  const body = p.blocks
    .map((b) => {
      if (b.kind === 'h') return `${sec}{${b.text}}`;
      if (b.kind === 'p') return `${b.text}\n`;
      if (b.kind === 'list') return `\\begin{itemize}\n${b.items.map((i) => `\\item ${i}`).join('\n')}\n\\end{itemize}`;
      if (b.kind === 'table') return `\\begin{center}\n\\begin{tabular}{l${'r'.repeat(b.head.length - 1)}}\n\\hline\n${b.head.join(' & ')} \\\\\n\\hline\n${b.rows.map((r) => `${r.join(' & ').replace(/%/g, '\\%')} \\\\`).join('\n')}\n\\hline\n\\end{tabular}\n\\end{center}`;
      return `\\begin{equation*}\n${b.tex}\n\\end{equation*}`;
    })
    .join('\n');
  const heads = p.header
    ? `\\usepackage{fancyhdr}\n\\pagestyle{fancy}\n\\fancyhf{}\n\\fancyhead[L]{${p.header}}\n\\fancyfoot[C]{\\thepage}\n`
    : '\\pagestyle{plain}\n';
  const source = `\\documentclass[${size}pt${twocolumn ? ',twocolumn' : ''}]{article}
\\usepackage{amsmath}
${font}
${heads}\\title{${p.title}}
\\author{}
\\date{}
\\begin{document}
\\maketitle
${p.header ? '\\thispagestyle{fancy}\n' : ''}${body}
\\end{document}
`;
  return { source, numbered };
}

function libreoffice(p: Plan, rnd: () => number): string {
  const columns = rnd() < 0.4 ? 2 : 1;
  const font = rnd() < 0.5 ? 'Liberation Serif' : 'Liberation Sans';
  const size = [10, 11, 12][Math.floor(rnd() * 3)]!;
  const par = (t: string): string => `<text:p text:style-name="Standard">${xml(t)}</text:p>`;
  const body = p.blocks
    .map((b) => {
      if (b.kind === 'h') return `<text:h text:style-name="Heading_20_2" text:outline-level="2">${xml(b.text)}</text:h>`;
      if (b.kind === 'p') return par(b.text);
      if (b.kind === 'list') return `<text:list>${b.items.map((i) => `<text:list-item>${par(i)}</text:list-item>`).join('')}</text:list>`;
      if (b.kind === 'table')
        return `<table:table table:name="T1" table:style-name="Tbl"><table:table-column table:number-columns-repeated="${b.head.length}"/>${[b.head, ...b.rows]
          .map((r) => `<table:table-row>${r.map((c) => `<table:table-cell table:style-name="Cell" office:value-type="string">${par(c)}</table:table-cell>`).join('')}</table:table-row>`)
          .join('')}</table:table>`;
      // LibreOffice has no LaTeX: the formula is typed as text (the ground truth still asks for LaTeX).
      return `<text:p text:style-name="Standard">${xml(b.md.replace(/\^2/, '²'))}</text:p>`;
    })
    .join('\n');
  const header = p.header ? `<style:header><text:p text:style-name="Header">${xml(p.header)}</text:p></style:header>` : '';
  const footer = rnd() < 0.7 ? '<style:footer><text:p text:style-name="Header">Page <text:page-number text:select-page="current">1</text:page-number></text:p></style:footer>' : '';
  const title = `<text:h text:style-name="Heading_20_1" text:outline-level="1">${xml(p.title)}</text:h>`;
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:styles>
<style:style style:name="Standard" style:family="paragraph"><style:paragraph-properties fo:margin-bottom="0.2cm" fo:text-align="${rnd() < 0.5 ? 'justify' : 'start'}"/><style:text-properties style:font-name="${font}" fo:font-family="'${font}'" fo:font-size="${size}pt"/></style:style>
<style:style style:name="Heading_20_1" style:display-name="Heading 1" style:family="paragraph" style:parent-style-name="Standard" style:default-outline-level="1"><style:paragraph-properties fo:margin-top="0.5cm" fo:text-align="start"/><style:text-properties fo:font-family="'Liberation Sans'" fo:font-size="${size + 8}pt" fo:font-weight="bold"/></style:style>
<style:style style:name="Heading_20_2" style:display-name="Heading 2" style:family="paragraph" style:parent-style-name="Standard" style:default-outline-level="2"><style:paragraph-properties fo:margin-top="0.4cm" fo:text-align="start"/><style:text-properties fo:font-family="'Liberation Sans'" fo:font-size="${size + 3}pt" fo:font-weight="bold"/></style:style>
<style:style style:name="Header" style:family="paragraph" style:parent-style-name="Standard"><style:text-properties fo:font-size="8pt"/></style:style>
</office:styles>
<office:automatic-styles>
<style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" fo:margin-top="1.5cm" fo:margin-bottom="1.5cm" fo:margin-left="2.2cm" fo:margin-right="2.2cm"/><style:header-style><style:header-footer-properties fo:min-height="0.8cm"/></style:header-style><style:footer-style><style:header-footer-properties fo:min-height="0.8cm"/></style:footer-style></style:page-layout>
<style:style style:name="Sect1" style:family="section"><style:section-properties><style:columns fo:column-count="${columns}" fo:column-gap="0.8cm"/></style:section-properties></style:style>
<style:style style:name="Tbl" style:family="table"><style:table-properties style:width="${columns === 2 ? 7.5 : 16}cm" table:align="margins"/></style:style>
<style:style style:name="Cell" style:family="table-cell"><style:table-cell-properties fo:padding="0.1cm" fo:border="${rnd() < 0.5 ? '0.5pt solid #000000' : 'none'}"/></style:style>
</office:automatic-styles>
<office:master-styles>
<style:master-page style:name="Standard" style:page-layout-name="pm1">${header}${footer}</style:master-page>
</office:master-styles>
<office:body><office:text>
${title}
<text:section text:style-name="Sect1" text:name="Body">${body}</text:section>
</office:text></office:body>
</office:document>
`;
}

function scanSettings(rnd: () => number): ScanSettings {
  return {
    dpi: [70, 85, 100, 100, 150, 200][Math.floor(rnd() * 6)]!,
    grain: Math.round(10 + rnd() * 80),
    speckle: Math.round(rnd() * rnd() * 0.012 * 10000) / 10000,
    skew: Math.round((rnd() - 0.5) * 3 * 10) / 10,
    blur: rnd() < 0.3,
  };
}

/** One generated document from its seed. */
export function generatedDocument(set: 'fit' | 'heldout', seed: number): GeneratedDocument {
  const rnd = random(seed * 7919 + (set === 'fit' ? 1 : 2));
  const p = plan(rnd, set);
  const producer = rnd() < 0.55 ? 'latex' : 'libreoffice';
  const scan = scanSettings(rnd);
  if (producer === 'latex') {
    const { source, numbered } = latex(p, rnd);
    return { name: `${set}-${seed}-latex`, producer, set, source, truth: truthOf(p, numbered, true), checks: checksOf(p), scan };
  }
  return { name: `${set}-${seed}-office`, producer, set, source: libreoffice(p, rnd), truth: truthOf(p, false, false), checks: checksOf(p), scan };
}

/** Seeds of the two sets (disjoint). */
export const FIT_SEEDS = Array.from({ length: 12 }, (_, i) => i + 1);
export const HELDOUT_SEEDS = Array.from({ length: 20 }, (_, i) => i + 101);

export function generatedDocuments(): GeneratedDocument[] {
  return [...FIT_SEEDS.map((s) => generatedDocument('fit', s)), ...HELDOUT_SEEDS.map((s) => generatedDocument('heldout', s))];
}
