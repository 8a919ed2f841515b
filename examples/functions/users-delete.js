// DELETE <basePath>/:id — acknowledges a deletion. Written as an
// ES module to show that form; the gateway turns it into CommonJS at deploy.

export async function handler(event) {
  const raw = event.pathParameters ? event.pathParameters.id : undefined;
  if (raw === undefined || raw === null || raw === '') {
    return { statusCode: 400, body: { error: 'id is required' } };
  }
  const id = Number(raw);
  if (!/^[0-9]+$/.test(raw) || !Number.isSafeInteger(id) || id < 1) {
    return { statusCode: 400, body: { error: `id must be a positive integer, got "${raw}"` } };
  }
  return { statusCode: 200, body: { deleted: true, id } };
}
