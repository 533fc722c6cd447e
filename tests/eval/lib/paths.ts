import path from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const CACHE_DIR = path.join(ROOT, '.cache', 'eval');
export const SCIFACT_DIR = process.env.REREAD_SCIFACT ?? path.resolve(ROOT, '../shared/eval/scifact');
export const PYTHON_DOC_DIR = process.env.REREAD_PYTHON_DOC ?? '/usr/share/doc/python3.11/html';
export const RESULTS_FILE = path.join(ROOT, 'bench', 'results', 'eval.json');
