// GET <basePath>/:id — one user, written in TypeScript to show the
// `typescript` runtime: the gateway strips the types with esbuild at deploy.
// Any positive integer id answers 200: ids 1-25 are the users-list sample
// users, others are synthesised, since the example has no storage.

interface GatewayEvent {
  pathParameters: Record<string, string> | null;
}

interface User {
  id: number;
  name: string;
  email: string;
  role: string;
  created_at: string;
  last_login: string;
}

const NAMES = [
  'Ada Lovelace', 'Alan Turing', 'Grace Hopper', 'Edsger Dijkstra', 'Barbara Liskov',
  'Donald Knuth', 'Margaret Hamilton', 'Ken Thompson', 'Dennis Ritchie', 'Frances Allen',
  'John McCarthy', 'Radia Perlman', 'Tim Berners-Lee', 'Hedy Lamarr', 'Leslie Lamport',
  'Katherine Johnson', 'Niklaus Wirth', 'Shafi Goldwasser', 'Bjarne Stroustrup', 'Adele Goldberg',
  'Guido van Rossum', 'Sophie Wilson', 'Linus Torvalds', 'Annie Easley', 'Tony Hoare',
];
const ROLES = ['admin', 'editor', 'viewer', 'viewer', 'viewer'];
const DAY_MS = 86_400_000;
const EPOCH = Date.UTC(2024, 0, 1);

function userById(id: number): User {
  const name = NAMES[id - 1] ?? `User ${id}`;
  return {
    id,
    name,
    email: `${name.toLowerCase().replace(/[^a-z0-9]+/g, '.')}@example.com`,
    role: ROLES[(id - 1) % ROLES.length],
    created_at: new Date(EPOCH + (id % 365) * DAY_MS).toISOString(),
    // Stable per id and day, so repeated calls agree with each other.
    last_login: new Date(Math.floor(Date.now() / DAY_MS) * DAY_MS - (id % 24) * 3_600_000).toISOString(),
  };
}

export async function handler(event: GatewayEvent) {
  const raw = event.pathParameters?.id;
  if (raw === undefined || raw === '') {
    return { statusCode: 400, body: { error: 'id is required' } };
  }
  const id = Number(raw);
  if (!/^[0-9]+$/.test(raw) || !Number.isSafeInteger(id) || id < 1) {
    return { statusCode: 400, body: { error: `id must be a positive integer, got "${raw}"` } };
  }
  return { statusCode: 200, body: userById(id) };
}
