/**
 * Reading YAML files that may be large (a serverless.yml or a project file
 * with tens of thousands of functions): the `yaml` library's parser with its
 * duplicate-key check turned off, and the same check done here with one Set
 * per mapping. The library compares each new key with every earlier key of
 * its mapping, which is quadratic in the size of the `functions` mapping
 * (bench/import-large.mjs measures it). Duplicate keys are still an error,
 * at the same position and with the library's own error class and code.
 */
import {
  isMap,
  isPair,
  isScalar,
  isSeq,
  parseDocument,
  YAMLParseError,
  type Document,
  type DocumentOptions,
  type ParseOptions,
  type SchemaOptions,
} from 'yaml';

export type ReadOptions = ParseOptions & DocumentOptions & SchemaOptions;

/** `parseDocument`, with duplicate keys found in linear time and added to `errors`. */
export function readYamlDocument(text: string, options: ReadOptions = {}): Document.Parsed {
  const doc = parseDocument(text, { ...options, uniqueKeys: false });
  if (doc.errors.length > 0) return doc;
  checkKeys(doc.contents, doc.errors);
  return doc;
}

/**
 * Each mapping's scalar keys, once (a mapping or sequence as a key is rare
 * and left alone). A walk of collections only: the library's `visit` calls
 * back for every scalar and pair too, which cost more than the check itself.
 */
function checkKeys(node: unknown, errors: YAMLParseError[]): void {
  if (isMap(node)) {
    const seen = new Set<unknown>();
    for (const pair of node.items) {
      if (isScalar(pair.key)) {
        const key = pair.key.value;
        if (seen.has(key)) {
          const range = pair.key.range ?? [0, 0];
          errors.push(new YAMLParseError([range[0], range[1]], 'DUPLICATE_KEY', 'Map keys must be unique'));
        } else seen.add(key);
      } else checkKeys(pair.key, errors);
      checkKeys(pair.value, errors);
    }
  } else if (isSeq(node)) {
    for (const item of node.items) checkKeys(isPair(item) ? item.value : item, errors);
  }
}

/** `parse`: the value of a YAML text, or the first error thrown. */
export function readYaml(text: string, options: ReadOptions = {}): unknown {
  const doc = readYamlDocument(text, options);
  if (doc.errors.length > 0) throw doc.errors[0];
  return doc.toJS();
}
