/**
 * Inflected forms of a German query word that the pages write: a person remembers "automatisch
 * einbinden" where the page says "automatische", asks about an "Akkord" where the page has "Akkorde",
 * types "Endung" for "Endungen". The index keeps each form as its own term (its stemmer is English's
 * light one, src/tokenizer.ts `stem`), so these words found nothing, or a section holding the form
 * typed elsewhere on another subject.
 *
 * Nothing is stemmed at index time: the query word is cut to a base by taking off one German
 * inflectional ending, and the base with each ending put back is looked up as an index term. Forms the
 * index holds are searched as the same word (weighted a little below the form typed; src/search.ts).
 * Looked up, not enumerated from the dictionary: one postings read of a few terms per word, on every
 * source, with no term list loaded.
 */

/**
 * German's inflectional endings of nouns and adjectives (plural and case: `Datei-en`, `Paket-e`,
 * `automatisch-en`, `Akkord-es`, `klein-em`), longest first. Verb endings (`-t`, `-st`) are not taken off
 * a word typed: that joins words of different meaning (`bestimmt` "certainly", `bestimmen` "decide"). An
 * infinitive typed gets its weak forms (`verbStem`): measured, session 38, tests/eval/README.md.
 */
const ENDINGS = ['ern', 'em', 'en', 'er', 'es', 'e', 'n', 's'] as const;

/** The shortest base, in letters: shorter bases are mostly function words and prefixes (`unt`, `ein`). */
export const MIN_BASE = 4;
/** The shortest word that gets variants. */
export const MIN_VARIANT_WORD = 4;
const LETTERS = /^\p{L}+$/u;

/** The word (folded, lower case, as the tokenizer writes it before stemming) without one German ending. */
export function germanBase(word: string): string {
  for (const e of ENDINGS) if (word.endsWith(e) && word.length - e.length >= MIN_BASE) return word.slice(0, -e.length);
  return word;
}

/**
 * The forms of `word` to look up: its base, and its base with each ending; not the word itself, and
 * nothing for a word that is short, not all letters, or longer than a word is.
 */
export function germanForms(word: string): string[] {
  if (word.length < MIN_VARIANT_WORD || word.length > 48 || !LETTERS.test(word)) return [];
  const base = germanBase(word);
  const out = new Set<string>([base]);
  for (const e of ENDINGS) out.add(base + e);
  // An infinitive typed (`wiederholen`, `aktualisieren`, `ändern`, `sammeln`): a weak verb's finite forms
  // and participle (`wiederholt`, `aktualisierte`, `geändert`). Only ever added to what the word matches
  // (an infinitive is never cut from a form typed: `bestimmt` "certainly" is not `bestimmen` "decide").
  const stem = verbStem(word);
  if (stem) {
    for (const e of VERB_ENDINGS) out.add(stem + e);
    out.add('ge' + stem + 't');
  }
  out.delete(word);
  return [...out];
}

/** A weak verb's endings on its stem: `wiederhol-t`, `-te`, `-ten`, `-st`, `-et` (`arbeit-et`). */
const VERB_ENDINGS = ['t', 'te', 'ten', 'st', 'et'] as const;

/** The stem of what may be an infinitive (`wiederhol` of `wiederholen`, `änder` of `ändern`), or null. */
export function verbStem(word: string): string | null {
  if (!/(?:[^e]en|[elr]n)$/.test(word)) return null;
  // `-eln` / `-ern` verbs drop the `n` only (`sammel-n`, `änder-n`); the rest `-en`.
  const stem = word.endsWith('en') && !/[elr]n$/.test(word.slice(0, -1)) ? word.slice(0, -2) : word.slice(0, -1);
  return stem.length >= MIN_BASE ? stem : null;
}
