// GET <basePath>/ — one page of a fixed in-module user list.
// Query `page` (default 1) and `limit` (default 10) arrive as strings, and
// `queryStringParameters` is null when the request has no query at all.
// A value that is not a whole number >= 1 is answered with 400 {error} rather
// than silently replaced by the default, so a client bug shows up at once.
// An empty value (`?page=`) counts as absent.

const ROLES = ['admin', 'editor', 'viewer', 'viewer', 'viewer'];
const NAMES = [
  'Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'Edsger Dijkstra', 'Barbara Liskov',
  'Donald Knuth', 'Margaret Hamilton', 'Ken Thompson', 'Dennis Ritchie', 'Frances Allen',
  'John McCarthy', 'Radia Perlman', 'Tim Berners-Lee', 'Hedy Lamarr', 'Leslie Lamport',
  'Katherine Johnson', 'Niklaus Wirth', 'Shafi Goldwasser', 'Bjarne Stroustrup', 'Adele Goldberg',
  'Guido van Rossum', 'Sophie Wilson', 'Linus Torvalds', 'Annie Easley', 'Tony Hoare',
];

const USERS = NAMES.map((name, i) => ({
  id: i + 1,
  name,
  email: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '.')}@example.com`,
  role: ROLES[i % ROLES.length],
}));

function positiveInt(raw, field, fallback) {
  if (raw === undefined || raw === null || raw === '') return fallback;
  if (!/^[0-9]+$/.test(raw) || Number(raw) < 1 || !Number.isSafeInteger(Number(raw))) {
    throw new Error(`${field} must be a whole number of at least 1, got "${raw}"`);
  }
  return Number(raw);
}

exports.handler = async (event) => {
  const query = event.queryStringParameters || {};
  let page;
  let limit;
  try {
    page = positiveInt(query.page, 'page', 1);
    limit = positiveInt(query.limit, 'limit', 10);
  } catch (err) {
    return { statusCode: 400, body: { error: err.message } };
  }
  const start = (page - 1) * limit;
  return {
    statusCode: 200,
    body: { users: USERS.slice(start, start + limit), total: USERS.length, page, limit },
  };
};
