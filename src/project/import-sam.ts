/**
 * `switchyard import template.yaml`: an AWS SAM template as a project.
 * `AWS::Serverless::Function` resources become functions (`Handler` split
 * into file and export under `CodeUri`, `Timeout`, `MemorySize`,
 * `Environment.Variables`, each defaulted from `Globals.Function`); `Api`
 * events routes of a REST API (aws-v1 events) and `HttpApi` events routes of
 * an HTTP API (aws-v2, or aws-v1 with `PayloadFormatVersion: '1.0'`), one
 * Switchyard API per SAM API (`ServerlessRestApi` and `ServerlessHttpApi`
 * when implicit). Short tags (`!Ref`, `!Sub`, `!GetAtt`...) parse; `!Ref`
 * and `!Sub` of parameters with a default resolve; an environment value
 * that needs a deployed stack (`!GetAtt`, `!ImportValue`...) is left unset
 * and listed. `Schedule` and `ScheduleV2` events
 * become function schedules (AWS's rate() and cron() translated by
 * aws-schedule.ts, `Input` as the payload, ScheduleV2's time zone kept),
 * `EventBridgeRule` / `CloudWatchEvent` events with a `Pattern.detail-type`
 * list event subscriptions.
 */
import { samApiCors, samHttpApiCors } from './import-cors.js';
import { samRequest } from './import-request.js';
import { samStageThrottle, samUsagePlan, samUsagePlans, type SamPlanResult } from './import-keys.js';
import { SamAuthorizers } from './import-authorizers.js';
import { ProjectError, type FileCors } from './types.js';
import { parseCfnYaml } from './cfn-yaml.js';
import {
  ProjectBuilder,
  eventsFromPattern,
  functionName,
  scheduleFrom,
  memoryMb,
  resourceNote,
  retriesOf,
  routeMethod,
  uncarriedSettings,
  routePath,
  timeoutMs,
  isObj,
  type ImportOptions,
  type ImportResult,
  type Obj,
} from './import-common.js';


const PSEUDO: Record<string, string> = {
  'AWS::Region': 'us-east-1',
  'AWS::StackName': 'sam-app',
  'AWS::AccountId': '123456789012',
  'AWS::Partition': 'aws',
  'AWS::URLSuffix': 'amazonaws.com',
};

class Values {
  constructor(private readonly parameters: Obj) {}

  ref(name: string): string | undefined {
    if (name in PSEUDO) return PSEUDO[name];
    const p = this.parameters[name];
    if (isObj(p) && p.Default !== undefined && typeof p.Default !== 'object') return String(p.Default);
    return undefined;
  }

  /** A plain value, `!Ref` of a parameter with a default, or `!Sub` made only of those; else undefined. */
  resolve(value: unknown): string | undefined {
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return String(value);
    if (!isObj(value)) return undefined;
    if (typeof value.Ref === 'string') return this.ref(value.Ref);
    const sub = value['Fn::Sub'];
    if (typeof sub === 'string' || Array.isArray(sub)) {
      const [template, vars] = typeof sub === 'string' ? [sub, {}] : [sub[0], isObj(sub[1]) ? sub[1] : {}];
      if (typeof template !== 'string') return undefined;
      let ok = true;
      const text = template.replace(/\$\{([^}!]+)\}/g, (_, name: string) => {
        const found = name in vars ? this.resolve(vars[name]) : this.ref(name);
        if (found === undefined) ok = false;
        return found ?? '';
      });
      return ok ? text.replace(/\$\{!/g, '${') : undefined;
    }
    return undefined;
  }
}

/**
 * `EventInvokeConfig`: `MaximumRetryAttempts` as `async.retries`, a
 * `DestinationConfig` of `Type: Lambda` whose `Destination` is `!GetAtt
 * Fn.Arn` or `!Ref Fn` of a function of the template as a function
 * destination; other types (SQS, SNS, EventBridge, S3) and
 * `MaximumEventAgeInSeconds` reported.
 */
