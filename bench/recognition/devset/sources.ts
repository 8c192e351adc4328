// Development documents made by real producers (issue 17): LaTeX (pdfTeX from Debian's TeX Live) and
// LibreOffice (Writer, `soffice --headless --convert-to pdf` of a flat ODF text document). The sources are
// written here, so the ground truth is known exactly; `build.ts` compiles them when the tools are installed
// (`texlive-latex-base`, `libreoffice-writer-nogui`) and leaves them out otherwise. These documents were
// made after the converter's issue 17 changes and are not used to tune it: they are the held-out part of the
// development set on which the quality score's correlation is reported.
import type { DevCheck } from './documents.js';

/** A source document for an external producer. */
export interface ProducedDocument {
  readonly name: string;
  readonly producer: 'latex' | 'libreoffice';
  /** LaTeX source, or a flat ODF text document (`.fodt`). */
  readonly source: string;
  /** The exact ground truth as Markdown; displayed and inline math as LaTeX (`$$...$$`, `$...$`). */
  readonly truth: string;
  readonly checks: readonly DevCheck[];
}

// Prose with no TeX or XML special characters, quotes or dashes, so the same text serves both producers.
const P = [
  'Coastal wetlands store large amounts of carbon in their soils, and the rate at which they bury it depends on how often the tide floods them and how much sediment the water carries. Measurements at eleven sites along the northern shore show burial rates that differ by a factor of four between neighbouring marshes.',
  'We sampled each site twice a year for three years. Cores were taken at low tide from the lower, middle and upper marsh, cut into slices of two centimetres, dried and weighed, and the organic fraction was determined by loss on ignition at five hundred degrees.',
  'The lower marsh accumulated sediment fastest in every year of the study, while the upper marsh gained little mass but kept a higher share of organic matter. Storm surges in the second winter left layers of sand that are visible in most of the cores from the exposed sites.',
  'Burial rates correlate with the number of flooding tides per month more strongly than with elevation alone. Sites behind the old sea wall, which the tide reaches only through a narrow culvert, buried less carbon than open sites at the same height.',
  'These results suggest that restoring tidal exchange is a more effective way to increase carbon storage than raising the marsh surface. Managers who plan to remove old embankments should expect a period of erosion before the new marsh begins to accumulate sediment again.',
  'The municipal library opened its new reading room in the spring, after two years of construction that kept the eastern wing closed to visitors. The room seats one hundred and twenty readers and holds the local history collection, which was previously stored in the basement.',
  'Visitor numbers rose by a third in the months after the opening. The longest queues formed on Saturday mornings, when families came for the story hour and stayed to use the computers, and the staff extended the opening hours on that day as a result.',
  'Funding for the coming year remains uncertain. The council has promised to keep the current budget, but the cost of heating the larger building is higher than planned, and the library will ask volunteers to help with the evening opening hours.',
  'The engine test stand was rebuilt to measure thrust and fuel flow at the same time. A load cell under the mounting plate records the thrust one thousand times per second, while a turbine flow meter in the fuel line gives the mass flow after a correction for temperature.',
  'Each run starts with a warm phase of two minutes at idle, followed by steps of ten percent of the maximum throttle held for thirty seconds each. The data are averaged over the last twenty seconds of every step, when the readings have settled.',
  'Specific fuel consumption falls as the throttle opens and reaches its lowest value near eighty percent, above which it rises again. The repeated runs agree within two percent, which is close to the combined uncertainty of the load cell and the flow meter.',
  'The old harbour was dredged for the last time in the nineteen seventies. Since then the channel has silted up to a depth of less than two metres at low water, so that only small fishing boats and pleasure craft can still reach the inner quay.',
  'A study commissioned by the port authority estimates the cost of dredging the channel to five metres and of keeping it at that depth for ten years. The estimate includes the disposal of the dredged material, which is contaminated with metals from the former shipyard.',
  'The committee will present its recommendation in the autumn. Residents may send written comments to the port office until the end of the summer, and two public meetings will be held in the town hall before the final decision is taken.',
];

