/**
 * The bundled model's word vectors (models/reread/glove-100d) as a table, for the lexical lane's query
 * expansion: a word's nearest words by cosine. The table is read straight from the model's ONNX file
 * (its two initializers: the int8 rows and one float32 scale per row) and its tokenizer.json (word ->
 * row), so no ONNX runtime is needed. The scale does not change a cosine: the int8 rows are compared
 * directly, with their norms computed once.
 */

export interface Neighbour {
  word: string;
  cosine: number;
}

/** Reads a protobuf varint at `at`; returns [value, next offset]. Values past 2^53 are not expected here. */
function varint(buf: Uint8Array, at: number): [number, number] {
  let value = 0;
  let mul = 1;
  for (;;) {
    const b = buf[at++];
    if (b === undefined) throw new Error('truncated varint');
    value += (b & 0x7f) * mul;
    if (!(b & 0x80)) return [value, at];
    mul *= 128;
  }
}

interface Field {
  no: number;
  /** Length-delimited payload (wire type 2), else undefined. */
  bytes?: Uint8Array;
  value?: number;
}

/** The top-level fields of one protobuf message. */
function* fields(buf: Uint8Array): Generator<Field> {
  let at = 0;
  while (at < buf.length) {
    const [key, next] = varint(buf, at);
    at = next;
    const no = Math.floor(key / 8);
    const wire = key & 7;
    if (wire === 0) {
      const [value, n] = varint(buf, at);
      at = n;
      yield { no, value };
    } else if (wire === 2) {
      const [len, n] = varint(buf, at);
      yield { no, bytes: buf.subarray(n, n + len) };
      at = n + len;
    } else if (wire === 1) at += 8;
    else if (wire === 5) at += 4;
    else throw new Error(`unsupported protobuf wire type ${wire}`);
  }
}

/** The named initializers of an ONNX model (ModelProto.graph = 7, GraphProto.initializer = 5; TensorProto dims 1, name 8, raw_data 9). */
function initializers(model: Uint8Array): Map<string, { dims: number[]; raw: Uint8Array }> {
  const out = new Map<string, { dims: number[]; raw: Uint8Array }>();
  for (const m of fields(model)) {
    if (m.no !== 7 || !m.bytes) continue;
    for (const g of fields(m.bytes)) {
      if (g.no !== 5 || !g.bytes) continue;
      let name = '';
      const dims: number[] = [];
      let raw: Uint8Array | undefined;
      for (const t of fields(g.bytes)) {
        if (t.no === 1 && t.value !== undefined) dims.push(t.value);
        else if (t.no === 1 && t.bytes) for (let at = 0; at < t.bytes.length; ) [dims[dims.length], at] = varint(t.bytes, at);
        else if (t.no === 8 && t.bytes) name = new TextDecoder().decode(t.bytes);
        else if (t.no === 9 && t.bytes) raw = t.bytes;
      }
      if (name && raw) out.set(name, { dims, raw });
    }
  }
  return out;
}

export class WordVectors {
  readonly dim: number;
  private readonly rows: Int8Array;
  private readonly norms: Float32Array;
  private readonly words: string[];
  private readonly ids: Map<string, number>;

  /** `table`: int8 rows × dim; `vocab`: word -> row (rows without a word are never returned). */
  constructor(table: Int8Array, dim: number, vocab: ReadonlyMap<string, number>) {
    this.dim = dim;
    this.rows = table;
    const n = Math.floor(table.length / dim);
    this.norms = new Float32Array(n);
    for (let r = 0; r < n; r++) {
      let s = 0;
      for (let j = r * dim; j < (r + 1) * dim; j++) s += table[j]! * table[j]!;
      this.norms[r] = Math.sqrt(s);
    }
    this.words = new Array<string>(n).fill('');
    this.ids = new Map();
    for (const [w, id] of vocab) {
      if (id < 0 || id >= n) continue;
      this.words[id] = w;
      this.ids.set(w, id);
    }
  }

  /** From the model's ONNX bytes and its tokenizer.json (parsed). */
  static fromModel(onnx: Uint8Array, tokenizerJson: unknown): WordVectors {
    const init = initializers(onnx).get('embeddings_int8');
    if (!init || init.dims.length !== 2) throw new Error('no embeddings_int8 table in the model');
    const [rows, dim] = init.dims as [number, number];
    const table = new Int8Array(init.raw.buffer, init.raw.byteOffset, rows * dim);
    const vocab = (tokenizerJson as { model?: { vocab?: Record<string, number> } } | null)?.model?.vocab ?? {};
    return new WordVectors(table, dim, new Map(Object.entries(vocab).filter(([w]) => /^[a-z][a-z0-9]*$/.test(w))));
  }

  has(word: string): boolean {
    return this.ids.has(word);
  }

  /** The `n` words nearest `word` by cosine (not the word itself), nearest first; [] for a word not in the table. */
  nearest(word: string, n: number): Neighbour[] {
    const id = this.ids.get(word);
    if (id === undefined || n <= 0) return [];
    const d = this.dim;
    const rows = this.rows;
    const qn = this.norms[id]!;
    if (!qn) return [];
    const q = rows.subarray(id * d, (id + 1) * d);
    // The best n so far, unsorted, with the weakest's index.
    const best: { row: number; cos: number }[] = [];
    let weakest = 0;
    for (let r = 0; r < this.norms.length; r++) {
      const norm = this.norms[r]!;
      if (r === id || !norm || !this.words[r]) continue;
      let s = 0;
      const at = r * d;
      for (let j = 0; j < d; j++) s += q[j]! * rows[at + j]!;
      const cos = s / (qn * norm);
      if (best.length < n) {
        best.push({ row: r, cos });
        if (best.length === n) weakest = best.reduce((m, b, i) => (b.cos < best[m]!.cos ? i : m), 0);
      } else if (cos > best[weakest]!.cos) {
        best[weakest] = { row: r, cos };
        weakest = best.reduce((m, b, i) => (b.cos < best[m]!.cos ? i : m), 0);
      }
    }
    return best.sort((a, b) => b.cos - a.cos || a.row - b.row).map((b) => ({ word: this.words[b.row]!, cosine: b.cos }));
  }
}
