/**
 * A JWT authorizer's remote key set: fetched from its JWKS URL, kept, and
 * fetched again when a token names a key it does not hold (keys rotate) or
 * when it is old. Written here rather than with jose's createRemoteJWKSet
 * because that one times its cache and its cooldown by Date.now: these follow
 * the gateway's injectable clock (src/clock.ts), so tests move time instead of
 * waiting. jose still parses the set and selects the key (createLocalJWKSet).
 *
 * The fetch goes through the SSRF-guarded agent (src/net/ssrf.ts) unless the
 * server allows private targets, is bounded in time and size, and is never
 * made twice at once; an unknown kid triggers at most one fetch per cooldown,
 * so a stream of forged kids cannot turn the gateway on the key server.
 */
import { createLocalJWKSet, type JSONWebKeySet, type JWTVerifyGetKey } from 'jose';
import { fetch as undiciFetch, type Agent } from 'undici';
import type { Clock } from '../../clock.js';

/** How long one JWKS fetch may take. */
export const JWKS_FETCH_TIMEOUT_MS = 5_000;
/** The largest key set read. */
const MAX_JWKS_BYTES = 256 * 1024;
/** Keys are fetched again after this long even when every kid is known. */
const JWKS_MAX_AGE_MS = 10 * 60_000;
/** At most one fetch for an unknown kid (or after a failed fetch) per this long. */
export const JWKS_COOLDOWN_MS = 30_000;

export interface RemoteKeySetDeps {
  clock: Clock;
  /** The agent the fetch connects through (SSRF-guarded unless private targets are allowed). */
  dispatcher: Agent;
}

type LocalSet = ReturnType<typeof createLocalJWKSet>;

export class RemoteKeySet {
  private keys: LocalSet | null = null;
  private fetchedAt = Number.NEGATIVE_INFINITY;
  private triedAt = Number.NEGATIVE_INFINITY;
  private pending: Promise<void> | null = null;

  constructor(
    private readonly url: string,
    private readonly deps: RemoteKeySetDeps,
  ) {}

  /** jose's key getter: the kid's key, fetching the set again for a kid not in it. */
  readonly getKey: JWTVerifyGetKey = async (header, token) => {
    const now = this.deps.clock.now();
    if (this.keys === null || now - this.fetchedAt >= JWKS_MAX_AGE_MS) await this.refresh(now);
    if (this.keys === null) throw new Error('the JWKS URL could not be read');
    try {
      return await this.keys(header, token);
    } catch (err) {
      if ((err as { code?: string }).code !== 'ERR_JWKS_NO_MATCHING_KEY') throw err;
      const before = this.keys;
      await this.refresh(this.deps.clock.now());
      if (this.keys === before) throw err;
      return this.keys!(header, token);
    }
  };

  /** Fetches the set unless a fetch is running (joined) or one was tried within the cooldown. */
  private refresh(now: number): Promise<void> {
    if (this.pending !== null) return this.pending;
    if (now - this.triedAt < JWKS_COOLDOWN_MS) return Promise.resolve();
    this.triedAt = now;
    this.pending = this.fetchSet()
      .then((set) => {
        this.keys = createLocalJWKSet(set);
        this.fetchedAt = this.deps.clock.now();
      })
      // A failed fetch keeps the keys in hand: the key server being down must not refuse tokens it signed.
      .catch(() => undefined)
      .finally(() => {
        this.pending = null;
      });
    return this.pending;
  }

  private async fetchSet(): Promise<JSONWebKeySet> {
    const res = (await undiciFetch(this.url, {
      headers: { accept: 'application/json' },
      redirect: 'error',
      signal: AbortSignal.timeout(JWKS_FETCH_TIMEOUT_MS),
      dispatcher: this.deps.dispatcher,
    })) as unknown as Response;
    if (res.status !== 200) {
      await res.body?.cancel();
      throw new Error(`JWKS URL answered ${res.status}`);
    }
    const length = Number(res.headers.get('content-length') ?? 0);
    if (length > MAX_JWKS_BYTES) {
      await res.body?.cancel();
      throw new Error('JWKS too large');
    }
    const text = await readLimited(res, MAX_JWKS_BYTES);
    return JSON.parse(text) as JSONWebKeySet;
  }
}

async function readLimited(res: Response, limit: number): Promise<string> {
  const chunks: Uint8Array[] = [];
  let size = 0;
  for await (const chunk of res.body as unknown as AsyncIterable<Uint8Array>) {
    size += chunk.byteLength;
    if (size > limit) throw new Error('JWKS too large');
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}
