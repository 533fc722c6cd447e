/**
 * Build-time removal of two dead code paths in the ONNX runtime bundle (onnxruntime-web's
 * ort-web.min.js), so the extension ships no `eval` and no `Function` constructor (what a store
 * reviewer flags, what `web-ext lint` reports as DANGEROUS_EVAL, and what Firefox logged as a CSP
 * error every time the background page started):
 *
 * - protobufjs's `inquire` probes for Node's `require` with `eval("quire".replace(/^/,"re"))` inside a
 *   try/catch that returns null. Under the extension's CSP the eval throws, so it always returns null;
 *   with `mod = null` in its place it returns null without trying: same result.
 * - webpack's global lookup falls back to `new Function("return this")()` only when `globalThis` is not
 *   an object, which never happens in a browser that runs MV3 extensions (two webpack runtimes, two copies).
 *
 * Each pattern must be found exactly as often as expected: a new runtime version that changes them fails the build
 * here instead of shipping an unpatched (or wrongly patched) bundle.
 */
const PATCHES = [
  { file: /[\\/]onnxruntime-web[\\/]dist[\\/]ort-web\.min\.js$/, find: 'var mod=eval("quire".replace(/^/,"re"))(moduleName);', replace: 'var mod=null;', count: 1 },
  { file: /[\\/]onnxruntime-web[\\/]dist[\\/]ort-web\.min\.js$/, find: 'new Function("return this")()', replace: 'undefined', count: 2 },
];

export function vendorPatches() {
  return {
    name: 'reread-vendor-patches',
    enforce: 'pre',
    transform(code, id) {
      const mine = PATCHES.filter((p) => p.file.test(id));
      if (!mine.length) return null;
      let out = code;
      for (const p of mine) {
        const n = out.split(p.find).length - 1;
        if (n !== p.count) throw new Error(`vendorPatches: expected "${p.find}" ${p.count}x in ${id}, found ${n} (onnxruntime-web changed: review scripts/vendorPatches.mjs)`);
        out = out.split(p.find).join(p.replace);
      }
      return { code: out, map: null };
    },
  };
}
