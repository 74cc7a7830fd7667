// Vite builds the web UI (ui/) into dist/ui, which `dotplan serve` serves (src/http/ui.ts).
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: '/',
  // Preact's automatic JSX runtime, without a plugin.
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  logLevel: 'warn',
  // `npm run dev:ui`: the UI with hot reload, the API of a `dotplan serve` on its default port behind it.
  server: { proxy: { '/v1': 'http://127.0.0.1:8370' } },
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    target: 'es2022',
    // Only modern browsers run the UI: no polyfill script (it would be one more module to load).
    modulePreload: { polyfill: false },
    reportCompressedSize: false,
    chunkSizeWarningLimit: 800,
  },
});
