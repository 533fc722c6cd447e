import { defineConfig } from 'vite';

// Shared settings for the three builds driven by scripts/build.mjs.
export default defineConfig({
  resolve: { alias: {} },
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
