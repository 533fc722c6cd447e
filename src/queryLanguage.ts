/**
 * Whether a query can be in one of a model's languages: the meaning lane of a model trained on English
 * text (the bundled word vectors, MiniLM) says nothing about a German or Japanese query. Measured with
 * the bundled vectors (tests/eval/README.md): their vocabulary holds German and French function words
 * (`die`, `das`, `de`, `la`), so every German text embeds near every other German text, and a German
 * question about the weather in Berlin found a dozen German pages above the similarity floor.
 *
 * Judged from the query alone, by two cheap signals that need no model: the script of its words, and
 * its function words (the most frequent words of English and of the major languages written in Latin
 * script, minus those that are English words too: `die`, `was`, `an`, `also`). Letters outside ASCII
 * (`ä`, `é`, `ñ`) count against English as well. A query with no signal at all (`service startup
 * configuration`, `os.path.join`) is taken to be in any language: only a query that shows another
 * language is kept from the lane.
 */

/** ISO 639-1 codes; null: every language. */
export type LanguageSet = readonly string[] | null;

const EN = new Set(
  ('a an the and or but of to in on at by for from with without into onto about over under after before between through ' +
    'is are was were be been being am do does did done have has had having will would shall should can could may might must ' +
    'i you he she it we they me him her us them my your his its our their mine yours this that these those there here ' +
    'what which who whom whose when where why how not no yes if then than so as just also only very too more most some any ' +
    'all each every other another such one both either neither own same few many much up down out off again once ' +
    'get got make made use used using want need like way thing things something anything nothing') .split(' '),
);

/**
 * Words of those lists that are English words or everyday technical names too (`os` of os.path, `su`,
 * `dos`, `io`, `ci`, `com`, `dat`, `van`, `plus`, `sans`, `encore`): never a sign of another language.
 */
const SHARED = new Set(
  ('ai am al as con com ci da dat de di die dos door dove em en er es eu era hay heel hoe io is lo ma met mi nas non ' +
    'op os par para per plus sans encore se si sin son su tem ton tu um van wat yo come ser').split(' '),
);
const otherWords = (words: string): ReadonlySet<string> => new Set(words.split(' ').filter((w) => w.length > 1 && !EN.has(w) && !SHARED.has(w)));

/** Frequent function words of languages written in Latin script, none of them an English word. */
const OTHER: Readonly<Record<string, ReadonlySet<string>>> = {
  de: otherWords(
    'der den dem des das ein eine einen einem einer eines und oder aber nicht ist sind war wird werden wurde kann können ' +
      'muss müssen soll sollte mit von zu zum zur auf für aus bei nach über unter vor durch gegen ohne um wie wo wann warum ' +
      'was welche welcher welches wer ich du er sie es wir ihr mein dein sein ihre unser euer dieser diese dieses jeder ' +
      'kein keine noch schon nur auch sehr mehr dass wenn ob weil damit dann hier dort gibt im ins vom am beim sich mich dich uns',
  ),
  fr: otherWords(
    'le la les un une des du de au aux et ou mais ne pas est sont était sera être avoir ai as avons avez ont fait faire ' +
      'pour par avec sans dans sur sous chez vers entre comme comment quand où pourquoi quel quelle quels quelles qui que ' +
      'quoi je tu il elle nous vous ils elles mon ton son ma ta sa mes tes ses notre votre leur leurs ce cette ces cet ' +
      "très plus moins aussi encore déjà peut faut y en d' l' qu' n' s' c' j'",
  ),
  es: otherWords(
    'el la los las un una unos unas y o pero no es son era fue está están ser estar hay de del al en con sin por para ' +
      'sobre entre como cómo cuando cuándo donde dónde qué quién cuál yo tú él ella nosotros ellos mi tu su nuestro este esta ' +
      'estos estas ese esa muy más menos también ya se lo le les que',
  ),
  it: otherWords(
    'il lo la gli le un uno una e o ma non è sono era essere avere ha hanno di del della dei delle da dal in nel nella con ' +
      'senza per tra fra su sul come quando dove perché che chi quale io tu lui lei noi voi loro mio tuo suo questo questa ' +
      'quello quella molto più meno anche già si ci',
  ),
  pt: otherWords(
    'o a os as um uma e ou mas não é são era ser estar tem têm de do da dos das em no na nos nas com sem por para sobre ' +
      'entre como quando onde porque que quem qual eu tu ele ela nós eles meu seu sua este esta isso muito mais menos também já se',
  ),
  nl: otherWords(
    'de het een en of maar niet is zijn was wordt worden kan kunnen moet van voor met op aan bij naar over onder door ' +
      'zonder hoe wat waar wanneer waarom welke wie ik jij je hij zij wij jullie mijn jouw zijn haar ons deze dit dat die ' +
      'er hier daar ook nog al heel meer geen',
  ),
};

