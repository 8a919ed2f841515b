// Builds the dashboard (dashboard/index.html and src/) into dist/dashboard/, served by
// src/http/dashboard.ts: hashed files in assets/ (cached for a year), no inline script or style.
import preact from '@preact/preset-vite';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/',
  plugins: [preact({ devtoolsInProd: false, prefreshEnabled: false })],
  build: {
    outDir: fileURLToPath(new URL('../dist/dashboard/', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    // Inlined assets would become data: URLs in CSS (allowed) but never scripts; keep files.
    assetsInlineLimit: 0,
    target: 'es2022',
    // Vite's modulepreload polyfill only fetches early: a browser without <link rel=modulepreload> still loads
    // every module on import, so it is left out of the size budget.
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
