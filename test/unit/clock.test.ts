/**
 * DatabaseClock: a node's view of the database server's clock. The pure cases
 * use a scripted database; the last ones read the real databases' time
 * through the store, from a node whose own clock is an hour off.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { DatabaseClock } from '../../src/clock.js';
import { backends, removeTempDatabases } from '../helpers/store-backends.js';

const HOUR = 3_600_000;

/** A local clock the test moves by hand, and a database whose reads take `rtt` ms of it. */
function scripted(dbAhead: number, rtts: number[]) {
  let local = 1_000_000;
  let reads = 0;
  return {
    local: () => local,
    async readTime() {
      const rtt = rtts[reads++ % rtts.length]!;
      // The server reads its clock at the midpoint of the round trip, but the test skews
      // the midpoint for slow round trips, as queueing does: only the fastest is exact.
      local += rtt / 2;
      const server = local + dbAhead + (rtt > 10 ? 500 : 0);
      local += rtt / 2;
      return server;
    },
    reads: () => reads,
    advance: (ms: number) => (local += ms),
  };
}

describe('DatabaseClock', () => {
  it('reads the database time as the local clock plus the offset of the fastest round trip', async () => {
    const db = scripted(HOUR, [40, 4, 30]);
    const clock = new DatabaseClock({ readTime: db.readTime, local: db.local, samples: 3 });
    expect(clock.now()).toBe(db.local()); // before the first measurement: the local clock
    await clock.sync();
    expect(db.reads()).toBe(3);
    expect(clock.offset).toBe(HOUR);
    db.advance(12_345);
    expect(clock.now()).toBe(db.local() + HOUR);
  });

  it('keeps the last offset when the database does not answer, and reports it', async () => {
    const db = scripted(-90_000, [2]);
    let failing = false;
    const errors: unknown[] = [];
    const clock = new DatabaseClock({
      readTime: () => (failing ? Promise.reject(new Error('connection refused')) : db.readTime()),
      local: db.local,
      onError: (err) => errors.push(err),
    });
    await clock.sync();
    expect(clock.offset).toBe(-90_000);
    failing = true;
    await clock.sync();
    expect(errors).toHaveLength(1);
    expect(clock.offset).toBe(-90_000);
    expect(clock.now()).toBe(db.local() - 90_000);
  });

  it('tells the scheduler when a correction jumps by more than a second', async () => {
    let ahead = 0;
    let local = 5_000;
    const clock = new DatabaseClock({ readTime: async () => local + ahead, local: () => local, samples: 1 });
    let jumps = 0;
    clock.onJump(() => jumps++);
    await clock.sync();
    expect(jumps).toBe(0);
    ahead = 400; // drift: corrected quietly
    await clock.sync();
    expect(clock.offset).toBe(400);
    expect(jumps).toBe(0);
    ahead = 400 + 2 * 60_000; // someone set a clock: the scheduler must re-plan
    await clock.sync();
    expect(jumps).toBe(1);
  });
});

afterAll(() => removeTempDatabases());

for (const b of backends()) {
  describe(`DatabaseClock on ${b.name}`, () => {
    it("follows the database's clock from a node whose own clock is an hour fast", async () => {
      const store = await b.open();
      try {
        const before = Date.now();
        const server = await store.databaseTime();
        expect(Math.abs(server - before)).toBeLessThan(2_000); // the server runs on this machine
        const clock = new DatabaseClock({ readTime: () => store.databaseTime(), local: () => Date.now() + HOUR });
        await clock.start();
        clock.stop();
        expect(Math.abs(clock.offset + HOUR)).toBeLessThan(1_000);
        expect(Math.abs(clock.now() - Date.now())).toBeLessThan(1_000);
      } finally {
        await store.close();
      }
    });
  });
}
