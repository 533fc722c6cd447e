/**
 * Stands in for @xenova/transformers when the benchmark builds a worker bundle without the embedding
 * runtime (to measure what that runtime costs the worker's start-up). Loading a model fails.
 */
const unavailable = async (): Promise<never> => {
  throw new Error('embedding runtime not in this bundle (benchmark variant)');
};

export const env = { backends: { onnx: { wasm: {} as Record<string, unknown> } } } as Record<string, unknown> & { backends: { onnx: { wasm: Record<string, unknown> } } };
export const AutoModel = { from_pretrained: unavailable };
export const AutoTokenizer = { from_pretrained: unavailable };
