// POST <basePath>/webhooks/receive — receives webhooks.
//  1. If WEBHOOK_SECRET is set in the function's env, the `x-webhook-secret`
//     header must equal it, else 401 {error: 'invalid secret'}.
//     Optionally, if WEBHOOK_SIGNING_SECRET (`whsec_...`) is
//     set, a Standard Webhooks signature is also required, which is what
//     Switchyard's own webhooks send when they have a `secret`.
//  2. A string body is parsed as JSON; an object body is used as is.
//  3. Branch on `body.event`; `body.data` holds the content.
//  4. 200 with an acknowledgement for every event, recognised or not.

const TOLERANCE_S = 5 * 60;

// Compares in time independent of where the first difference is.
function safeEqual(a, b) {
  if (typeof a !== 'string' || typeof b !== 'string') return false;
  let diff = a.length ^ b.length;
  for (let i = 0; i < a.length; i++) diff |= a.charCodeAt(i) ^ b.charCodeAt(i % (b.length || 1));
  return diff === 0;
}

// Standard Webhooks: base64(HMAC-SHA256(key, `${id}.${timestamp}.${body}`)),
// sent as space-separated `v1,<sig>` entries. The gateway hands JSON bodies over
// parsed, so the signed bytes are rebuilt with JSON.stringify; that matches
// senders that post compact JSON (Switchyard does) but not re-formatted JSON.
async function verifySignature(secret, headers, body) {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures) return 'missing webhook signature headers';
  const ts = Number(timestamp);
  if (!Number.isInteger(ts) || Math.abs(Date.now() / 1000 - ts) > TOLERANCE_S) return 'webhook timestamp too old or invalid';

  let keyBytes;
  try {
    keyBytes = Uint8Array.from(atob(secret.replace(/^whsec_/, '')), (c) => c.charCodeAt(0));
  } catch {
    throw new Error('WEBHOOK_SIGNING_SECRET must be whsec_ followed by base64');
  }
  const key = await crypto.subtle.importKey('raw', keyBytes, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const payload = typeof body === 'string' ? body : JSON.stringify(body);
  const mac = new Uint8Array(
    await crypto.subtle.sign('HMAC', key, new TextEncoder().encode(`${id}.${timestamp}.${payload}`)),
  );
  const expected = btoa(String.fromCharCode(...mac));
  const ok = signatures
    .split(' ')
    .some((entry) => entry.startsWith('v1,') && safeEqual(entry.slice(3), expected));
  return ok ? null : 'invalid signature';
}

exports.handler = async (event) => {
  const headers = event.headers || {};
  const secret = process.env.WEBHOOK_SECRET;
  if (secret && !safeEqual(headers['x-webhook-secret'], secret)) {
    return { statusCode: 401, body: { error: 'invalid secret' } };
  }

  const signingSecret = process.env.WEBHOOK_SIGNING_SECRET;
  if (signingSecret) {
    const problem = await verifySignature(signingSecret, headers, event.body);
    if (problem) return { statusCode: 401, body: { error: problem } };
  }

  let body = event.body;
  if (typeof body === 'string') {
    try {
      body = JSON.parse(body);
    } catch {
      return { statusCode: 400, body: { error: 'body must be JSON' } };
    }
  }
  const name = body && typeof body === 'object' ? body.event : undefined;
  const data = body && typeof body === 'object' ? body.data : undefined;

  switch (name) {
    case 'order.created':
      console.log('order created', data && data.id);
      return { statusCode: 200, body: { processed: 'order.created' } };
    case 'user.signup':
      console.log('user signed up', data && data.email);
      return { statusCode: 200, body: { processed: 'user.signup' } };
    case 'payment.failed':
      console.warn('payment failed', data && data.id);
      return { statusCode: 200, body: { processed: 'payment.failed' } };
    default:
      return { statusCode: 200, body: { received: true, event: name === undefined ? null : name } };
  }
};
