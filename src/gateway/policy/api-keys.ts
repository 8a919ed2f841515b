/**
 * Routes with `apiKeyRequired`: the caller's key (`x-api-key`), its usage
 * plan's throttle and quota, checked in that order as API Gateway checks them.
 *
 * A missing, unknown or disabled key, and a key whose plan does not cover the
 * API (or that has no plan), are refused alike with 403 `forbidden`, as a REST
 * API answers `{"message":"Forbidden"}`: the answer never tells which, so it
 * cannot be used to probe for keys. Over the plan's throttle: 429 `throttled`;
 * past its quota: 429 `quota_exceeded` with Retry-After to the period's end.
 *
 * Keys are looked up by the SHA-256 of the secret (src/keys/secrets.ts) and
 * kept per process (KeyDirectory), with their plan; every write to a key or a
 * plan publishes a `keys` change that empties every process's directory
 * before the write answers, so a disabled or deleted key is refused at once
 * everywhere. The quota counts in one atomic statement per admitted request
 * (the store's countKeyUse), so a cluster never admits past it; the same
 * statement counts the key's use of the day. A key whose plan has no quota
 * costs no write per request: its use of the day is counted in this process
 * and written a second later (./key-usage.ts).
 */
import type { ChangeBus } from '../../changes.js';
import type { Clock } from '../../clock.js';
import { PolicyRefusalError } from '../../errors.js';
import { hashSecret } from '../../keys/secrets.js';
import type { ApiKeysPart, LimitsPart, QuotaWindow } from '../../store/store.js';
import type { Api, ApiKey, QuotaConfig, Route, UsagePlan } from '../../types.js';
import type { RequestFacts } from '../event.js';
import type { KeyUseCounter } from './key-usage.js';
import type { Throttles } from './throttle.js';

/** The longest `x-api-key` looked up; longer ones cannot be ours. */
const MAX_SECRET_LENGTH = 256;
/** Entries a directory keeps before it starts over (unknown secrets included). */
const MAX_ENTRIES = 10_000;

type Found = { key: ApiKey; plan: UsagePlan | null } | null;

/** A directory entry: the read under way, and once it answered, what it found (read at once from then on). */
interface Entry {
  read: Promise<Found>;
  found?: Found;
}

/** This process's keys by secret hash, emptied by every `keys` change. */
export class KeyDirectory {
  private readonly entries = new Map<string, Entry>();
  private generation = 0;

  constructor(private readonly deps: { store: Pick<ApiKeysPart, 'apiKeyByHash'>; changes: ChangeBus }) {
    deps.changes.subscribe((change) => {
      if (change.kind === 'keys' || change.kind === 'reset') this.clear();
    });
  }

  /** The key and its plan: at once when this process has read it since the last change, else a promise. */
  lookup(secret: string): Found | Promise<Found> {
    const hash = hashSecret(secret);
    const known = this.entries.get(hash);
    if (known !== undefined) return known.found !== undefined ? known.found : known.read;
    const generation = this.generation;
    const read = this.deps.store.apiKeyByHash(hash);
    const entry: Entry = { read };
    if (this.entries.size >= MAX_ENTRIES) this.entries.clear();
    this.entries.set(hash, entry);
    // A read that fails, or that a change overtook, is not kept.
    read.then(
      (found) => {
        if (this.generation !== generation) this.entries.delete(hash);
        else entry.found = found;
      },
      () => this.entries.delete(hash),
    );
    return read;
  }

  private clear(): void {
    this.generation++;
    this.entries.clear();
  }
}

/** What the key check needs, given by the service (src/server.ts). */
export interface ApiKeyDeps {
  directory: KeyDirectory;
  throttles: Throttles;
  limits: Pick<LimitsPart, 'countKeyUse'>;
  /** Counts the use of keys whose plan has no quota, written in batches. */
  uses: KeyUseCounter;
  clock: Clock;
}

const DAY_MS = 86_400_000;

