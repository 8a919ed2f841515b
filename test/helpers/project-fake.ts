/**
 * An in-memory ProjectApi for the unit tests of plan, apply and export: it
 * keeps env values write-only, answers dry runs as the server does, and a
 * webhook's endpoint-health settings as the server fills them in (with the
 * server's own functions; the integration suite checks the real server).
 * Every write is recorded.
 */
import { createHash } from 'node:crypto';
import { autoDisableOf, autoDisableView, breakerOf, breakerView, rateLimitOf, rateLimitView } from '../../src/webhooks/health/settings.js';
import type {
  ApiBody,
  DryRunResult,
  FunctionBody,
  ProjectApi,
  RemoteApi,
  RemoteAsync,
  RemoteFunction,
  RemoteSchedule,
  RemoteUsagePlan,
  RemoteWebhook,
  UsagePlanBody,
  WebhookBody,
} from '../../src/project/index.js';

interface StoredFunction extends RemoteFunction {
  env: Record<string, string>;
  code: string;
}

/** The endpoint-health settings a webhook body gives, as the server answers them (those it leaves out: the defaults on create, kept on update). */
function healthAnswer(body: Partial<WebhookBody>, create: boolean): Partial<RemoteWebhook> {
  const out: Partial<RemoteWebhook> = {};
  if (create || 'breaker' in body) out.breaker = breakerView(breakerOf(body.breaker ?? null));
  if (create || 'rate_limit' in body) out.rate_limit = rateLimitView(rateLimitOf(body.rate_limit ?? null));
  if (create || 'auto_disable' in body) out.auto_disable = autoDisableView(autoDisableOf(body.auto_disable ?? null));
  return out;
}

/** ApiBody, its cors in the API's form (every field filled), as the fake keeps it. */
type FakeApiBody = Omit<ApiBody, 'cors'> & { cors?: RemoteApi['cors'] };

export class FakeProjectApi implements ProjectApi {
  functions = new Map<string, StoredFunction>();
  apis: RemoteApi[] = [];
  webhooks: Array<RemoteWebhook & { secret: string | null }> = [];
  usagePlans: RemoteUsagePlan[] = [];
  writes: string[] = [];
  private seq = 0;

  private view(fn: StoredFunction, withCode = false): RemoteFunction {
    const { env, code, ...rest } = fn;
    return { ...rest, env_keys: Object.keys(env).sort(), ...(withCode ? { code } : {}) };
  }

