// An HTTP API handler (payload format 2.0), deployed with
// `event_format: aws-v2`: one function behind two routes, told apart by
// `event.routeKey` as HTTP API handlers do. A result without `statusCode`
// is a 200 JSON answer (the 2.0 rule). Notes live in module scope, so they
// last as long as the function's isolate: an example, not storage.
const notes = new Map();
let nextId = 1;

export const handler = async (event) => {
  if (event.routeKey === 'POST /lambda/notes') {
    let note;
    try {
      note = JSON.parse(event.body ?? '');
    } catch {
      return { statusCode: 400, body: JSON.stringify({ message: 'body must be JSON' }) };
    }
    if (typeof note?.text !== 'string' || note.text === '') {
      return { statusCode: 400, body: JSON.stringify({ message: 'text is required' }) };
    }
    const saved = { id: String(nextId++), text: note.text };
    notes.set(saved.id, saved);
    return { statusCode: 201, headers: { location: `${event.rawPath}/${saved.id}` }, body: JSON.stringify(saved) };
  }
  const note = notes.get(event.pathParameters?.id);
  if (!note) return { statusCode: 404, body: JSON.stringify({ message: 'no such note' }) };
  return note;
};
