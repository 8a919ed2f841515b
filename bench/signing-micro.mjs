// `node bench/signing-micro.mjs [rounds=5]`: what the `webhook-signature` header
// of one attempt costs the sending process (src/webhooks/signing.ts), for a
// 1 KB body: one HMAC secret, one ed25519 key, and a rotation's overlap (both
// kinds signed), with the keys decoded once as the target does. The median
// of the rounds; on a shared machine compare kinds within one run, not runs.
// Not a test. Needs `npm run build` first.
import { generateSecret, sign, signAll } from '../dist/webhooks/signing.js';

const rounds = Number(process.argv[2] ?? 5);
const hmac = generateSecret('hmac');
const ed = generateSecret('ed25519');
const body = JSON.stringify({ event: 'order.created', data: 'x'.repeat(1000) });
const cases = [
  ['v1 (HMAC)', () => sign(hmac, 'dlv_1', 1_700_000_000, body)],
  ['v1a (ed25519)', () => sign(ed, 'dlv_1', 1_700_000_000, body)],
  ['v1a + v1 (a rotation from HMAC to ed25519)', () => signAll([ed, hmac], 'dlv_1', 1_700_000_000, body)],
];
for (const [name, run] of cases) {
  for (let i = 0; i < 2000; i++) run();
  const perRound = [];
  for (let r = 0; r < rounds; r++) {
    const n = 10_000;
    const start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) run();
    perRound.push(Number(process.hrtime.bigint() - start) / n / 1000);
  }
  perRound.sort((a, b) => a - b);
  console.log(`${name}: ${perRound[Math.floor(rounds / 2)].toFixed(1)} µs per header`);
}
