// Language codes the service accepts in requests (`possible_languages`, `filter_languages`): an ISO 639
// language (two or three letters, as CLDR knows them through Intl.DisplayNames), optionally with BCP 47
// subtags, which only the request schema's pattern checks (`pt-BR`, `zh-Hant`). A code that names no
// language (`zz`, `qqq`) is refused rather than silently matching or analysing nothing (issue 25).

const NAMES = new Intl.DisplayNames(['en'], { type: 'language', fallback: 'none' });

/** True when the primary subtag of `tag` is a language CLDR has a name for (`en`, `pt-BR`, `kln`). */
export function isKnownLanguage(tag: string): boolean {
  const primary = tag.split(/[-_]/, 1)[0]!.toLowerCase();
  if (!/^[a-z]{2,3}$/.test(primary)) return false;
  try {
    return NAMES.of(primary) !== undefined;
  } catch {
    return false;
  }
}

/** The entries of `tags` that name no language, with their positions. */
export function unknownLanguages(tags: readonly string[] | null | undefined): { index: number; tag: string }[] {
  return (tags ?? []).flatMap((tag, index) => (isKnownLanguage(tag) ? [] : [{ index, tag }]));
}
