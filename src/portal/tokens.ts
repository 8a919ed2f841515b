/**
 * Portal tokens: bearer tokens bound to one application that the consumer API
 * (`/api/portal/...`, src/http/portal.ts) accepts instead of the admin key.
 * A token is 32 random bytes shown once; the store keeps only its SHA-256, so
 * a copy of the database grants nothing. Each lives `ttlMs` from its making
 * or its last refresh, never past `maxTtlMs` from its making, and is revoked
 * by the operator (all of an application's, or one) or by its holder.
 * Hand-written: a random string and a hash row are all a library would add.
 */
import { createHash, randomBytes } from 'node:crypto';
import type { Application, PortalSession } from '../applications/types.js';
import type { Clock } from '../clock.js';
import { PortalTokenInvalidError } from '../errors.js';
import type { Store } from '../store/store.js';

/** Every portal token starts with this, so the admin check can tell one from a wrong admin key (and logs can scrub it). */
export const PORTAL_TOKEN_PREFIX = 'swp_';

export interface PortalTokensDeps {
  store: Store;
  clock: Clock;
  /** Life of a token unless refreshed (SWITCHYARD_PORTAL_TOKEN_TTL). */
  ttlMs: number;
  /** The most refreshes keep one alive, from its making (SWITCHYARD_PORTAL_TOKEN_MAX_TTL). */
  maxTtlMs: number;
}

/** A token that authenticated: the application it is bound to and its session. */
export interface PortalCaller {
  application: Application;
  session: PortalSession;
  /** The token's hash: what refresh and revoke name it by. */
  hash: string;
}

export const hashPortalToken = (token: string): string => createHash('sha256').update(token).digest('hex');

export class PortalTokens {
  constructor(private readonly deps: PortalTokensDeps) {}

  /** A new token for the application; `ttlS` shortens (or, up to the maximum, lengthens) its first life. */
  async issue(application: Application, ttlS?: number): Promise<{ token: string; session: PortalSession }> {
    const now = this.deps.clock.now();
    const token = PORTAL_TOKEN_PREFIX + randomBytes(32).toString('base64url');
    const maxExpiresAt = now + this.deps.maxTtlMs;
    const session = {
      applicationId: application.id,
      createdAt: iso(now),
      expiresAt: iso(Math.min(now + (ttlS === undefined ? this.deps.ttlMs : ttlS * 1000), maxExpiresAt)),
      maxExpiresAt: iso(maxExpiresAt),
    };
    await this.deps.store.createPortalToken(hashPortalToken(token), session);
    return { token, session: { ...session, revokedAt: null } };
  }

  /** The caller a token names; throws portal_token_invalid when it is unknown, revoked or expired. */
  async authenticate(token: string | null): Promise<PortalCaller> {
    if (token === null || !token.startsWith(PORTAL_TOKEN_PREFIX)) throw new PortalTokenInvalidError();
    const hash = hashPortalToken(token);
    const session = await this.deps.store.portalSession(hash);
    if (!session || session.revokedAt !== null || Date.parse(session.expiresAt) <= this.deps.clock.now()) throw new PortalTokenInvalidError();
    // Its application's row, read now: a deleted application's tokens went with it.
    const application = await this.deps.store.getApplication(session.applicationId);
    if (!application) throw new PortalTokenInvalidError();
    return { application, session, hash };
  }

  /** Another `ttlMs` from now, capped at the token's maximum. */
  async refresh(caller: PortalCaller): Promise<PortalSession> {
    const now = this.deps.clock.now();
    const session = await this.deps.store.refreshPortalToken(caller.hash, iso(now + this.deps.ttlMs), iso(now));
    if (!session) throw new PortalTokenInvalidError();
    return session;
  }

  /** Revokes the application's live tokens, or only `token`; returns how many. */
  revoke(applicationId: string, token?: string): Promise<number> {
    return this.deps.store.revokePortalTokens(applicationId, iso(this.deps.clock.now()), token === undefined ? undefined : hashPortalToken(token));
  }

  /** Revokes the caller's own token (signing out of the portal). */
  async revokeOwn(caller: PortalCaller): Promise<void> {
    await this.deps.store.revokePortalTokens(caller.application.id, iso(this.deps.clock.now()), caller.hash);
  }
}

const iso = (ms: number) => new Date(ms).toISOString();
