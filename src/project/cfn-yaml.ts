/**
 * CloudFormation's short-form intrinsic tags (`!Ref`, `!Sub`, `!GetAtt`, ...)
 * for the `yaml` parser: each becomes the long form (`{ Ref: x }`,
 * `{ 'Fn::Sub': x }`, `{ 'Fn::GetAtt': [a, b] }`), on a scalar, a sequence or
 * a mapping, as CloudFormation itself reads them.
 */
import type { CollectionTag, ScalarTag } from 'yaml';
import { readYaml } from './yaml-read.js';

const FUNCTIONS = [
  'Base64', 'Cidr', 'FindInMap', 'GetAtt', 'GetAZs', 'ImportValue', 'Join', 'Select', 'Split', 'Sub', 'Transform',
  'And', 'Equals', 'If', 'Not', 'Or', 'Length', 'ToJsonString',
];

function longForm(tag: string, value: unknown): Record<string, unknown> {
  if (tag === 'Ref') return { Ref: value };
  if (tag === 'Condition') return { Condition: value };
  // `!GetAtt Resource.Attribute` is the scalar form of `[Resource, Attribute]`.
  if (tag === 'GetAtt' && typeof value === 'string') {
    const dot = value.indexOf('.');
    return { 'Fn::GetAtt': dot > 0 ? [value.slice(0, dot), value.slice(dot + 1)] : [value] };
  }
  return { [`Fn::${tag}`]: value };
}

function tagsFor(name: string): Array<ScalarTag | CollectionTag> {
  const tag = `!${name}`;
  return [
    { tag, resolve: (str: string) => longForm(name, str) } as ScalarTag,
    { tag, collection: 'seq', resolve: (seq) => longForm(name, seq.toJSON()) } as CollectionTag,
    { tag, collection: 'map', resolve: (map) => longForm(name, map.toJSON()) } as CollectionTag,
  ];
}

export const CFN_TAGS = ['Ref', 'Condition', ...FUNCTIONS].flatMap(tagsFor);

/** Parses a CloudFormation or SAM template written in YAML. */
export function parseCfnYaml(text: string): unknown {
  return readYaml(text, { customTags: CFN_TAGS, prettyErrors: false });
}
