/**
 * The npm package `jose` inside a function, bundled the way `switchyard deploy`
 * bundles (esbuild, CommonJS, the neutral platform, ES modules first: the
 * options of src/cli/bundle.ts): it verifies RS256, ES256 and EdDSA tokens the
 * test signs with its own keys, refuses a tampered and an expired one, signs a
 * token the test verifies, and round-trips an A256GCM JWE. Everything jose does
 * goes through the sandbox's crypto.subtle, so each answer fails if an
 * algorithm is missing there.
 */
import { generateKeyPairSync, randomBytes } from 'node:crypto';
import { resolve } from 'node:path';
import { build } from 'esbuild';
import { SignJWT, importJWK, jwtVerify, type JWK } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../helpers/service.js';

const ROOT = resolve(import.meta.dirname, '..', '..');

// A handler in the idiom of jose's README and of API Gateway authorizer samples:
// keys imported once per isolate, the token from the Authorization header.
const HANDLER = `
import * as jose from 'jose';

const keys = {};
async function keyFor(alg) {
  keys[alg] ??= alg === 'ES256'
    ? jose.importJWK(JSON.parse(process.env.ES256_JWK), 'ES256')
    : jose.importSPKI(process.env[alg + '_SPKI'], alg);
  return keys[alg];
}

export const handler = async (event) => {
  const { op } = event.pathParameters;
  if (op === 'verify') {
    const token = (event.headers.authorization || '').replace(/^Bearer /, '');
    const { alg } = jose.decodeProtectedHeader(token);
    try {
      const { payload, protectedHeader } = await jose.jwtVerify(token, await keyFor(alg), { issuer: 'urn:test', audience: 'switchyard' });
      return { statusCode: 200, body: { sub: payload.sub, alg: protectedHeader.alg } };
    } catch (err) {
      return { statusCode: 401, body: { code: err.code } };
    }
  }
  if (op === 'sign') {
    const { publicKey, privateKey } = await jose.generateKeyPair('ES256', { extractable: true });
    const token = await new jose.SignJWT({ scope: 'read' }).setProtectedHeader({ alg: 'ES256' }).setSubject('fn').setIssuedAt().sign(privateKey);
    return { statusCode: 200, body: { token, jwk: await jose.exportJWK(publicKey) } };
  }
  if (op === 'jwe') {
    const secret = jose.base64url.decode(process.env.JWE_SECRET);
    const jwe = await new jose.CompactEncrypt(new TextEncoder().encode('for your eyes only'))
      .setProtectedHeader({ alg: 'dir', enc: 'A256GCM' }).encrypt(secret);
    const { plaintext } = await jose.compactDecrypt(jwe, secret);
    const broken = jwe.slice(0, -4) + (jwe.endsWith('AAAA') ? 'BBBB' : 'AAAA');
    const refused = await jose.compactDecrypt(broken, secret).then(() => null, (e) => e.code);
    return { statusCode: 200, body: { parts: jwe.split('.').length, plaintext: new TextDecoder().decode(plaintext), refused } };
  }
  return { statusCode: 404, body: { op } };
};
`;

async function bundle(): Promise<string> {
  const out = await build({
    stdin: { contents: HANDLER, resolveDir: ROOT, sourcefile: 'authorizer.mjs', loader: 'js' },
    bundle: true,
    write: false,
    format: 'cjs',
    platform: 'neutral',
    mainFields: ['module', 'main'],
    target: 'es2022',
    legalComments: 'none',
    logLevel: 'silent',
  });
  return out.outputFiles[0].text;
}

const pem = (k: { export(o: { type: 'spki'; format: 'pem' }): string | Buffer }) => String(k.export({ type: 'spki', format: 'pem' }));
const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 });
const ec = generateKeyPairSync('ec', { namedCurve: 'P-256' });
const ed = generateKeyPairSync('ed25519');