const TABLE_HEAD = ['Site', 'Flooding tides', 'Burial rate', 'Organic share'];
const TABLE_ROWS = [
  ['North Point', '42', '310', '18%'],
  ['Eel Creek', '37', '265', '21%'],
  ['Sea Wall', '9', '82', '26%'],
  ['Mill Bay', '28', '190', '19%'],
];
const gfm = (head: readonly string[], rows: readonly (readonly string[])[]): string =>
  [`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');

function latexPaper(): ProducedDocument {
  const tex = String.raw;
  const rows = TABLE_ROWS.map((r) => `${r.join(' & ').replace(/%/g, '\\%')} \\\\`).join('\n');
  // Computer Modern Type 1 fonts (the default encoding), whose glyphs map to Unicode.
  const source = tex`\documentclass[10pt,twocolumn]{article}
\usepackage{amsmath}
\usepackage{fancyhdr}
\pagestyle{fancy}
\fancyhf{}
\fancyhead[L]{Devset Letters in Coastal Science 12 (2026)}
\fancyhead[R]{Carbon burial in tidal marshes}
\fancyfoot[C]{\thepage}
\title{Carbon Burial in Tidal Marshes of the Northern Shore}
\author{Ada Example \and Bob Sample}
\date{}
\begin{document}
\maketitle
\thispagestyle{fancy}
\section{Introduction}
${P[0]}

${P[3]}
\section{Methods}
${P[1]}

The burial rate $B$ of a core follows from the dry bulk density $\rho$, the organic carbon fraction $f$ and the accretion rate $a$:
\begin{equation*}
B = \rho f a
\end{equation*}
which we report in grams per square metre and year.
\section{Results}
${P[2]}

\begin{table}[h]
\centering
\begin{tabular}{lrrr}
\hline
${TABLE_HEAD.join(' & ')} \\
\hline
${rows}
\hline
\end{tabular}
\caption{Flooding tides per month and burial rates at four of the sites.}
\end{table}

${P[3]}

${P[0]}
\section{Discussion}
${P[4]}

${P[2]}

${P[1]}
\end{document}
`;
  const truth = `# Carbon Burial in Tidal Marshes of the Northern Shore

Ada Example Bob Sample

## 1 Introduction

${P[0]}

${P[3]}

## 2 Methods

${P[1]}

The burial rate $B$ of a core follows from the dry bulk density $\\rho$, the organic carbon fraction $f$ and the accretion rate $a$:

$$B = \\rho f a$$

which we report in grams per square metre and year.

## 3 Results

${P[2]}

${gfm(TABLE_HEAD, TABLE_ROWS)}

Table 1: Flooding tides per month and burial rates at four of the sites.

${P[3]}

${P[0]}

## 4 Discussion

${P[4]}

${P[2]}

${P[1]}
`;
  return {
    name: 'latex-two-column-paper',
    producer: 'latex',
    source,
    truth,
    checks: [
      { kind: 'present', text: 'Carbon Burial in Tidal Marshes of the Northern Shore' },
      { kind: 'absent', text: 'Devset Letters in Coastal Science' },
      { kind: 'order', before: 'Carbon Burial in Tidal Marshes', after: 'Ada Example' },
      { kind: 'order', before: 'loss on ignition at five hundred degrees', after: 'The burial rate' },
      { kind: 'order', before: 'grams per square metre and year', after: '3 Results' },
      { kind: 'cell', row: 'Sea Wall', column: 'Burial rate', value: '82' },
      { kind: 'cell', row: 'Mill Bay', column: 'Organic share', value: '19%' },
      { kind: 'present', text: 'more effective way to increase carbon storage' },
      { kind: 'present', text: '$B = \\rho f a$' },
    ],
  };
}

function latexChapter(): ProducedDocument {
  // T1 encoding without cm-super (Debian's texlive-latex-base alone): pdfTeX embeds bitmap Type 3 fonts whose
  // ligature glyphs (fi, fl, ff) map to no character, so every extractor loses them.
  const source = String.raw`\documentclass[11pt]{article}
\usepackage[T1]{fontenc}
\usepackage{fancyhdr}
\pagestyle{fancy}
\fancyhf{}
\fancyhead[L]{Annual Notes of the Town}
\fancyhead[R]{\thepage}
\begin{document}
\section*{The Library}
${P[5]}

${P[6]}\footnote{Counts from the entrance gates, which miss visitors of the children's room.}

${P[7]}
\section*{The Harbour}
${P[11]}

${P[12]}
\begin{itemize}
\item Dredging the channel to five metres.
\item Keeping the channel at that depth for ten years.
\item Disposing of the contaminated material.
\end{itemize}
${P[13]}
\section*{The Test Stand}
${P[8]}

${P[9]}

${P[10]}

${P[5]}

${P[11]}
\end{document}
`;
  const truth = `## The Library

${P[5]}

${P[6]}

[^1]: Counts from the entrance gates, which miss visitors of the children’s room.

${P[7]}

## The Harbour

${P[11]}

${P[12]}

- Dredging the channel to five metres.
- Keeping the channel at that depth for ten years.
- Disposing of the contaminated material.

${P[13]}

## The Test Stand

${P[8]}

${P[9]}

${P[10]}

${P[5]}

${P[11]}
`;
  return {
    name: 'latex-article-pages',
    producer: 'latex',
    source,
    truth,
    checks: [
      { kind: 'absent', text: 'Annual Notes of the Town' },
      { kind: 'present', text: 'Keeping the channel at that depth for ten years.' },
      { kind: 'order', before: 'two public meetings will be held', after: 'The Test Stand' },
      { kind: 'present', text: 'close to the combined uncertainty of the load cell' },
    ],
  };
}

const xml = (s: string): string => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** A flat ODF text document with the given body (office:text content) and master page header/footer. */
function fodt(body: string, header: string, columns = 1): string {
  return `<?xml version="1.0" encoding="UTF-8"?>
<office:document xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">
<office:styles>
<style:style style:name="Standard" style:family="paragraph"><style:paragraph-properties fo:margin-bottom="0.25cm" fo:text-align="justify"/><style:text-properties style:font-name="Liberation Serif" fo:font-family="'Liberation Serif'" fo:font-size="11pt"/></style:style>
<style:style style:name="Heading_20_1" style:display-name="Heading 1" style:family="paragraph" style:parent-style-name="Standard" style:default-outline-level="1"><style:paragraph-properties fo:margin-top="0.5cm" fo:text-align="start"/><style:text-properties fo:font-family="'Liberation Sans'" fo:font-size="18pt" fo:font-weight="bold"/></style:style>
<style:style style:name="Heading_20_2" style:display-name="Heading 2" style:family="paragraph" style:parent-style-name="Standard" style:default-outline-level="2"><style:paragraph-properties fo:margin-top="0.4cm" fo:text-align="start"/><style:text-properties fo:font-family="'Liberation Sans'" fo:font-size="14pt" fo:font-weight="bold"/></style:style>
<style:style style:name="Header" style:family="paragraph" style:parent-style-name="Standard"><style:text-properties fo:font-size="9pt"/></style:style>
</office:styles>
<office:automatic-styles>
<style:page-layout style:name="pm1"><style:page-layout-properties fo:page-width="21cm" fo:page-height="29.7cm" fo:margin-top="1.5cm" fo:margin-bottom="1.5cm" fo:margin-left="2.5cm" fo:margin-right="2.5cm"/><style:header-style><style:header-footer-properties fo:min-height="0.8cm"/></style:header-style><style:footer-style><style:header-footer-properties fo:min-height="0.8cm"/></style:footer-style></style:page-layout>
<style:style style:name="Sect1" style:family="section"><style:section-properties><style:columns fo:column-count="${columns}" fo:column-gap="0.8cm"/></style:section-properties></style:style>
<style:style style:name="Tbl" style:family="table"><style:table-properties style:width="16cm" table:align="margins"/></style:style>
<style:style style:name="Cell" style:family="table-cell"><style:table-cell-properties fo:padding="0.1cm" fo:border="0.5pt solid #000000"/></style:style>
</office:automatic-styles>
<office:master-styles>
<style:master-page style:name="Standard" style:page-layout-name="pm1">
<style:header><text:p text:style-name="Header">${xml(header)}</text:p></style:header>
<style:footer><text:p text:style-name="Header">Page <text:page-number text:select-page="current">1</text:page-number></text:p></style:footer>
</style:master-page>
</office:master-styles>
<office:body><office:text>
${body}
</office:text></office:body>
</office:document>
`;
}

const h = (level: number, text: string): string => `<text:h text:style-name="Heading_20_${level}" text:outline-level="${level}">${xml(text)}</text:h>`;
const p = (text: string): string => `<text:p text:style-name="Standard">${xml(text)}</text:p>`;
const table = (head: readonly string[], rows: readonly (readonly string[])[]): string =>
  `<table:table table:name="T1" table:style-name="Tbl"><table:table-column table:number-columns-repeated="${head.length}"/>${[head, ...rows]
    .map((r) => `<table:table-row>${r.map((c) => `<table:table-cell table:style-name="Cell" office:value-type="string">${p(c)}</table:table-cell>`).join('')}</table:table-row>`)
    .join('')}</table:table>`;
const list = (items: readonly string[]): string => `<text:list>${items.map((i) => `<text:list-item>${p(i)}</text:list-item>`).join('')}</text:list>`;

const ENGINE_HEAD = ['Throttle', 'Thrust', 'Fuel flow', 'Consumption'];
const ENGINE_ROWS = [
  ['40%', '1.9 kN', '61 g/s', '32.1'],
  ['60%', '3.1 kN', '88 g/s', '28.4'],
  ['80%', '4.4 kN', '118 g/s', '26.8'],
  ['100%', '5.2 kN', '151 g/s', '29.0'],
];

function officeReport(): ProducedDocument {
  const items = ['Load cell under the mounting plate.', 'Turbine flow meter in the fuel line.', 'Thermocouples at the inlet and the nozzle.'];
  const body = [
    h(1, 'Engine Test Stand Report'),
    h(2, 'Set-up'),
    p(P[8]!),
    list(items),
    p(P[9]!),
    h(2, 'Measurements'),
    p(P[10]!),
    table(ENGINE_HEAD, ENGINE_ROWS),
    p(P[11]!),
    p(P[12]!),
    h(2, 'Next Steps'),
    p(P[13]!),
    p(P[5]!),
    p(P[6]!),
    p(P[7]!),
    p(P[0]!),
  ].join('\n');
  const truth = `# Engine Test Stand Report

## Set-up

${P[8]}

${items.map((i) => `- ${i}`).join('\n')}

${P[9]}

## Measurements

${P[10]}

${gfm(ENGINE_HEAD, ENGINE_ROWS)}

${P[11]}

${P[12]}

## Next Steps

${P[13]}

${P[5]}

${P[6]}

${P[7]}

${P[0]}
`;
  return {
    name: 'libreoffice-report',
    producer: 'libreoffice',
    source: fodt(body, 'Propulsion Laboratory, internal report 7'),
    truth,
    checks: [
      { kind: 'absent', text: 'Propulsion Laboratory, internal report 7' },
      { kind: 'absent', text: 'Page 1' },
      { kind: 'cell', row: '80%', column: 'Fuel flow', value: '118 g/s' },
      { kind: 'cell', row: '100%', column: 'Consumption', value: '29.0' },
      { kind: 'present', text: 'Turbine flow meter in the fuel line.' },
      { kind: 'order', before: 'Next Steps', after: 'The committee will present' },
    ],
  };
}

function officeColumns(): ProducedDocument {
  const paras = [P[11]!, P[12]!, P[13]!, P[5]!, P[6]!, P[7]!, P[2]!, P[4]!];
  const body = `${h(1, 'Harbour and Library News')}\n<text:section text:style-name="Sect1" text:name="Columns">${paras.map(p).join('\n')}</text:section>`;
  return {
    name: 'libreoffice-two-column',
    producer: 'libreoffice',
    source: fodt(body, 'Town Newsletter, summer issue', 2),
    truth: `# Harbour and Library News\n\n${paras.join('\n\n')}\n`,
    checks: [
      { kind: 'absent', text: 'Town Newsletter, summer issue' },
      { kind: 'order', before: 'before the final decision is taken', after: 'The municipal library opened' },
      { kind: 'order', before: 'reading room in the spring', after: 'Visitor numbers rose by a third' },
      { kind: 'present', text: 'ask volunteers to help with the evening opening hours' },
    ],
  };
}

/** The produced documents, in a fixed order. */
export function producedDocuments(): ProducedDocument[] {
  return [latexPaper(), latexChapter(), officeReport(), officeColumns()];
}