/** Letters of a script other than Latin (CJK, Hangul, Cyrillic, Greek, Arabic, Hebrew, Indic, Thai ...). */
const NON_LATIN = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}\p{Script=Cyrillic}\p{Script=Greek}\p{Script=Arabic}\p{Script=Hebrew}\p{Script=Devanagari}\p{Script=Bengali}\p{Script=Tamil}\p{Script=Thai}\p{Script=Georgian}\p{Script=Armenian}\p{Script=Ethiopic}]/u;
const SCRIPT_LANGS: readonly [RegExp, readonly string[]][] = [
  [/[\p{Script=Hiragana}\p{Script=Katakana}]/u, ['ja']],
  [/\p{Script=Hangul}/u, ['ko']],
  [/\p{Script=Han}/u, ['zh', 'ja']],
  [/\p{Script=Cyrillic}/u, ['ru', 'uk', 'bg', 'sr']],
  [/\p{Script=Greek}/u, ['el']],
  [/\p{Script=Arabic}/u, ['ar', 'fa', 'ur']],
  [/\p{Script=Hebrew}/u, ['he']],
];

/**
 * The languages a query shows (ISO 639-1), or null when it shows none: the script of most of its
 * letters if that is not Latin, else the language whose function words it holds more of than English's.
 */
export function queryLanguages(text: string, minEvidence = 1): readonly string[] | null {
  const letters = [...text.normalize('NFC')].filter((c) => /\p{L}/u.test(c));
  if (!letters.length) return null;
  const nonLatin = letters.filter((c) => NON_LATIN.test(c));
  if (nonLatin.length * 2 > letters.length) {
    const joined = nonLatin.join('');
    for (const [re, langs] of SCRIPT_LANGS) if (re.test(joined)) return langs;
    return ['und'];
  }
  const words = text
    .normalize('NFC')
    .toLowerCase()
    .replace(/[’`]/g, "'")
    .split(/[^\p{L}\p{M}']+/u)
    .flatMap((w) => (/^[a-z]+'./.test(w) ? [w.slice(0, w.indexOf("'") + 1), w.slice(w.indexOf("'") + 1)] : [w]))
    .filter(Boolean);
  let en = 0;
  const other = new Map<string, number>();
  let accented = 0;
  for (const w of words) {
    if (EN.has(w)) en++;
    else if (/[^\x00-\x7f']/.test(w)) accented++;
    for (const [lang, set] of Object.entries(OTHER)) if (set.has(w)) other.set(lang, (other.get(lang) ?? 0) + 1);
  }
  const best = Math.max(0, ...other.values());
  if (best + accented === 0 || best + accented < minEvidence || en >= best + accented) return null;
  const langs = [...other].filter(([, n]) => n === best && best > 0).map(([l]) => l);
  return langs.length ? langs : ['und'];
}

/**
 * Function words these lists leave out that a question is written with (a possessive's forms, the
 * modals, `mir`, `ihn`): with the lists, what `functionWordOf` knows.
 */
const MORE_FUNCTION_WORDS: Readonly<Record<string, ReadonlySet<string>>> = {
  de: otherWords(
    'meine meinen meinem meiner meines deine deinen deinem deiner ihren ihrem ihrer seine seinen seinem seiner unsere unseren ' +
      'welchen welchem mir dir ihm ihn ihnen habe haben hat hatte hätte bin bist sein seid sollen sollten darf dürfen durfte ' +
      'will wollen möchte könnte kann muss muß müsste wurden worden man etwas alle alles jede jedes jeden jemand nichts ' +
      'jetzt immer bereits dazu davon dafür dabei darauf darin dessen deren denn sondern zwischen während bevor nachdem ' +
      'ab bis seit statt trotz wegen außer innerhalb außerhalb einmal gerne lieber eigentlich überhaupt',
  ),
  fr: otherWords(
    'mon ma mes ton ta tes son sa ses notre nos votre vos leur leurs quoi dont lequel laquelle lesquels duquel auquel ' +
      'puis peux peut pouvons pouvez peuvent dois doit devons devez doivent veux veut voulez faut fallait ai as a avons avez ont ' +
      'suis es est sommes êtes sont été y en on se lui leur eux celle celui ceux celles tout tous toute toutes rien quelque ' +
      'quelques chaque aucun aucune ici là alors donc ainsi car si sinon déjà toujours jamais',
  ),
};

/**
 * Whether `word` is a function word of one of `languages` (as `queryLanguages` tells them) that is no
 * English word: a German question's `beim`, `soll`, `meine`. (Lower case compared; a word of no listed
 * language is none.)
 */
export function functionWordOf(word: string, languages: readonly string[]): boolean {
  const w = word.normalize('NFC').toLowerCase();
  return languages.some((l) => OTHER[l]?.has(w) || MORE_FUNCTION_WORDS[l]?.has(w));
}

/** Whether a query may be in one of these languages (null: a model of every language). */
export function queryMayBeIn(text: string, languages: LanguageSet): boolean {
  if (!languages) return true;
  const shown = queryLanguages(text);
  return shown === null || shown.some((l) => languages.includes(l));
}
