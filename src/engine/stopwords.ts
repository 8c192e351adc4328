// Stopword lists per language (ISO 639-1). Short, function-word-only lists: scientific queries carry
// meaning in words that general-purpose lists drop ("can", "not", "may" stay indexed). Stopwords are
// removed from the token stream but keep their position slot, so phrases such as "effect of aspirin"
// still require "aspirin" two positions after "effect" (as Lucene's StopFilter with position increments).
// English keeps "a" as a word: single letters carry meaning in science ("vitamin A", "hepatitis A", "type A");
// dropping it from the list raised nDCG@10 on both SciFact and Cranfield (docs/engine.md, Quality).

const EN =
  'an and are as at be been but by for from had has have if in into is it its of on or that the their then there these they this those to was were which will with';
const DE =
  'aber als am an auch auf aus bei bin bis da das dass dem den der des die doch dort du durch ein eine einem einen einer eines er es für hat hatte ich ihr im in ist ja man mit nach nicht noch nur oder sich sie sind so über um und uns vom von vor war waren was wie wir wird zu zum zur';
const FR =
  "au aux avec ce ces cette d dans de des du elle en est et il ils je l la le les leur lui ma mais me mes n ne nous on ou par pas pour qu que qui s sa se ses son sont sur ta te tes toi ton tu un une vos votre vous y été être";
const ES =
  'a al como con de del el en es esta este fue ha la las le les lo los más mi no o para pero por que se sin sobre su sus un una unas uno unos y ya';
const IT =
  'a ad al alla alle anche che chi ci come con da dal dalla dei del della delle di e ed era gli ha i il in la le lo ma ne nei nel nella non o per più se si sono su sua suo tra un una uno';
const PT =
  'a ao aos as com como da das de do dos e em entre era essa esse foi mais mas na nas no nos não o os ou para pela pelo por que se sem seu sua são um uma';
const NL =
  'aan al als bij dan dat de der des die dit door een en er het hij hoe in is je maar met na naar niet of om ook op over te tot uit van voor was wat we wel werd wordt zal ze zich zij zijn';
const RU =
  'а без бы в во вот все вы да для до его ее если же за и из или им их к как ли мы на над не нет но о об от по под при с со так также то только у уже что чтобы это эти я';

const LISTS: Record<string, ReadonlySet<string>> = {
  en: new Set(EN.split(' ')),
  de: new Set(DE.split(' ')),
  fr: new Set(FR.split(' ')),
  es: new Set(ES.split(' ')),
  it: new Set(IT.split(' ')),
  pt: new Set(PT.split(' ')),
  nl: new Set(NL.split(' ')),
  ru: new Set(RU.split(' ')),
};

const EMPTY: ReadonlySet<string> = new Set();

// Query-side stopwords: dropped from unquoted query text only (documents keep them indexed, quoted phrases
// keep them as required tokens). Queries written as sentences or questions ("what similarity laws must be
// obeyed when...", "ART has no effect on the infectiveness of...") carry pronouns, auxiliaries, modals and
// interrogatives that match documents only by accident. The English list is NLTK's list without "a" (kept
// as a word, see above) plus the modals could/would/may/might/must; the effect is in docs/engine.md, Quality.
const EN_QUERY =
  'i me my myself we our ours ourselves you your yours yourself yourselves he him his himself she her hers herself ' +
  'it its itself they them their theirs themselves what which who whom this that these those am is are was were be ' +
  'been being have has had having do does did doing an the and but if or because as until while of at by for with ' +
  'about against between into through during before after above below to from up down in out on off over under ' +
  'again further then once here there when where why how all any both each few more most other some such no nor ' +
  'not only own same so than too very s t can will just don should now could would may might must';

const QUERY_LISTS: Record<string, ReadonlySet<string>> = {
  en: new Set(EN_QUERY.split(' ')),
};

/** Query-side stopwords of a language (ISO 639-1, lower case): a superset of {@link stopwordsFor}. */
export function queryStopwordsFor(language: string): ReadonlySet<string> {
  return QUERY_LISTS[language] ?? LISTS[language] ?? EMPTY;
}

/** The stopword set of a language (ISO 639-1, lower case); empty for languages without a list. */
export function stopwordsFor(language: string): ReadonlySet<string> {
  return LISTS[language] ?? EMPTY;
}
