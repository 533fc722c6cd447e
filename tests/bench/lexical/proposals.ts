/**
 * The TopK reject-before-alloc fix prototyped here is now src/bm25.ts TopK. Re-exported under its
 * prototype name for tests/bench/dense/denseIndexPatched.ts, whose "TopK fix only" variant therefore
 * runs the same heap as src/vectors.ts DenseIndex.
 */
export { TopK as TopKPatched } from '../../../src/bm25.js';
