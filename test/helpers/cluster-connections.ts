/**
 * Connections to a server of several processes behind one port (src/cluster.ts):
 * the primary spreads connections round-robin, so a test that must reach a
 * given process opens connections until one lands there (`connectTo`) and
 * keeps to that connection; `send` with no agent opens a new one per request.
 */
import { Agent, request as httpRequest } from 'node:http';
import { expect } from 'vitest';

export interface Answer {
  status: number;
  json: any;
  headers: Record<string, string | string[] | undefined>;
}

/** One kept-alive connection, and the server process behind it. */
export interface Connection {
  pid: number;
  request(method: string, path: string, body?: unknown): Promise<Answer>;
  close(): void;
}

export function send(
  agent: Agent | false,
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : JSON.stringify(body);
    const req = httpRequest(
      new URL(path, base),
      { method, agent, headers: { ...(data ? { 'content-type': 'application/json' } : {}), ...headers } },
      (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => {
          let json: unknown;
          try {
            json = text ? JSON.parse(text) : undefined;
          } catch {
            json = text;
          }
          resolve({ status: res.statusCode!, json, headers: res.headers });
        });
      },
    );
    req.on('error', reject);
    req.end(data);
  });
}

/** A fresh connection; its server process from /healthz. */
export async function connect(base: string): Promise<Connection> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const health = await send(agent, base, 'GET', '/healthz');
  expect(health.status).toBe(200);
  return {
    pid: health.json.pid,
    request: (method, path, body) => send(agent, base, method, path, body),
    close: () => agent.destroy(),
  };
}

/** A connection to the process `pid` (or to any process but `not`). */
export async function connectTo(base: string, want: { pid?: number; not?: number }): Promise<Connection> {
  for (let i = 0; i < 50; i++) {
    const c = await connect(base);
    if ((want.pid === undefined || c.pid === want.pid) && c.pid !== want.not) return c;
    c.close();
  }
  throw new Error(`no connection reached ${JSON.stringify(want)}`);
}