function eventInvokeConfig(b: ProjectBuilder, name: string, config: unknown, at: string, functionNames: Map<string, string>): void {
  if (!isObj(config)) return;
  const retries = retriesOf(config.MaximumRetryAttempts, `${at}.MaximumRetryAttempts`, b.notes);
  if (config.MaximumEventAgeInSeconds !== undefined) b.notes.push(`${at}.MaximumEventAgeInSeconds: not carried (Switchyard keeps an invocation until its retries are spent)`);
  const destinations = isObj(config.DestinationConfig) ? config.DestinationConfig : {};
  const destination = (key: 'OnSuccess' | 'OnFailure') => {
    const d = destinations[key];
    if (d === undefined) return undefined;
    const dest = isObj(d) ? d.Destination : undefined;
    const getAtt = isObj(dest) ? dest['Fn::GetAtt'] : undefined;
    const logical = Array.isArray(getAtt) ? getAtt[0] : typeof getAtt === 'string' ? getAtt.split('.')[0] : isObj(dest) ? dest.Ref : undefined;
    const fn = typeof logical === 'string' ? functionNames.get(logical) : undefined;
    if (isObj(d) && d.Type === 'Lambda' && fn) return { function: fn };
    b.notes.push(`${at}.DestinationConfig.${key}: ${JSON.stringify(d)} is not a function of this template; not carried (a webhook destination can stand in)`);
    return undefined;
  };
  b.setAsync(name, { retries, on_success: destination('OnSuccess'), on_failure: destination('OnFailure') });
}

/**
 * `FunctionUrlConfig` (`AuthType`, `Cors`, `InvokeMode`): the function's URL
 * as an API of its own (the builder's addFunctionUrl). `AuthType: AWS_IAM`
 * has no counterpart (the URL is open) and a streamed response is answered
 * whole; both said.
 */
function functionUrl(b: ProjectBuilder, name: string, config: unknown, where: string, values: Values): void {
  if (!isObj(config)) {
    b.notes.push(`${where}: ${JSON.stringify(config)} is not a mapping; not carried`);
    return;
  }
  const cors = config.Cors === undefined ? null : samHttpApiCors(config.Cors, `${where}.Cors`, b.notes);
  if (values.resolve(config.AuthType) === 'AWS_IAM') {
    b.notes.push(`${where}: AuthType not carried (IAM-signed calls have no counterpart: the URL's routes are open; give the API an authorizer)`);
  }
  if (values.resolve(config.InvokeMode) === 'RESPONSE_STREAM') b.notes.push(`${where}: InvokeMode not carried (responses are answered whole, not streamed)`);
  const rest = Object.keys(config).filter((k) => !['AuthType', 'Cors', 'InvokeMode'].includes(k));
  if (rest.length > 0) b.notes.push(`${where}: ${rest.join(', ')} not carried`);
  b.addFunctionUrl(name, where, cors);
}

/** Properties of a schedule Switchyard has no use for (names, descriptions), dropped without a word. */
const SCHEDULE_SILENT = ['Name', 'Description', 'OmitName', 'GroupName', 'RoleArn', 'PermissionsBoundary', 'KmsKeyArn'];

/**
 * `Schedule` (`Schedule`, `Input`, `Enabled`, `State`) and `ScheduleV2`
 * (`ScheduleExpression`, `ScheduleExpressionTimezone`, `Input`, `State`):
 * one function schedule; a disabled one is reported and skipped.
 */
