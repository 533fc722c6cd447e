/**
 * The bundled word-vector model's words as the worker reads them: one word a line, sorted (by UTF-16
 * code units, as JavaScript compares strings), the words of the tokenizer's vocabulary made of letters
 * only — the rule of src/spelling.ts `lexiconOf`, which tests/unit/lexicon.test.ts holds this to. The
 * worker looks a word up by binary search in this text (src/spelling.ts `SortedLexicon`) instead of
 * parsing the 800 KB tokenizer.json into a Set: 80-90 ms on the first search after a worker start.
 */
export function lexiconText(tokenizerJson) {
  const vocab = tokenizerJson?.model?.vocab;
  if (!vocab || typeof vocab !== 'object') throw new Error('tokenizer.json has no model.vocab');
  return Object.keys(vocab)
    .filter((w) => /^\p{L}+$/u.test(w))
    .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
    .join('\n');
}