  async listFunctions() {
    return [...this.functions.values()].map((f) => this.view(f));
  }
  async getFunction(name: string) {
    return this.view(this.functions.get(name)!, true);
  }
  async createFunction(body: FunctionBody) {
    this.writes.push(`create function ${body.name}`);
    const fn: StoredFunction = {
      name: body.name,
      runtime: body.runtime,
      env: body.env,
      env_keys: [],
      timeout_ms: body.timeout_ms,
      memory_mb: body.memory_mb,
      handler: body.handler ?? null,
      event_format: body.event_format,
      version: 1,
      code: body.code,
      code_sha256: createHash('sha256').update(body.code).digest('hex'),
      // As the server answers them: timezone filled, async defaults.
      schedules: (body.schedules ?? []).map((s) => ({ cron: s.cron, timezone: s.timezone ?? 'UTC', payload: s.payload ?? null })),
      events: body.events ?? [],
      async: body.async ?? { retries: 2, on_success: null, on_failure: null },
      project: body.project ?? null,
    };
    this.checkDestinations(fn.async);
    this.functions.set(fn.name, fn);
    return this.view(fn);
  }
  async updateFunction(name: string, body: Record<string, unknown>) {
    this.writes.push(`update function ${name} ${Object.keys(body).sort().join(',')}`);
    const fn = this.functions.get(name)!;
    Object.assign(fn, Object.fromEntries(Object.entries(body).filter(([, v]) => v !== null)));
    if ('handler' in body) fn.handler = (body.handler as string | null) ?? null;
    if (body.schedules) fn.schedules = (body.schedules as RemoteSchedule[]).map((s) => ({ cron: s.cron, timezone: s.timezone ?? 'UTC', payload: s.payload ?? null }));
    if (body.async) this.checkDestinations(body.async as RemoteAsync);
    fn.code_sha256 = createHash('sha256').update(fn.code).digest('hex');
    fn.version++;
    return this.view(fn);
  }
  /** The server refuses a destination naming a webhook or function it does not hold. */
  private checkDestinations(a: RemoteAsync | undefined) {
    for (const d of [a?.on_success, a?.on_failure]) {
      if (d?.type === 'webhook' && !this.webhooks.some((w) => w.id === d.id)) throw new Error(`unknown webhook ${d.id}`);
      if (d?.type === 'function' && !this.functions.has(d.name)) throw new Error(`unknown function ${d.name}`);
    }
  }
  async deleteFunction(name: string) {
    this.writes.push(`delete function ${name}`);
    if (this.apis.some((a) => a.routes.some((r) => r.function === name))) throw new Error(`function ${name} is in use`);
    this.functions.delete(name);
  }
  async checkFunction(body: { name: string } & Record<string, unknown>, exists: boolean): Promise<DryRunResult> {
    if (typeof body.code === 'string' && body.code.includes('SYNTAX ERROR')) {
      const { ProjectApiError } = await import('../../src/project/index.js');
      throw new ProjectApiError(400, 'invalid_code', 'Unexpected identifier', { line: 1 });
    }
    if (!exists) return { dry_run: true, action: 'create', changes: Object.keys(body).filter((k) => k !== 'name') };
    const fn = this.functions.get(body.name)!;
    const changes = body.env && JSON.stringify(body.env) !== JSON.stringify(fn.env) ? ['env'] : [];
    return { dry_run: true, action: changes.length ? 'update' : 'none', changes };
  }

  async listApis() {
    return structuredClone(this.apis);
  }
  async createApi(body: FakeApiBody) {
    this.writes.push(`create api ${body.name}`);
    const id = `api_${++this.seq}`;
    const api: RemoteApi = {
      id,
      name: body.name,
      basePath: body.basePath,
      routes: body.routes.map((r) => ({ id: `rt_${++this.seq}`, ...r })),
      cors: body.cors ?? null,
      invokeUrl: `http://x/api/invoke/fn/${id}`,
      minimumCompressionSize: body.minimumCompressionSize ?? null,
      binaryMediaTypes: body.binaryMediaTypes ?? null,
      // As the server answers them: secrets masked.
      authorizers: (body.authorizers ?? []).map((a) => (a.secret !== undefined ? { ...a, secret: '****' } : a)),
      defaultAuthorizer: body.defaultAuthorizer ?? null,
      errorFormat: body.errorFormat ?? 'switchyard',
      exposeErrors: body.exposeErrors ?? false,
      throttle: body.throttle ?? null,
      project: body.project ?? null,
    };
    for (const r of api.routes) if (!this.functions.has(r.function)) throw new Error(`unknown function ${r.function}`);
    this.apis.push(api);
    return structuredClone(api);
  }
  async updateApi(id: string, body: Partial<FakeApiBody>) {
    const api = this.apis.find((a) => a.id === id)!;
    this.writes.push(`update api ${api.name}`);
    if (body.basePath) api.basePath = body.basePath;
    if (body.cors !== undefined) api.cors = body.cors;
    if (body.minimumCompressionSize !== undefined) api.minimumCompressionSize = body.minimumCompressionSize;
    if (body.binaryMediaTypes !== undefined) api.binaryMediaTypes = body.binaryMediaTypes;
    if (body.authorizers !== undefined) api.authorizers = body.authorizers.map((a) => (a.secret !== undefined ? { ...a, secret: '****' } : a));
    if (body.defaultAuthorizer !== undefined) api.defaultAuthorizer = body.defaultAuthorizer;
    if (body.errorFormat !== undefined) api.errorFormat = body.errorFormat;
    if (body.exposeErrors !== undefined) api.exposeErrors = body.exposeErrors;
    if (body.throttle !== undefined) api.throttle = body.throttle;
    if (body.project !== undefined) api.project = body.project;
    if (body.routes) {
      for (const r of body.routes) if (!this.functions.has(r.function)) throw new Error(`unknown function ${r.function}`);
      api.routes = body.routes.map((r) => ({ id: `rt_${++this.seq}`, ...r }));
    }
    return structuredClone(api);
  }
  async deleteApi(id: string) {
    this.writes.push(`delete api ${this.apis.find((a) => a.id === id)?.name}`);
    if (this.webhooks.some((w) => w.mock_endpoint?.api_id === id)) throw new Error('api in use');
    this.apis = this.apis.filter((a) => a.id !== id);
  }

