/**
 * `npm run eval -- --tune-model`: the bundled static model's weighting, compared on TRAINING queries.
 * Each variant is built by scripts/build-model.mjs into .cache/eval/models/<variant>/ (about 15 s each,
 * deterministic), then the dense lane alone is scored on SciFact train and Python-manual odd ids.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { loadPythonManual, loadSciFact } from './lib/datasets.js';
import { buildDenseIndex, embedAll, loadModel, MODEL_ID } from './lib/dense.js';
import { runDense, toUnits } from './lib/evaluate.js';
import { meanMetrics, scoreRanking } from './lib/metrics.js';
import { CACHE_DIR, ROOT } from './lib/paths.js';
import { f3, table } from './lib/table.js';

/** name -> build flags. "as built" is the model first committed. */
const VARIANTS: [string, string[]][] = [
  ['as built: a=1e-3', ['--sif-a', '1e-3', '--components', '0', '--keep-mean']],
  ['a=1e-3, -mean', ['--sif-a', '1e-3', '--components', '0']],
  ['a=1e-3, -mean -3 PCs', ['--sif-a', '1e-3', '--components', '3']],
  ['a=1e-4', ['--sif-a', '1e-4', '--components', '0', '--keep-mean']],
  ['a=1e-4, -mean', ['--sif-a', '1e-4', '--components', '0']],
  ['a=1e-4, -mean -1 PC', ['--sif-a', '1e-4', '--components', '1']],
  ['a=1e-4, -mean -2 PCs', ['--sif-a', '1e-4', '--components', '2']],
  ['a=1e-4, -mean -3 PCs', ['--sif-a', '1e-4', '--components', '3']],
  ['a=1e-4, -mean -5 PCs', ['--sif-a', '1e-4', '--components', '5']],
  ['a=1e-4, -mean -8 PCs', ['--sif-a', '1e-4', '--components', '8']],
  ['a=3e-4, -mean -3 PCs', ['--sif-a', '3e-4', '--components', '3']],
  ['a=3e-5, -mean -3 PCs', ['--sif-a', '3e-5', '--components', '3']],
  ['a=1e-5, -mean -3 PCs', ['--sif-a', '1e-5', '--components', '3']],
];

export async function tuneModel(argv: readonly string[]): Promise<void> {
  const only = argv[argv.indexOf('--tune-model') + 1];
  const sets = [loadSciFact(), await loadPythonManual()];
  const rows: string[][] = [];
  for (const [name, flags] of VARIANTS) {
    if (only && !only.startsWith('--') && !name.includes(only)) continue;
    const dir = path.join(CACHE_DIR, 'models', flags.join('_').replace(/-/g, ''));
    if (!fs.existsSync(path.join(dir, MODEL_ID, 'onnx', 'model_quantized.onnx'))) {
      const res = spawnSync(process.execPath, [path.join(ROOT, 'scripts/build-model.mjs'), '--out', path.join(dir, MODEL_ID), ...flags], { stdio: ['ignore', 'ignore', 'inherit'] });
      if (res.status !== 0) throw new Error(`build of ${name} failed`);
    }
    const model = await loadModel(dir);
    const cells: string[] = [name];
    const means: number[] = [];
    for (const ds of sets) {
      const passages = await embedAll(model, ds.items.map((i) => i.text), 'passage', ds.name);
      const queries = await embedAll(model, ds.queries.map((q) => q.text), 'query', `${ds.name}-queries`);
      const runs = runDense(ds, buildDenseIndex(passages, model.embedder.model.dim), queries);
      const m = meanMetrics(ds.queries.flatMap((q, i) => (q.split === 'train' ? [scoreRanking(toUnits(ds, runs[i]!), q.relevant)] : [])));
      cells.push(f3(m.ndcg10), f3(m.recall100));
      means.push(m.ndcg10);
    }
    cells.push(f3(means.reduce((a, b) => a + b, 0) / means.length));
    rows.push(cells);
    console.log(cells.join('  '));
  }
  console.log('\n=== Static model variants: dense lane alone, training queries ===');
  console.log(table(['variant', 'SciFact train nDCG@10', 'R@100', 'Python odd nDCG@10', 'R@100', 'mean nDCG@10'], rows));
  const best = Math.max(...rows.map((r) => Number(r[r.length - 1])));
  const near = rows.filter((r) => Number(r[r.length - 1]) >= best - 0.005).map((r) => r[0]);
  console.log(`best mean ${f3(best)}; within 0.005 of it (pick the simplest): ${near.join('; ')}`);
}
