/**
 * The bottom layer of src/: domain types, the HTTP schema, error codes and
 * event names. It imports only itself, so any module may import it without
 * tying folders together (.dependency-cruiser.cjs checks the first,
 * scripts/check-cycles.mjs relies on it for the second).
 */
module.exports =
  '^src/(types|errors|json-limits|dry-run|canonical-json)\\.ts$|^src/[^/]+/types\\.ts$|^src/schema/|^src/events/names\\.ts$';
