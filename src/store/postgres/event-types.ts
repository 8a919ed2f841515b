/**
 * The event-type catalogue on PostgreSQL: as on SQLite (sqlite/event-types.ts).
 * A write locks its type's row first, so versions are numbered one writer at a
 * time; the (name, version) key would refuse a shared number anyway.
 */
import { eventTypeExists } from '../../errors.js';
import type { Page } from '../../types.js';
import { toEventType, toEventViolation, versionsByName, type EventTypeRow, type EventTypeVersionRow, type EventViolationRow } from '../shared/event-type-rows.js';
import type { EventTypesPart } from '../store.js';
import { constraintOf, type PgDb } from './db.js';
import type pg from 'pg';

const ADD_VERSION = `INSERT INTO event_type_versions (name, version, schema_json, examples_json, created_at)
  SELECT $1, COALESCE(MAX(version), 0) + 1, $2, $3, $4 FROM event_type_versions WHERE name = $1`;

export function pgEventTypes({ db }: { db: PgDb }): EventTypesPart {
  const read = async (name: string, on?: pg.PoolClient) => {
    const [row] = await db.rows<EventTypeRow>('SELECT * FROM event_types WHERE name = $1', [name], on);
    if (!row) return null;
    const versions = await db.rows<EventTypeVersionRow>('SELECT * FROM event_type_versions WHERE name = $1 ORDER BY version', [name], on);
    return toEventType(row, versions);
  };
  return {
    async createEventType(input) {
      try {
        return await db.tx(async (c) => {
          const now = db.stamp();
          await db.changes(
            `INSERT INTO event_types (name, description, mode, deprecated, project, created_at, updated_at) VALUES ($1, $2, $3, $4, $5, $6, $6)`,
            [input.name, input.description, input.mode, input.deprecated, input.project, now],
            c,
          );
          if (input.schema) await db.changes(ADD_VERSION, [input.name, JSON.stringify(input.schema), JSON.stringify(input.examples), now], c);
          return (await read(input.name, c))!;
        });
      } catch (err) {
        if (constraintOf(err) === 'unique') throw eventTypeExists(input.name);
        throw err;
      }
    },
    getEventType: (name) => read(name),
    async listEventTypes(page: Page) {
      const rows = await db.rows<EventTypeRow>('SELECT * FROM event_types WHERE name > $1 ORDER BY name LIMIT $2', [page.after ?? '', page.limit]);
      if (rows.length === 0) return [];
      const versions = versionsByName(
        await db.rows<EventTypeVersionRow>('SELECT * FROM event_type_versions WHERE name = ANY($1) ORDER BY name, version', [rows.map((r) => r.name)]),
      );
      return rows.map((r) => toEventType(r, versions.get(r.name) ?? []));
    },
    async updateEventType(name, patch) {
      return db.tx(async (c) => {
        const [cur] = await db.rows<EventTypeRow>('SELECT * FROM event_types WHERE name = $1 FOR UPDATE', [name], c);
        if (!cur) return null;
        const now = db.stamp();
        await db.changes(
          'UPDATE event_types SET description = $2, mode = $3, deprecated = $4, project = $5, updated_at = $6 WHERE name = $1',
          [
            name,
            patch.description ?? cur.description,
            patch.mode ?? cur.mode,
            patch.deprecated ?? cur.deprecated === true,
            patch.project === undefined ? cur.project : patch.project,
            now,
          ],
          c,
        );
        if (patch.schema) {
          await db.changes(ADD_VERSION, [name, JSON.stringify(patch.schema), JSON.stringify(patch.examples ?? []), now], c);
        } else if (patch.examples) {
          await db.changes(
            `UPDATE event_type_versions SET examples_json = $2
             WHERE name = $1 AND version = (SELECT MAX(version) FROM event_type_versions WHERE name = $1)`,
            [name, JSON.stringify(patch.examples)],
            c,
          );
        }
        return read(name, c);
      });
    },
    async deleteEventType(name) {
      return (await db.changes('DELETE FROM event_types WHERE name = $1', [name])) === 1;
    },
    async recordEventViolation(v, keep) {
      try {
        await db.tx(async (c) => {
          await db.changes(
            'INSERT INTO event_type_violations (name, version, path, message, source, at) VALUES ($1, $2, $3, $4, $5, $6)',
            [v.name, v.version, v.path, v.message, v.source, db.stamp()],
            c,
          );
          await db.changes(
            `DELETE FROM event_type_violations WHERE name = $1 AND id <=
              (SELECT id FROM event_type_violations WHERE name = $1 ORDER BY id DESC LIMIT 1 OFFSET $2)`,
            [v.name, keep],
            c,
          );
        });
      } catch (err) {
        // The type was deleted meanwhile: nothing to record it against.
        if (constraintOf(err) === 'foreign_key') return;
        throw err;
      }
    },
    async listEventViolations(name, limit) {
      const rows = await db.rows<EventViolationRow>('SELECT * FROM event_type_violations WHERE name = $1 ORDER BY id DESC LIMIT $2', [name, limit]);
      return rows.map(toEventViolation);
    },
  };
}