function scheduleEvent(b: ProjectBuilder, fn: string, type: 'Schedule' | 'ScheduleV2', p: Obj, at: string, values: Values): void {
  const expressionKey = type === 'Schedule' ? 'Schedule' : 'ScheduleExpression';
  const expression = values.resolve(p[expressionKey]);
  const state = values.resolve(p.State);
  const enabled = values.resolve(p.Enabled);
  if (enabled === 'false' || state === 'DISABLED') {
    b.notes.push(`${at}: schedule ${expression ?? JSON.stringify(p[expressionKey])} is disabled (${enabled === 'false' ? 'Enabled: false' : 'State: DISABLED'}); not carried`);
    return;
  }
  if (expression === undefined) {
    b.notes.push(`${at}: ${expressionKey} ${JSON.stringify(p[expressionKey])} cannot be resolved here; not carried`);
    return;
  }
  const known = [expressionKey, 'Input', 'Enabled', 'State', ...(type === 'ScheduleV2' ? ['ScheduleExpressionTimezone'] : []), ...SCHEDULE_SILENT];
  const ignored = Object.keys(p).filter((k) => !known.includes(k));
  if (ignored.length > 0) b.notes.push(`${at}: ${ignored.join(', ')} not carried (a function schedule has a cron, a time zone and a payload; retries are the function's async settings)`);
  const timezone = type === 'ScheduleV2' ? values.resolve(p.ScheduleExpressionTimezone) : undefined;
  const input = p.Input === undefined ? undefined : values.resolve(p.Input);
  if (p.Input !== undefined && input === undefined) b.notes.push(`${at}: Input ${JSON.stringify(p.Input)} cannot be resolved here; not carried`);
  const schedule = scheduleFrom(expression, at, b.notes, { timezone, input });
  if (schedule) b.addSchedule(fn, schedule, at);
}

/** Function properties the import reads, and those that change nothing here (names, tags, tracing, packaging). */
const CARRIED = new Set(['Handler', 'FunctionUrlConfig', 'Runtime', 'CodeUri', 'Timeout', 'MemorySize', 'Environment', 'Events', 'FunctionName', 'EventInvokeConfig', 'InlineCode', 'PackageType', 'ImageUri', 'ImageConfig']);
const SILENT = new Set([
  'Description', 'Tags', 'PropagateTags', 'Architectures', 'Tracing', 'LoggingConfig', 'AutoPublishAlias', 'AutoPublishCodeSha256', 'AutoPublishAliasAllProperties',
  'VersionDescription', 'DeploymentPreference', 'RuntimeManagementConfig', 'SnapStart', 'EphemeralStorage', 'KmsKeyArn', 'CodeSigningConfigArn',
]);
const uncarried = (key: string) => !CARRIED.has(key) && !SILENT.has(key);

/** A REST API's (AWS::Serverless::Api, Globals.Api) properties that an API here carries. */
const API_SETTINGS = ['BinaryMediaTypes', 'MinimumCompressionSize'];

function apiSettings(b: ProjectBuilder, api: string, props: Obj, where: string, values: Values): void {
  const binary = props.BinaryMediaTypes;
  b.setApiSettings(
    api,
    {
      minimumCompressionSize: values.resolve(props.MinimumCompressionSize) ?? props.MinimumCompressionSize,
      binaryMediaTypes: Array.isArray(binary) ? binary.map((t) => values.resolve(t) ?? t) : binary,
    },
    where,
  );
}

/** An explicit Api or HttpApi: its routes come from the functions' events; what else it sets is reported. */
function apiNote(b: ProjectBuilder, where: string, resource: Obj, logicalId: string, values: Values): void {
  const given = isObj(resource.Properties) ? resource.Properties : {};
  const props = Object.keys(given);
  const rest = resource.Type === 'AWS::Serverless::Api';
  if (rest) apiSettings(b, logicalId, given, `${where}.Properties`, values);
  // Models are carried through the events' RequestModel that name them (import-request.ts).
  // Auth is read with the API's first route (import-authorizers.ts): its authorizers there, ApiKeyRequired and UsagePlan below.
  const carried = rest ? ['Cors', 'Models', 'Auth', 'MethodSettings', ...API_SETTINGS] : ['CorsConfiguration', 'Auth', 'DefaultRouteSettings'];
  const dropped = props.filter((k) => !['Name', 'Description', 'Tags', 'PropagateTags', ...carried].includes(k));
  if (dropped.length > 0) b.notes.push(`${where}: ${dropped.join(', ')} not carried (the API's routes come from the functions' events; stages and domains have no counterpart)`);
}

