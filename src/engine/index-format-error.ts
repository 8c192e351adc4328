// Thrown by SearchIndex.open when the files were written in a format this engine does not read (an
// older or newer segment or manifest version). The host rebuilds such an index from its source of
// truth instead of failing (src/search/index-set.ts); a damaged file is a different error.
export class IndexFormatError extends Error {
  override readonly name = 'IndexFormatError';
}
