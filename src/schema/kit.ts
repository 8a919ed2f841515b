/**
 * Small TypeBox builders for the JSON Schema forms the API document has always
 * used (`type: ['string', 'null']`, `type: 'string'` beside `enum`, a `$ref`
 * by `$id`). TypeBox's own forms for these (`anyOf` with `null`, a bare
 * `enum`) would change the published document and every generated client, so
 * these keep the document as it was while the TypeScript type still comes
 * from the schema (`Static<typeof X>`).
 */
import Type, { type Static, type TSchema, type TSchemaOptions } from 'typebox';

export { Type, type Static, type TSchema };

/** `{ type: 'string', enum: [...] }`: typed as the union of the values. */
export const stringEnum = <const T extends readonly string[]>(values: T, options: TSchemaOptions = {}) =>
  Type.Unsafe<T[number]>({ type: 'string', enum: [...values], ...options });

/** `{ type: ['string', 'null'] }` (and the same for integer, number). */
export const nullableString = (options: TSchemaOptions = {}) => Type.Unsafe<string | null>({ type: ['string', 'null'], ...options });
export const nullableInteger = (options: TSchemaOptions = {}) => Type.Unsafe<number | null>({ type: ['integer', 'null'], ...options });

/** ISO 8601 instants, as every `*_at` field answers them. */
export const instant = (options: TSchemaOptions = {}) => Type.String({ format: 'date-time', ...options });
export const nullableInstant = (options: TSchemaOptions = {}) => nullableString({ format: 'date-time', ...options });

/** A header map: `{ type: 'object', additionalProperties: { type: 'string' } }` (TypeBox's Record would say `patternProperties`). */
export const headerMap = (options: TSchemaOptions = {}, value: TSchemaOptions = {}) =>
  Type.Unsafe<Record<string, string>>({ type: 'object', additionalProperties: { type: 'string', ...value }, ...options });

/** Any JSON object: `{ type: 'object', additionalProperties: true }`. */
export const anyObject = (options: TSchemaOptions = {}) =>
  Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true, ...options });

/** A component: the schema with its `$id` (the name generated clients and `components.schemas` use) in its type. */
export const named = <const Id extends string, S extends TSchema>(id: Id, schema: S): S & { readonly $id: Id } =>
  Object.assign(schema, { $id: id });

/** Any JSON object or null: `{ type: ['object', 'null'], additionalProperties: true }`. */
export const nullableObject = (options: TSchemaOptions = {}) =>
  Type.Unsafe<Record<string, unknown> | null>({ type: ['object', 'null'], additionalProperties: true, ...options });

/**
 * `{ $ref: 'Name#' }` to a component registered with `addSchema`, typed as
 * that component: Fastify resolves the reference, @fastify/swagger turns it into
 * `#/components/schemas/Name`, and TypeScript sees the component's own type.
 */
export const refTo = <S extends TSchema & { $id: string }>(schema: S) => Type.Unsafe<Static<S>>({ $ref: `${schema.$id}#` });

/**
 * A body's optional fields, each with what it means when left out (null: none).
 * A table of this type names every optional field, so a field added to the
 * body as optional does not compile until its default is stated.
 */
export type InputDefaults<T> = { [K in keyof T as undefined extends T[K] ? K : never]-?: Exclude<T[K], undefined> | null };
