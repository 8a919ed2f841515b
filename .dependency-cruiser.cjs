/**
 * `npm run check:cycles`: fails on any import cycle in src/. A cycle makes the
 * order modules load in matter (a class can be undefined when its importer
 * runs) and ties two parts so neither can change alone. Type-only imports
 * count too: they are the same tie, erased at run time.
 */
module.exports = {
  forbidden: [
    {
      name: 'no-cycles',
      severity: 'error',
      comment: 'Break the cycle: move what both sides need into a module both import, or pass it in.',
      from: {},
      to: { circular: true },
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
