/**
 * The event-type catalogue on SQLite. A type's versions are rows keyed by
 * (name, version); a new one is numbered inside the write transaction, so
 * two writers never share a number. Violations are pruned per type by the
 * write that records one.
 */
import { eventTypeExists } from '../../errors.js';
import type { Page } from '../../types.js';
import { toEventType, toEventViolation, versionsByName, type EventTypeRow, type EventTypeVersionRow, type EventViolationRow } from '../shared/event-type-rows.js';
import type { EventTypesPart } from '../store.js';
import { driverCode } from '../shared/errors.js';
import type { SqliteDb } from './db.js';

function prepare({ db }: SqliteDb) {
  const p = (sql: string) => db.prepare(sql);
  return {
    insert: p(`INSERT INTO event_types (name, description, mode, deprecated, project, created_at, updated_at)
      VALUES (@name, @description, @mode, @deprecated, @project, @now, @now)`),
    get: p('SELECT * FROM event_types WHERE name = ?'),
    versions: p('SELECT * FROM event_type_versions WHERE name = ? ORDER BY version'),
    list: p('SELECT * FROM event_types WHERE name > ? ORDER BY name LIMIT ?'),
    versionsIn: p(`SELECT v.* FROM event_type_versions v JOIN
      (SELECT name FROM event_types WHERE name > ? ORDER BY name LIMIT ?) t ON t.name = v.name ORDER BY v.name, v.version`),
    update: p(`UPDATE event_types SET description = @description, mode = @mode, deprecated = @deprecated, project = @project,
      updated_at = @now WHERE name = @name`),
    addVersion: p(`INSERT INTO event_type_versions (name, version, schema_json, examples_json, created_at)
      SELECT @name, COALESCE(MAX(version), 0) + 1, @schema_json, @examples_json, @now FROM event_type_versions WHERE name = @name`),
    setExamples: p(`UPDATE event_type_versions SET examples_json = @examples_json
      WHERE name = @name AND version = (SELECT MAX(version) FROM event_type_versions WHERE name = @name)`),
    delete: p('DELETE FROM event_types WHERE name = ?'),
    violate: p(`INSERT INTO event_type_violations (name, version, path, message, source, at)
      VALUES (@name, @version, @path, @message, @source, @now)`),
    prune: p(`DELETE FROM event_type_violations WHERE name = ? AND id <=
      (SELECT id FROM event_type_violations WHERE name = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`),
    violations: p('SELECT * FROM event_type_violations WHERE name = ? ORDER BY id DESC LIMIT ?'),
  };
}

export function sqliteEventTypes({ db }: { db: SqliteDb }): EventTypesPart {
  const s = prepare(db);
  const read = (name: string) =>
    db.read(() => {
      const row = s.get.get(name) as EventTypeRow | undefined;
      return row ? toEventType(row, s.versions.all(name) as EventTypeVersionRow[]) : null;
    });
  return {
    async createEventType(input) {
      const now = db.stamp();
      try {
        db.write(() => {
          s.insert.run({ ...input, deprecated: input.deprecated ? 1 : 0, now });
          if (input.schema) s.addVersion.run({ name: input.name, schema_json: JSON.stringify(input.schema), examples_json: JSON.stringify(input.examples), now });
        });
      } catch (err) {
        // The name is the primary key: SQLite reports its own code for that, not a UNIQUE one.
        if (driverCode(err) === 'SQLITE_CONSTRAINT_PRIMARYKEY') throw eventTypeExists(input.name);
        throw err;
      }
      return read(input.name)!;
    },
    async getEventType(name) {
      return read(name);
    },
    async listEventTypes(page: Page) {
      return db.read(() => {
        const rows = s.list.all(page.after ?? '', page.limit) as EventTypeRow[];
        const versions = versionsByName(s.versionsIn.all(page.after ?? '', page.limit) as EventTypeVersionRow[]);
        return rows.map((r) => toEventType(r, versions.get(r.name) ?? []));
      });
    },
    async updateEventType(name, patch) {
      const done = db.write(() => {
        const cur = s.get.get(name) as EventTypeRow | undefined;
        if (!cur) return false;
        const now = db.stamp();
        s.update.run({
          name,
          description: patch.description ?? cur.description,
          mode: patch.mode ?? cur.mode,
          deprecated: (patch.deprecated ?? (cur.deprecated === 1)) ? 1 : 0,
          project: patch.project === undefined ? cur.project : patch.project,
          now,
        });
        if (patch.schema) {
          s.addVersion.run({ name, schema_json: JSON.stringify(patch.schema), examples_json: JSON.stringify(patch.examples ?? []), now });
        } else if (patch.examples) {
          s.setExamples.run({ name, examples_json: JSON.stringify(patch.examples) });
        }
        return true;
      });
      return done ? read(name) : null;
    },
    async deleteEventType(name) {
      return db.write(() => s.delete.run(name).changes === 1);
    },
    async recordEventViolation(v, keep) {
      db.write(() => {
        if (!s.get.get(v.name)) return;
        s.violate.run({ ...v, now: db.stamp() });
        s.prune.run(v.name, v.name, keep);
      });
    },
    async listEventViolations(name, limit) {
      return (s.violations.all(name, limit) as EventViolationRow[]).map(toEventViolation);
    },
  };
}
