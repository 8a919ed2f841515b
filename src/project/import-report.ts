/**
 * The import's one-line summary of what it left behind: every property and
 * resource not carried, by name (`Resources.MyTable (AWS::DynamoDB::Table),
 * functions.hello.vpc, provider.iam`), read from the notes the importers
 * write, so a new note is in the summary without an edit here.
 */

/** `place, place: what` (groupNotes' form): the places, then what. */
const PLACED = /^([A-Za-z0-9_$.[\]{}/-]+(?:, [A-Za-z0-9_$.[\]{}/-]+)*): (.+)$/s;
/** `Role, Policies not carried (...)`: keys of the place. */
const KEYS = /^([A-Za-z][A-Za-z0-9_]*(?:, [A-Za-z][A-Za-z0-9_]*)*) not carried\b/;
/** `AWS::DynamoDB::Table is not carried` or `sqs events are not carried`: what the place is. */
const KIND = /^(\S+)(?: events)? (?:is|are) not carried\b/;

export function notCarriedNames(notes: readonly string[]): string[] {
  const names: string[] = [];
  for (const note of notes) {
    const m = PLACED.exec(note);
    if (!m || !/\bnot carried\b/.test(m[2])) continue;
    const places = m[1].split(', ');
    const what = m[2];
    const keys = KEYS.exec(what);
    const kind = keys ? null : KIND.exec(what);
    for (const place of places) {
      if (keys) names.push(...keys[1].split(', ').map((k) => `${place}.${k}`));
      else if (kind) names.push(`${place} (${kind[1]}${/^\S+ events /.test(what) ? ' events' : ''})`);
      else names.push(place);
    }
  }
  return [...new Set(names)];
}