function token(alg: 'RS256' | 'ES256' | 'EdDSA', key: import('node:crypto').KeyObject, claims: { exp?: number } = {}) {
  const jwt = new SignJWT({}).setProtectedHeader({ alg }).setSubject(`user-${alg}`).setIssuer('urn:test').setAudience('switchyard').setIssuedAt();
  jwt.setExpirationTime(claims.exp ?? '5m');
  return jwt.sign(key);
}

let svc: RunningService;
let apiId = '';
const call = (op: string, headers: Record<string, string> = {}) => svc.request('GET', `/api/invoke/fn/${apiId}/${op}`, undefined, headers);

beforeAll(async () => {
  const [code, service] = await Promise.all([bundle(), startService()]);
  svc = service;
  const env = {
    RS256_SPKI: pem(rsa.publicKey),
    EdDSA_SPKI: pem(ed.publicKey),
    ES256_JWK: JSON.stringify(ec.publicKey.export({ format: 'jwk' })),
    JWE_SECRET: randomBytes(32).toString('base64url'),
  };
  const fn = await svc.request('POST', '/api/functions', { name: 'jose-fn', code, env, timeout_ms: 10000 });
  expect(fn.status, fn.text).toBe(201);
  const api = await svc.request('POST', '/api/apis', {
    name: 'jose',
    basePath: '/',
    routes: [{ method: 'GET', path: '/:op', function: 'jose-fn' }],
  });
  expect(api.status, api.text).toBe(201);
  apiId = api.json.id;
}, 60000);

afterAll(async () => {
  await svc?.stop();
});

describe('jose inside a function', () => {
  it('verifies RS256, ES256 and EdDSA tokens', async () => {
    for (const [alg, key] of [
      ['RS256', rsa.privateKey],
      ['ES256', ec.privateKey],
      ['EdDSA', ed.privateKey],
    ] as const) {
      const res = await call('verify', { authorization: `Bearer ${await token(alg, key)}` });
      expect(res.status, `${alg}: ${res.text}`).toBe(200);
      expect(res.json).toEqual({ sub: `user-${alg}`, alg });
    }
  }, 30000);

  it('refuses a tampered token, one signed by another key and an expired one', async () => {
    const good = await token('RS256', rsa.privateKey);
    const [h, p, s] = good.split('.');
    const claims = JSON.parse(Buffer.from(p, 'base64url').toString());
    const forged = `${h}.${Buffer.from(JSON.stringify({ ...claims, sub: 'admin' })).toString('base64url')}.${s}`;
    const tampered = await call('verify', { authorization: `Bearer ${forged}` });
    expect(tampered.status).toBe(401);
    expect(tampered.json).toEqual({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });

    const other = generateKeyPairSync('ed25519');
    const wrongKey = await call('verify', { authorization: `Bearer ${await token('EdDSA', other.privateKey)}` });
    expect(wrongKey.json).toEqual({ code: 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED' });

    const expired = await call('verify', { authorization: `Bearer ${await token('ES256', ec.privateKey, { exp: Math.floor(Date.now() / 1000) - 600 })}` });
    expect(expired.status).toBe(401);
    expect(expired.json).toEqual({ code: 'ERR_JWT_EXPIRED' });
  }, 30000);

  it('signs a token with a key pair it generated, which the host verifies', async () => {
    const res = await call('sign');
    expect(res.status, res.text).toBe(200);
    const { payload, protectedHeader } = await jwtVerify(res.json.token as string, await importJWK(res.json.jwk as JWK, 'ES256'));
    expect(protectedHeader.alg).toBe('ES256');
    expect(payload).toMatchObject({ sub: 'fn', scope: 'read' });
  });

  it('round-trips an A256GCM JWE and refuses a damaged one', async () => {
    const res = await call('jwe');
    expect(res.status, res.text).toBe(200);
    expect(res.json).toEqual({ parts: 5, plaintext: 'for your eyes only', refused: 'ERR_JWE_DECRYPTION_FAILED' });
  });
});