/** The quota period holding `now` (UTC; weeks from Monday): its counter's key and when it ends. */
export function quotaWindow(quota: QuotaConfig, now: number): QuotaWindow & { endsAt: number } {
  const d = new Date(now);
  const midnight = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate());
  const day = (ms: number) => new Date(ms).toISOString().slice(0, 10);
  if (quota.period === 'DAY') return { period: `DAY:${day(midnight)}`, limit: quota.limit, endsAt: midnight + DAY_MS };
  if (quota.period === 'WEEK') {
    const monday = midnight - ((d.getUTCDay() + 6) % 7) * DAY_MS;
    return { period: `WEEK:${day(monday)}`, limit: quota.limit, endsAt: monday + 7 * DAY_MS };
  }
  const month = day(midnight).slice(0, 7);
  return { period: `MONTH:${month}`, limit: quota.limit, endsAt: Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1) };
}

function headerOf(raw: readonly string[], name: string): string | null {
  for (let i = 0; i < raw.length; i += 2) if (raw[i]!.length === name.length && raw[i]!.toLowerCase() === name) return raw[i + 1]!;
  return null;
}

const forbidden = () => new PolicyRefusalError('forbidden', 'Forbidden: the route needs a valid API key in x-api-key');

/** Null for routes that do not require a key (or when nothing enforces keys). */
export function compileApiKey(
  api: Api,
  route: Route,
  deps: ApiKeyDeps | undefined,
): { check(request: { req: RequestFacts }, grant: { apiKeyId?: string; apiKey?: string }): void | Promise<void> } | null {
  if (route.apiKeyRequired !== true || deps === undefined) return null;
  const { directory, throttles, limits, uses, clock } = deps;
  const days = new UtcDay();

  /** The plan's quota, then the grant: the part after the key is known and its throttle passed. */
  function count(key: ApiKey, plan: UsagePlan, secret: string, grant: { apiKeyId?: string; apiKey?: string }): void | Promise<void> {
    const now = clock.now();
    const day = days.of(now);
    if (plan.quota === null) {
      uses.add(key.id, day);
      grant.apiKeyId = key.id;
      grant.apiKey = secret;
      return;
    }
    const window = quotaWindow(plan.quota, now);
    return limits.countKeyUse(key.id, day, window).then((counted) => {
      if (!counted) {
        const seconds = Math.max(1, Math.ceil((window.endsAt - now) / 1000));
        throw new PolicyRefusalError('quota_exceeded', "The API key's quota for the period is spent", undefined, { 'Retry-After': String(seconds) });
      }
      grant.apiKeyId = key.id;
      grant.apiKey = secret;
    });
  }

  function admit(found: Found, secret: string, grant: { apiKeyId?: string; apiKey?: string }): void | Promise<void> {
    if (found === null || !found.key.enabled || found.plan === null || !found.plan.apiIds.includes(api.id)) throw forbidden();
    const { key, plan } = found;
    const throttled = plan.throttle === null ? undefined : throttles.admit(`key:${key.id}`, plan.throttle, 'API key');
    return throttled === undefined ? count(key, plan, secret, grant) : throttled.then(() => count(key, plan, secret, grant));
  }

  return {
    // Without a promise while the key is known to this process, its throttle has tokens here and its plan has no quota.
    check({ req }, grant) {
      const secret = headerOf(req.rawHeaders, 'x-api-key');
      if (secret === null || secret.length === 0 || secret.length > MAX_SECRET_LENGTH) throw forbidden();
      const found = directory.lookup(secret);
      return found instanceof Promise ? found.then((f) => admit(f, secret, grant)) : admit(found, secret, grant);
    },
  };
}

/** The UTC day (YYYY-MM-DD) of a time, made once per day rather than per request. */
class UtcDay {
  private text = '';
  private from = 0;
  private until = 0;

  of(now: number): string {
    if (now < this.from || now >= this.until) {
      this.from = now - (now % DAY_MS);
      this.until = this.from + DAY_MS;
      this.text = new Date(this.from).toISOString().slice(0, 10);
    }
    return this.text;
  }
}