/** `true` or `'true'` (a parameter's value is a string). */
const isTrue = (v: unknown, values: Values) => v === true || values.resolve(v) === 'true';

/** An Api's `Cors` or an HttpApi's `CorsConfiguration`; null when it has none. */
function apiCors(type: unknown, props: Obj, where: string, notes: string[]): FileCors | null {
  if (type === 'AWS::Serverless::Api' && props.Cors !== undefined) return samApiCors(props.Cors, `${where}.Cors`, notes);
  if (type === 'AWS::Serverless::HttpApi' && props.CorsConfiguration !== undefined) {
    return samHttpApiCors(props.CorsConfiguration, `${where}.CorsConfiguration`, notes);
  }
  return null;
}

/** Template sections the import reads, and those that describe nothing a server runs (a description, the format's version). */
const TEMPLATE_READ = ['Resources', 'Globals', 'Parameters'];
const TEMPLATE_SILENT = ['AWSTemplateFormatVersion', 'Transform', 'Description', 'Metadata'];
const TEMPLATE_WHY: Record<string, string> = {
  Outputs: "a stack's outputs have no counterpart",
  Conditions: 'every resource is imported as if its condition held',
  Mappings: 'a value read through Fn::FindInMap is left unset',
  Rules: 'parameters are not checked here',
};

/** The template's top-level sections with no counterpart, each by name. */
function templateNotes(b: ProjectBuilder, doc: Obj): void {
  for (const key of Object.keys(doc)) {
    if (TEMPLATE_READ.includes(key) || TEMPLATE_SILENT.includes(key)) continue;
    b.notes.push(`${key}: not carried${TEMPLATE_WHY[key] ? ` (${TEMPLATE_WHY[key]})` : ''}`);
  }
}

export function importSam(yamlText: string, options: ImportOptions = {}): ImportResult {
  let doc: unknown;
  try {
    doc = parseCfnYaml(yamlText);
  } catch (err) {
    throw new ProjectError([{ file: options.file ?? 'template.yaml', path: '', message: `YAML syntax: ${(err as Error).message.split('\n')[0]}` }]);
  }
  return importSamValue(doc, options);
}

