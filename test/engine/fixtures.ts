// Small hand-made corpus for engine tests.
import type { IndexDocument } from '../../src/engine/index.js';

export const DOCS: IndexDocument[] = [
  { id: 'a1', title: 'Heat shock proteins in cancer', abstract: 'Heat shock protein 90 supports tumour growth. Inhibitors of HSP90 slow tumours.', type: 'journal-article', issuedAt: 1_600_000_000, language: 'en', publisher: 'Elsevier', issns: ['1234-5678'], uris: ['doi://10.1/a1'], references: ['doi://10.1/b2'], workKey: 'w-a' },
  { id: 'a1-preprint', title: 'Heat shock proteins in cancer (preprint)', abstract: 'Heat shock protein 90 supports tumour growth.', type: 'preprint', issuedAt: 1_590_000_000, language: 'en', uris: ['arxiv://2001.00001'], references: ['doi://10.1/b2'], workKey: 'w-a' },
  { id: 'b2', title: 'Shock waves and heat transfer', abstract: 'Heat transfer behind a normal shock wave in air. The shock heats the gas.', type: 'journal-article', issuedAt: 1_500_000_000, language: 'en', publisher: 'AIAA', uris: ['doi://10.1/b2'] },
  { id: 'c3', title: 'IL-6 signalling', abstract: 'Interleukin 6 (IL6) signals through the IL-6 receptor and TNF-α.', body: 'The receptor binds IL-6. Long body text about signalling pathways in immune cells.', type: 'journal-article', issuedAt: null, language: 'en', uris: ['doi://10.2/c3'], references: ['doi://10.1/a1', 'doi://10.1/b2'] },
  { id: 'd4', title: 'Hitzeschockproteine und Häuser', abstract: 'Die Häuser wurden untersucht.', type: 'book', issuedAt: 1_400_000_000, language: 'de', publisher: 'Springer' },
  { id: 'e5', title: 'Effect of aspirin on platelets', abstract: 'The effect of aspirin on platelet aggregation was measured. Aspirin effect persisted.', type: 'journal-article', issuedAt: 1_650_000_000, language: 'en' },
];
