// The version of the text analysis (tokenizer, folding, stopwords, stemming and their English rules,
// query-side stopwords). An index holds the tokens of the analysis that built it, so queries analysed
// differently miss them without any error: the host stores this number with every commit and
// rebuilds an index whose number differs (src/search/index-set.ts).
//
// Bump it in the same commit as any change that makes analyze() return other tokens for some input.
// 1: the first release (commit labels without a version). 2: English rules around Snowball, identifiers
// split at letter/digit boundaries, Greek letters next to digits, query-side stopwords.
export const ANALYSIS_VERSION = 2;
