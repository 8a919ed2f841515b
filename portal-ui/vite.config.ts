// Builds the consumer portal (portal-ui/index.html and src/) into dist/portal-ui/, served by
// src/http/portal-page.ts at /portal/<application id> with its files under /portal/assets/.
// Its own build (not a second entry of the dashboard's) so that neither bundle carries the
// other's code, and each has its own size budget (scripts/check-dashboard-size.mjs portal-ui).
import preact from '@preact/preset-vite';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/portal/',
  plugins: [preact({ devtoolsInProd: false, prefreshEnabled: false })],
  build: {
    outDir: fileURLToPath(new URL('../dist/portal-ui/', import.meta.url)),
    emptyOutDir: true,
    assetsDir: 'assets',
    assetsInlineLimit: 0,
    target: 'es2022',
    modulePreload: { polyfill: false },
    sourcemap: false,
  },
});
