// POST <basePath>/ — validates a new user and echoes it back with an id.
// Nothing is stored: ids come from a counter in module scope, which lives as
// long as the warm isolate of this function version and is shared by the
// requests it serves concurrently. A redeploy starts it again.

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;
let nextId = 26; // after the 25 sample users of users-list

exports.handler = async (event) => {
  let body = event.body;
  if (typeof body === 'string') {
    try {
      body = body === '' ? null : JSON.parse(body);
    } catch {
      return { statusCode: 400, body: { error: 'body must be a JSON object' } };
    }
  }
  if (body === null || body === undefined) body = {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    return { statusCode: 400, body: { error: 'body must be a JSON object' } };
  }

  const { name, email, role } = body;
  if (typeof name !== 'string' || name.trim() === '' || typeof email !== 'string' || email === '') {
    return { statusCode: 400, body: { error: 'name and email are required' } };
  }
  if (!EMAIL.test(email)) {
    return { statusCode: 400, body: { error: 'invalid email' } };
  }
  if (role !== undefined && role !== null && (typeof role !== 'string' || role === '')) {
    return { statusCode: 400, body: { error: 'role must be a non-empty string' } };
  }

  return {
    statusCode: 201,
    body: { id: nextId++, name, email, role: role || 'viewer', created_at: new Date().toISOString() },
  };
};
