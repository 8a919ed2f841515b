/**
 * `npm run check:cycles` (scripts/check-cycles.mjs) runs dependency-cruiser
 * with these rules, then checks the folders' order:
 * - no import cycle between modules of src/: a cycle makes the order modules
 *   load in matter (a class can be undefined when its importer runs) and ties
 *   two parts so neither can change alone. Type-only imports count too: they
 *   are the same tie, erased at run time;
 * - the bottom layer (domain types, the HTTP schema, error codes, event
 *   names) imports only itself, so every other module may import it without
 *   that making the folders depend on each other.
 */
const BOTTOM = require('./scripts/bottom-layer.cjs');

module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Break the cycle: move what both sides need into a module both import, or pass it in.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'bottom-layer-imports-only-itself',
      severity: 'error',
      comment: 'Domain types, schemas, error codes and event names sit below everything: they import nothing else of src/.',
      from: { path: BOTTOM },
      to: { path: '^src/', pathNot: BOTTOM },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Resolve NodeNext's `./x.js` specifiers to the `.ts` files, as tsc does.
    tsConfig: { fileName: 'tsconfig.json' },
    tsPreCompilationDeps: true,
    exclude: { path: '^src/client/schema\\.d\\.ts$' },
  },
};
