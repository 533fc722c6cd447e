/**
 * Head-to-head at 1M (default) of the storage tier's search (DenseIndex.searchAsync with an in-memory
 * reader) against the bench prototype (BinaryIndex, uncentred bits, same H → R), timed query by query
 * side by side: `node --max-old-space-size=6000 --import tsx tests/bench/dense/headToHead.ts [n]`.
 */
import { Generator, row } from './data.js';
import { BinaryIndex, ResidentCodes, floatScan, quantizeAll, recallAt } from './methods.js';
import { GEN } from '../dense.js';
import { TypedTopK } from '../lexical/plain.js';
import { DenseIndex } from '../../../src/vectors.js';
const n = Number(process.argv[2] ?? 1000000), DIM = 384, NQ = 20;
const gen = new Generator(DIM, 5, GEN);
const set = gen.vectors(n, 6); const qs = gen.vectors(NQ, 99);
const qa = quantizeAll(set);
const res = new ResidentCodes(DIM, n); for (let r = 0; r < n; r++) res.set(r, qa.codes.subarray(r*DIM,(r+1)*DIM), qa.factors[r]!);
const bin = new BinaryIndex(DIM, n, new Float32Array(DIM)); for (let r = 0; r < n; r++) bin.add(r, row(set, r));
const di = new DenseIndex(DIM, n, 'storage'); for (let r = 0; r < n; r++) di.add(r, qa.codes.subarray(r*DIM,(r+1)*DIM), qa.scales[r]!);
di.attachReader({ read: (ids) => Promise.resolve(new Map(ids.map((id) => [id, { codes: qa.codes.subarray(id * DIM, (id + 1) * DIM), scale: qa.scales[id]! }]))) });
const heap = new TypedTopK(10);
const truth = Array.from({length:NQ},(_,q)=>floatScan(set,row(qs,q),heap));
const t = { proto: [] as number[], mine: [] as number[], cand: [] as number[] }; let rp = 0, rm = 0;
for (let q = 0; q < NQ; q++) {
  let s = performance.now(); const a = bin.search(row(qs,q),10,{hamming:10000,rerank:400},res); t.proto.push(performance.now()-s);
  s = performance.now(); const b = await di.searchAsync(row(qs,q),{k:10,hamming:10000,rerank:400}); t.mine.push(performance.now()-s);
  s = performance.now(); di.candidates(row(qs,q),null,10000,400); t.cand.push(performance.now()-s);
  rp += recallAt(a, truth[q]!, 10); rm += recallAt(b, truth[q]!, 10);
}
const med = (x: number[]) => x.sort((a,b)=>a-b)[x.length>>1]!.toFixed(1);
console.log(`proto(uncentred) ${med(t.proto)} ms recall ${(rp/NQ).toFixed(3)} | DenseIndex.searchAsync ${med(t.mine)} ms recall ${(rm/NQ).toFixed(3)} | candidates only ${med(t.cand)} ms | resident ${(di.residentBytes/1048576).toFixed(1)} MiB`);