  async listWebhooks() {
    return this.webhooks.map(({ secret, ...w }) => structuredClone({ ...w, has_secret: secret !== null }));
  }
  async createWebhook(body: WebhookBody) {
    this.writes.push(`create webhook ${body.name}`);
    const { secret, ...rest } = body;
    // A project never names an application: its webhooks are global, as the server answers them.
    const w = { ...structuredClone(rest), filter: rest.filter ?? null, application_id: null, ...healthAnswer(rest, true), id: `wh_${++this.seq}`, has_secret: Boolean(secret), secret: secret ?? null };
    this.webhooks.push(w);
    return structuredClone(w);
  }
  async updateWebhook(id: string, body: Partial<WebhookBody>) {
    const w = this.webhooks.find((x) => x.id === id)!;
    this.writes.push(`update webhook ${w.name} ${Object.keys(body).sort().join(',')}`);
    Object.assign(w, structuredClone(body), healthAnswer(body, false));
    if ('secret' in body) w.has_secret = Boolean(body.secret);
    return structuredClone(w);
  }
  async deleteWebhook(id: string) {
    this.writes.push(`delete webhook ${this.webhooks.find((w) => w.id === id)?.name}`);
    this.webhooks = this.webhooks.filter((w) => w.id !== id);
  }
  async listUsagePlans() {
    return structuredClone(this.usagePlans);
  }
  async createUsagePlan(body: UsagePlanBody) {
    this.writes.push(`create usage_plan ${body.name}`);
    // The server refuses an id of no API.
    for (const id of body.apiIds) if (!this.apis.some((a) => a.id === id)) throw new Error(`unknown api ${id}`);
    const plan: RemoteUsagePlan = { id: `up_${++this.seq}`, ...structuredClone(body) };
    this.usagePlans.push(plan);
    return structuredClone(plan);
  }
  async updateUsagePlan(id: string, body: Partial<UsagePlanBody>) {
    const plan = this.usagePlans.find((p) => p.id === id)!;
    this.writes.push(`update usage_plan ${plan.name} ${Object.keys(body).sort().join(',')}`);
    Object.assign(plan, structuredClone(body));
    return structuredClone(plan);
  }
  async deleteUsagePlan(id: string) {
    this.writes.push(`delete usage_plan ${this.usagePlans.find((p) => p.id === id)?.name}`);
    this.usagePlans = this.usagePlans.filter((p) => p.id !== id);
  }
  async checkWebhook(body: Partial<WebhookBody>, id?: string): Promise<DryRunResult> {
    if (id === undefined) return { dry_run: true, action: 'create', changes: Object.keys(body) };
    const w = this.webhooks.find((x) => x.id === id)!;
    const changes: string[] = [];
    if (body.secret !== undefined && body.secret !== w.secret) changes.push('secret');
    if (body.headers !== undefined && JSON.stringify(body.headers) !== JSON.stringify(w.headers)) changes.push('headers');
    return { dry_run: true, action: changes.length ? 'update' : 'none', changes };
  }
}
