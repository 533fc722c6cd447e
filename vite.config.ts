import { defineConfig } from 'vite';
import { vendorPatches } from './scripts/vendorPatches.mjs';

// Shared settings for the three builds driven by scripts/build.mjs.
export default defineConfig({
  resolve: { alias: {} },
  // No eval / Function constructor from the ONNX runtime's dead code paths (see the file).
  plugins: [vendorPatches()],
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  build: {
    target: 'chrome120',
    sourcemap: false,
    minify: true,
    reportCompressedSize: false,
    chunkSizeWarningLimit: 4096,
  },
  define: { 'process.env.NODE_ENV': JSON.stringify('production') },
});
