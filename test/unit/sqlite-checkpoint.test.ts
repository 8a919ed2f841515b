/**
 * A SQLite file store checkpoints its WAL from a worker thread: what is
 * committed reaches the database file while the WAL stays far below the
 * 20,000 pages at which the store's own connection would checkpoint.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { HEALTH_FIELDS } from '../helpers/webhook-fixture.js';
import { openStore } from '../../src/store/index.js';
import { waitFor } from '../helpers/receiver.js';

const dir = mkdtempSync(join(tmpdir(), 'switchyard-checkpoint-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('SQLite WAL checkpoints', () => {
  it('copies committed pages into the database file from a worker thread, far below the own threshold', async () => {
    const file = join(dir, 'wal.db');
    const store = await openStore(`sqlite:${file}`);
    try {
      const webhook = await store.createWebhook({
        name: 'w', targetUrl: 'https://example.com/hook', method: 'POST', headers: {}, payloadTemplate: {}, cron: null,
        timezone: 'UTC', mockEndpoint: null, events: [], enabled: true, secret: null,
        retry: { maxAttempts: 8, scheduleS: null }, timeoutMs: 5000, nextFireAt: null, ...HEALTH_FIELDS,
      });
      // Let the checkpoint of the migrations land first, then measure the file.
      await new Promise((r) => setTimeout(r, 500));
      const before = statSync(file).size;
      // About 1 MB of rows, a commit each: the WAL stays far below the 20,000 pages of the connection's own checkpoint.
      for (let i = 0; i < 1000; i++) {
        await store.createDelivery({
          webhookId: webhook.id, trigger: 'event', scheduledFor: null, event: 'e', eventData: { i, pad: 'x'.repeat(500) },
          nextAttemptAt: new Date().toISOString(),
        });
      }
      expect(statSync(`${file}-wal`).size).toBeLessThan(20_000 * 4096);
      await waitFor(() => statSync(file).size > before + 500_000);
    } finally {
      await store.close();
    }
  });
});