/** The same, from the template already parsed (`switchyard import` parses it once to tell the format). */
export function importSamValue(doc: unknown, options: ImportOptions = {}): ImportResult {
  if (!isObj(doc) || !isObj(doc.Resources)) {
    throw new ProjectError([{ file: options.file ?? 'template.yaml', path: 'Resources', message: 'a SAM template has a Resources mapping' }]);
  }
  const b = new ProjectBuilder(options);
  const values = new Values(isObj(doc.Parameters) ? doc.Parameters : {});
  templateNotes(b, doc);
  const globals = isObj(doc.Globals) && isObj(doc.Globals.Function) ? doc.Globals.Function : {};
  const globalEnv = isObj(globals.Environment) && isObj(globals.Environment.Variables) ? globals.Environment.Variables : {};

  // A value that needs a deployed stack is left unset, and listed: never read from the operator's environment.
  const envOf = (vars: Obj, where: string) => {
    const env: Record<string, string> = {};
    const unset = new Set<string>();
    for (const [key, value] of Object.entries(vars)) {
      const resolved = b.envValue(`${where}.${key}`, key, value, values.resolve(value));
      if (resolved !== undefined) env[key] = resolved;
      else unset.add(key);
    }
    return { env, unset };
  };
  const globalVars = envOf(globalEnv, 'Globals.Function.Environment.Variables');

  // Logical id -> function name, for destinations that point at another function of the template.
  const functionNames = new Map<string, string>();
  for (const [logicalId, resource] of Object.entries(doc.Resources)) {
    if (isObj(resource) && resource.Type === 'AWS::Serverless::Function') {
      const props = isObj(resource.Properties) ? resource.Properties : {};
      functionNames.set(logicalId, functionName(values.resolve(props.FunctionName) ?? logicalId, []));
    }
  }

  // Each API's Auth (authorizers), read with its first route.
  const samAuth = new SamAuthorizers(doc, functionNames, (v) => values.resolve(v), b.notes);

  // Each REST API's Models, for the events' RequestModel (Globals.Api's for an API without its own).
  const globalApi = isObj(doc.Globals) && isObj(doc.Globals.Api) ? doc.Globals.Api : {};
  const globalModels = isObj(globalApi.Models) ? globalApi.Models : {};
  const apiModels = new Map<string, Obj>();
  for (const [logicalId, resource] of Object.entries(doc.Resources)) {
    if (isObj(resource) && resource.Type === 'AWS::Serverless::Api' && isObj(resource.Properties) && isObj(resource.Properties.Models)) {
      apiModels.set(logicalId, resource.Properties.Models);
    }
  }

  // Globals.Function settings with no counterpart: said once, not once per function.
  uncarriedSettings('Globals.Function', Object.keys(globals).filter(uncarried), b.notes);
  // Globals.Api.Cors and Globals.HttpApi.CorsConfiguration: the CORS of every API of that kind without its own.
  const globalCors: Record<'Api' | 'HttpApi', FileCors | null> = { Api: null, HttpApi: null };
  for (const [key, value] of Object.entries(isObj(doc.Globals) ? doc.Globals : {})) {
    if (key === 'Function') continue;
    const settings = isObj(value) ? value : {};
    const corsKey = key === 'Api' ? 'Cors' : key === 'HttpApi' ? 'CorsConfiguration' : null;
    if (corsKey !== null && settings[corsKey] !== undefined) {
      globalCors[key as 'Api' | 'HttpApi'] = apiCors(`AWS::Serverless::${key}`, settings, `Globals.${key}`, b.notes);
    }
    if (key === 'Api' && API_SETTINGS.some((k) => settings[k] !== undefined)) {
      // Every AWS::Serverless::Api takes these unless it sets its own (set below, over these).
      const apis = Object.entries(doc.Resources).filter(([, r]) => isObj(r) && r.Type === 'AWS::Serverless::Api').map(([id]) => id);
      for (const api of ['ServerlessRestApi', ...apis]) apiSettings(b, api, settings, 'Globals.Api', values);
    }
    const handled = key === 'Api' ? [...API_SETTINGS, 'Auth', 'MethodSettings', 'Models'] : key === 'HttpApi' ? ['Auth', 'DefaultRouteSettings'] : [];
    const rest = Object.keys(settings).filter((k) => k !== corsKey && !handled.includes(k));
    if (rest.length > 0 || !isObj(value)) {
      b.notes.push(`Globals.${key}: ${isObj(value) ? `${rest.join(', ')} ` : ''}not carried (routes come from the functions' events; stages have no counterpart)`);
    }
  }
  const ownCors = new Map<string, FileCors | null>();
  const apiKinds = new Map<string, 'Api' | 'HttpApi'>();
  // Each REST API's Auth (Globals.Api.Auth under its own, as SAM merges them): ApiKeyRequired and UsagePlan.
  const globalAuth = isObj(globalApi.Auth) ? globalApi.Auth : {};
  const apiProps = (id: string): Obj => {
    const r = (doc.Resources as Obj)[id];
    return isObj(r) && isObj(r.Properties) ? r.Properties : {};
  };
  const authOf = (id: string): Obj => ({ ...globalAuth, ...(isObj(apiProps(id).Auth) ? (apiProps(id).Auth as Obj) : {}) });

  for (const [logicalId, resource] of Object.entries(doc.Resources)) {
    if (!isObj(resource)) continue;
    const where = `Resources.${logicalId}`;
    if (resource.Type !== 'AWS::Serverless::Function') {
      if (resource.Type === 'AWS::Lambda::Function') b.notes.push(`${where}: AWS::Lambda::Function is not carried (only AWS::Serverless::Function)`);
      else if (resource.Type === 'AWS::Serverless::Api' || resource.Type === 'AWS::Serverless::HttpApi') {
        apiNote(b, where, resource, logicalId, values);
        const cors = apiCors(resource.Type, isObj(resource.Properties) ? resource.Properties : {}, `${where}.Properties`, b.notes);
        if (cors) ownCors.set(logicalId, cors);
      }
      else {
        const note = resourceNote(where, resource.Type);
        if (note) b.notes.push(note);
      }
      continue;
    }
    const props = isObj(resource.Properties) ? resource.Properties : {};
    const prop = (key: string) => (props[key] !== undefined ? props[key] : globals[key]);
    // Where a setting was written: the function's own, else Globals (whose notes are then one for all functions).
    const from = (key: string) => (props[key] !== undefined ? `${where}.Properties.${key}` : `Globals.Function.${key}`);
    uncarriedSettings(`${where}.Properties`, Object.keys(props).filter(uncarried), b.notes);
    const ownName = values.resolve(props.FunctionName);
    const name = functionName(ownName ?? logicalId, b.notes);
    const handlerRaw = prop('Handler');
    if (typeof handlerRaw !== 'string' || props.PackageType === 'Image') {
      b.notes.push(`${where}: no Handler (an image function?); not carried`);
      continue;
    }
    const runtime = values.resolve(prop('Runtime'));
    if (runtime && !runtime.startsWith('nodejs')) b.notes.push(`${from('Runtime')}: ${runtime} is not JavaScript; its file is referenced as is`);
    if (props.InlineCode !== undefined) b.notes.push(`${where}: InlineCode is not carried; put the code in a file`);
    const codeUri = prop('CodeUri');
    if (codeUri !== undefined && typeof codeUri !== 'string') b.notes.push(`${where}: CodeUri ${JSON.stringify(codeUri)} is not a local folder; the handler is looked up at the top`);
    const split = b.fileOf(handlerRaw, typeof codeUri === 'string' ? codeUri : '', `${where}.Properties.${props.CodeUri !== undefined ? 'CodeUri' : 'Handler'}`);
    if (!split) continue;
    const { file, handler } = split;
    const ownEnv = isObj(props.Environment) && isObj(props.Environment.Variables) ? props.Environment.Variables : {};
    const own = envOf(ownEnv, `${where}.Properties.Environment.Variables`);
    // A value of the function's own that is left unset is not replaced by the global one.
    const env: Record<string, string> = { ...globalVars.env, ...own.env };
    for (const key of own.unset) delete env[key];
    const spec: Parameters<ProjectBuilder['addFunction']>[1] = { file, handler, env };
    const timeout = timeoutMs(values.resolve(prop('Timeout')));
    if (timeout !== undefined) spec.timeout_ms = timeout;
    const memory = memoryMb(values.resolve(prop('MemorySize')), where, b.notes);
    if (memory !== undefined) spec.memory_mb = memory;
    b.addFunction(name, spec);
    eventInvokeConfig(b, name, prop('EventInvokeConfig'), from('EventInvokeConfig'), functionNames);
    if (prop('FunctionUrlConfig') !== undefined) functionUrl(b, name, prop('FunctionUrlConfig'), from('FunctionUrlConfig'), values);

    const events = isObj(props.Events) ? props.Events : {};
    for (const [eventId, event] of Object.entries(events)) {
      const at = `${where}.Properties.Events.${eventId}`;
      if (!isObj(event)) continue;
      const p = isObj(event.Properties) ? event.Properties : {};
      if (event.Type === 'Schedule' || event.Type === 'ScheduleV2') {
        scheduleEvent(b, name, event.Type, p, at, values);
        continue;
      }
      if (event.Type === 'EventBridgeRule' || event.Type === 'CloudWatchEvent') {
        const names = eventsFromPattern(p.Pattern, at, b.notes);
        if (names.length === 0) continue;
        const ignored = Object.keys(p).filter((k) => k !== 'Pattern');
        if (ignored.length > 0) b.notes.push(`${at}: ${ignored.join(', ')} not carried (a subscribed function receives the event)`);
        b.addEvents(name, names, at);
        continue;
      }
      if (event.Type !== 'Api' && event.Type !== 'HttpApi') {
        b.notes.push(`${at}: ${String(event.Type)} events are not carried`);
        continue;
      }
      const apiRef = event.Type === 'Api' ? p.RestApiId : p.ApiId;
      const api = isObj(apiRef) && typeof apiRef.Ref === 'string' ? apiRef.Ref : typeof apiRef === 'string' ? apiRef : event.Type === 'Api' ? 'ServerlessRestApi' : 'ServerlessHttpApi';
      // $default answers the root too, which {proxy+} (one segment at least) does not match.
      let catchAll = false;
      let path = values.resolve(p.Path);
      let methodText = values.resolve(p.Method);
      if (event.Type === 'HttpApi' && path === undefined && methodText === undefined) {
        b.notes.push(`${at}: the HTTP API's default route ($default) becomes ANY / and ANY /{proxy+}`);
        path = '/{proxy+}';
        methodText = 'ANY';
        catchAll = true;
      }
      if (path === undefined || methodText === undefined) {
        b.notes.push(`${at}: needs Path and Method; not carried`);
        continue;
      }
      const method = routeMethod(methodText);
      if (!method) {
        b.notes.push(`${at}: Method ${methodText} is not carried`);
        continue;
      }
      const format = event.Type === 'Api' || String(p.PayloadFormatVersion ?? '2.0') === '1.0' ? 'aws-v1' : 'aws-v2';
      // Request validation is a REST API's: an HttpApi event has no RequestModel.
      const request =
        event.Type === 'Api' && (p.RequestModel !== undefined || p.RequestParameters !== undefined)
          ? samRequest(p, apiModels.get(api) ?? globalModels, `${at}.Properties`, b.notes)
          : null;
      // An Api event's Auth.ApiKeyRequired, over its API's; its authorizer keys (import-authorizers.ts), which lists the Auth keys neither reads.
      const eventAuth = event.Type === 'Api' && isObj(p.Auth) ? p.Auth : {};
      const keyRequired = event.Type === 'Api' && isTrue(eventAuth.ApiKeyRequired ?? authOf(api).ApiKeyRequired, values);
      const auth = samAuth.route(api, event.Type, p.Auth, `${at}.Properties`);
      const route = {
        method,
        path: routePath(path),
        function: b.functionFor(name, format),
        ...(request ? { request } : {}),
        ...(keyRequired ? { api_key_required: true } : {}),
        ...auth,
      };
      b.addRoute(api, route, at);
      if (catchAll) b.addRoute(api, { ...route, path: '/' }, at);
      apiKinds.set(api, event.Type);
    }
  }
  for (const [api, kind] of apiKinds) {
    const cors = ownCors.get(api) ?? globalCors[kind];
    if (cors) b.setCors(api, cors);
  }
  // The stage's default throttle (each route's own, as API Gateway applies it) and the usage plans of the REST APIs.
  const plans = new Map<string, SamPlanResult>();
  for (const [api, kind] of apiKinds) {
    const own = apiProps(api);
    const globalKey = kind === 'Api' ? 'MethodSettings' : 'DefaultRouteSettings';
    const globals = isObj(doc.Globals) && isObj(doc.Globals[kind]) ? (doc.Globals[kind] as Obj) : {};
    const throttle =
      own[globalKey] !== undefined
        ? samStageThrottle(own, `Resources.${api}.Properties`, b.notes)
        : samStageThrottle(globals, `Globals.${kind}`, b.notes);
    if (throttle) b.setRouteThrottles(api, throttle);
    if (kind !== 'Api') continue;
    const auth = authOf(api);
    const where = isObj(own.Auth) && own.Auth.UsagePlan !== undefined ? `Resources.${api}.Properties.Auth.UsagePlan` : 'Globals.Api.Auth.UsagePlan';
    const plan = samUsagePlan(auth.UsagePlan, where, b.notes);
    if (plan) plans.set(api, plan);
  }
  b.addUsagePlans(samUsagePlans(plans));
  samAuth.finish(b);
  return b.result();
}
