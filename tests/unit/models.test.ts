/** The pure parts of the model download path: mirror validation, progress sums, error words, the host protocol's checks. */
import { describe, expect, it } from 'vitest';
import { cachedModelIds, describeModelError, DownloadTracker, isModelFile, modelInfo, MODELS } from '../../src/models.js';
import { normalizeModelMirror } from '../../src/settings.js';
import { parseHostMessage, parseHostRequest } from '../../background/embedding/hostProtocol.js';

const MINILM = modelInfo('Xenova/all-MiniLM-L6-v2');

describe('calibrations (issue #13)', () => {
  it('a model not measured here ships equal-weight fusion, a floor, the "not calibrated" mark, and is recommended nowhere', () => {
    for (const m of MODELS) {
      expect(m.label).not.toMatch(/recommended/i);
      if (m.calibrated) continue;
      for (const w of Object.values(m.calibration.weights)) expect(w).toEqual({ lexical: 1, dense: 1 });
      expect(m.calibration.floor).toBeGreaterThan(0);
    }
    expect(MODELS.filter((m) => !m.calibrated).map((m) => m.id)).toEqual(['Xenova/all-MiniLM-L6-v2', 'Xenova/multilingual-e5-small']);
    expect(modelInfo('reread/glove-100d')!.calibrated).toBe(true);
  });
});

describe('normalizeModelMirror', () => {
  it('accepts https anywhere and http only on this computer, with a trailing slash', () => {
    expect(normalizeModelMirror('https://huggingface.co')).toBe('https://huggingface.co/');
    expect(normalizeModelMirror(' https://mirror.example/hf ')).toBe('https://mirror.example/hf/');
    expect(normalizeModelMirror('http://127.0.0.1:8080/')).toBe('http://127.0.0.1:8080/');
    expect(normalizeModelMirror('http://localhost:3000/models')).toBe('http://localhost:3000/models/');
    for (const bad of ['http://models.example.com/', 'ftp://x/', 'javascript:alert(1)', 'https://u:p@x.example/', 'https://x.example/?a=1', 'not a url', 'http://127.0.0.1.evil.example/']) expect(normalizeModelMirror(bad), bad).toBeNull();
  });
});

describe('DownloadTracker', () => {
  it('sums files, never claims 100% before every file is done', () => {
    const t = new DownloadTracker('a/b');
    t.add({ status: 'initiate', file: 'config.json' });
    t.add({ status: 'progress', file: 'config.json', loaded: 100, total: 100 });
    t.add({ status: 'progress', file: 'onnx/model.onnx', loaded: 100, total: 900 });
    expect(t.snapshot()).toEqual({ model: 'a/b', loaded: 200, total: 1000, percent: 20 });
    t.add({ status: 'progress', file: 'onnx/model.onnx', loaded: 900, total: 900 });
    expect(t.snapshot().percent).toBe(99);
    expect(t.complete).toBe(false);
    t.add({ status: 'done', file: 'config.json' });
    t.add({ status: 'done', file: 'onnx/model.onnx' });
    expect(t.complete).toBe(true);
    expect(t.snapshot().percent).toBe(100);
  });
});

describe('cached model files', () => {
  it('names the models behind cache URLs, whatever the mirror', () => {
    const urls = ['https://huggingface.co/Xenova/all-MiniLM-L6-v2/resolve/main/config.json', 'http://127.0.0.1:9/Xenova/all-MiniLM-L6-v2/resolve/main/onnx/model_quantized.onnx', 'https://m.example/hf/Xenova/multilingual-e5-small/resolve/main/tokenizer.json', 'https://other.example/x'];
    expect(cachedModelIds(urls)).toEqual(['Xenova/all-MiniLM-L6-v2', 'Xenova/multilingual-e5-small']);
    expect(urls.filter((u) => isModelFile(u, 'Xenova/all-MiniLM-L6-v2'))).toHaveLength(2);
  });
});

describe('describeModelError', () => {
  const host = 'http://127.0.0.1:4000/';
  it('puts what transformers.js and fetch say into words', () => {
    expect(describeModelError('Could not locate file: "http://127.0.0.1:4000/Xenova/all-MiniLM-L6-v2/resolve/main/config.json".', MINILM, host)).toBe('127.0.0.1:4000 said it has no file config.json for MiniLM L6 (404 not found). Check the model mirror in Options.');
    expect(describeModelError('Failed to fetch', MINILM, host)).toMatch(/^Could not reach 127\.0\.0\.1:4000 to download MiniLM L6: you may be offline/);
    expect(describeModelError('`env.allowRemoteModels=false`, but attempted to load a remote file from: x', MINILM, host)).toMatch(/needs a one-time download, which is not allowed yet/);
    expect(describeModelError('Error (418) occurred while trying to load file: "x".', MINILM, host)).toMatch(/answered 418/);
  });
});

describe('host protocol checks', () => {
  it('accepts well-formed requests and ignores anything else', () => {
    expect(parseHostRequest({ id: 1, op: 'hello' })).toEqual({ id: 1, op: 'hello' });
    expect(parseHostRequest({ id: 2, op: 'embed', model: 'a/b', texts: ['x'], kind: 'query' })).toEqual({ id: 2, op: 'embed', model: 'a/b', texts: ['x'], kind: 'query' });
    expect(parseHostRequest({ id: 3, op: 'load', model: 'a/b', config: { allowRemote: true, remoteHost: 'https://h/' } })).not.toBeNull();
    for (const bad of [null, 'x', { op: 'hello' }, { id: 1, op: 'eval' }, { id: 1, op: 'embed', model: '../x', texts: [], kind: 'query' }, { id: 1, op: 'embed', model: 'a/b', texts: [1], kind: 'query' }, { id: 1, op: 'embed', model: 'a/b', texts: Array(65).fill('x'), kind: 'query' }, { id: 1, op: 'load', model: 'a/b', config: { allowRemote: true, remoteHost: 'javascript:x' } }]) {
      expect(parseHostRequest(bad), JSON.stringify(bad)?.slice(0, 80)).toBeNull();
    }
    expect(parseHostMessage({ id: 1, ok: true, data: [[0.5, 1], null] })).toEqual({ id: 1, ok: true, data: [[0.5, 1], null] });
    expect(parseHostMessage({ id: 1, ok: true, data: [['x']] })).toBeNull();
    expect(parseHostMessage({ op: 'progress', model: 'a/b', progress: { status: 'progress', file: 'f', loaded: 1, total: 2, extra: 'dropped' } })).toEqual({ op: 'progress', model: 'a/b', progress: { status: 'progress', file: 'f', loaded: 1, total: 2 } });
  });
});
