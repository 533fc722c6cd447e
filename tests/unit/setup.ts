/**
 * Property tests run from a fixed seed so CI is repeatable; set FC_SEED to explore other seeds
 * (fast-check prints the seed and the shrunk counterexample of any failure).
 */
import fc from 'fast-check';

fc.configureGlobal({ seed: Number(process.env.FC_SEED ?? 20261129) });
