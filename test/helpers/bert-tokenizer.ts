// A Hugging Face tokenizer.json of the BERT kind (BertNormalizer, BertPreTokenizer, WordPiece,
// [CLS] $A [SEP] templates), shared by the tests' tiny models (tiny-onnx.ts) and the real-size encoder
// generator (bench/models/build-bert-onnx.ts), so neither downloads one.

const special = (id: number, content: string) => ({ id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true });

/** The tokenizer.json over `vocab` (token -> id; it holds every entry of `specials`, among them [CLS] and [SEP]). */
export function wordPieceTokenizerJson(vocab: Record<string, number>, specials: readonly string[], truncation: Record<string, unknown> | null = null): Record<string, unknown> {
  const id = (t: string): number => {
    const v = vocab[t];
    if (v === undefined) throw new Error(`the vocabulary has no ${t}`);
    return v;
  };
  return {
    version: '1.0',
    truncation,
    padding: null,
    added_tokens: specials.map((t) => special(id(t), t)),
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      pair: [
        { SpecialToken: { id: '[CLS]', type_id: 0 } },
        { Sequence: { id: 'A', type_id: 0 } },
        { SpecialToken: { id: '[SEP]', type_id: 0 } },
        { Sequence: { id: 'B', type_id: 1 } },
        { SpecialToken: { id: '[SEP]', type_id: 1 } },
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [id('[CLS]')], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [id('[SEP]')], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  };
}
