/**
 * `switchyard import template.yaml`: an AWS SAM template as a project.
 * `AWS::Serverless::Function` resources become functions (`Handler` split
 * into file and export under `CodeUri`, `Timeout`, `MemorySize`,
 * `Environment.Variables`, each defaulted from `Globals.Function`); `Api`
 * events routes of a REST API (aws-v1 events) and `HttpApi` events routes of
 * an HTTP API (aws-v2, or aws-v1 with `PayloadFormatVersion: '1.0'`), one
 * Switchyard API per SAM API (`ServerlessRestApi` and `ServerlessHttpApi`
 * when implicit). Short tags (`!Ref`, `!Sub`, `!GetAtt`...) parse; `!Ref`
 * and `!Sub` of parameters with a default resolve, other values are read
 * from the environment and reported.
 */
import { ProjectError } from './types.js';
import { parseCfnYaml } from './cfn-yaml.js';
import {
  ProjectBuilder,
  functionName,
  memoryMb,
  routeMethod,
  routePath,
  splitHandler,
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

export function importSam(yamlText: string, options: ImportOptions = {}): ImportResult {
  let doc: unknown;
  try {
    doc = parseCfnYaml(yamlText);
  } catch (err) {
    throw new ProjectError([{ file: 'template.yaml', path: '', message: `YAML syntax: ${(err as Error).message.split('\n')[0]}` }]);
  }
  if (!isObj(doc) || !isObj(doc.Resources)) {
    throw new ProjectError([{ file: 'template.yaml', path: 'Resources', message: 'a SAM template has a Resources mapping' }]);
  }
  const b = new ProjectBuilder();
  const values = new Values(isObj(doc.Parameters) ? doc.Parameters : {});
  const globals = isObj(doc.Globals) && isObj(doc.Globals.Function) ? doc.Globals.Function : {};
  const globalEnv = isObj(globals.Environment) && isObj(globals.Environment.Variables) ? globals.Environment.Variables : {};

  const envOf = (vars: Obj, where: string) => {
    const env: Record<string, string> = {};
    for (const [key, value] of Object.entries(vars)) {
      const resolved = values.resolve(value);
      if (resolved !== undefined) env[key] = resolved;
      else {
        env[key] = `\${env:${key}}`;
        b.notes.push(`${where}.${key}: ${JSON.stringify(value)} cannot be resolved here; read from the environment variable ${key} instead`);
      }
    }
    return env;
  };

  for (const [logicalId, resource] of Object.entries(doc.Resources)) {
    if (!isObj(resource)) continue;
    const where = `Resources.${logicalId}`;
    if (resource.Type !== 'AWS::Serverless::Function') {
      if (resource.Type === 'AWS::Lambda::Function') b.notes.push(`${where}: AWS::Lambda::Function is not carried (only AWS::Serverless::Function)`);
      continue;
    }
    const props = isObj(resource.Properties) ? resource.Properties : {};
    const prop = (key: string) => (props[key] !== undefined ? props[key] : globals[key]);
    const ownName = values.resolve(props.FunctionName);
    const name = functionName(ownName ?? logicalId, b.notes);
    const handlerRaw = prop('Handler');
    if (typeof handlerRaw !== 'string' || props.PackageType === 'Image') {
      b.notes.push(`${where}: no Handler (an image function?); not carried`);
      continue;
    }
    const runtime = values.resolve(prop('Runtime'));
    if (runtime && !runtime.startsWith('nodejs')) b.notes.push(`${where}: Runtime ${runtime} is not JavaScript; its file is referenced as is`);
    if (props.InlineCode !== undefined) b.notes.push(`${where}: InlineCode is not carried; put the code in a file`);
    const codeUri = prop('CodeUri');
    if (codeUri !== undefined && typeof codeUri !== 'string') b.notes.push(`${where}: CodeUri ${JSON.stringify(codeUri)} is not a local folder; the handler is looked up at the top`);
    const { file, handler } = splitHandler(handlerRaw, typeof codeUri === 'string' ? codeUri : '', options);
    const ownEnv = isObj(props.Environment) && isObj(props.Environment.Variables) ? props.Environment.Variables : {};
    const spec: Parameters<ProjectBuilder['addFunction']>[1] = {
      file,
      handler,
      env: { ...envOf(globalEnv, 'Globals.Function.Environment.Variables'), ...envOf(ownEnv, `${where}.Properties.Environment.Variables`) },
    };
    const timeout = timeoutMs(values.resolve(prop('Timeout')));
    if (timeout !== undefined) spec.timeout_ms = timeout;
    const memory = memoryMb(values.resolve(prop('MemorySize')), where, b.notes);
    if (memory !== undefined) spec.memory_mb = memory;
    b.addFunction(name, spec);

    const events = isObj(props.Events) ? props.Events : {};
    for (const [eventId, event] of Object.entries(events)) {
      const at = `${where}.Properties.Events.${eventId}`;
      if (!isObj(event)) continue;
      const p = isObj(event.Properties) ? event.Properties : {};
      if (event.Type === 'Schedule' || event.Type === 'ScheduleV2') {
        b.notes.push(`${at}: schedule ${JSON.stringify(p.Schedule ?? p.ScheduleExpression)} is kept for function schedules (a later release); not applied`);
        continue;
      }
      if (event.Type !== 'Api' && event.Type !== 'HttpApi') {
        b.notes.push(`${at}: ${String(event.Type)} events are not carried`);
        continue;
      }
      const apiRef = event.Type === 'Api' ? p.RestApiId : p.ApiId;
      const api = isObj(apiRef) && typeof apiRef.Ref === 'string' ? apiRef.Ref : typeof apiRef === 'string' ? apiRef : event.Type === 'Api' ? 'ServerlessRestApi' : 'ServerlessHttpApi';
      let path = values.resolve(p.Path);
      let methodText = values.resolve(p.Method);
      if (event.Type === 'HttpApi' && path === undefined && methodText === undefined) {
        b.notes.push(`${at}: the HTTP API's default route ($default) becomes ANY /{proxy+}`);
        path = '/{proxy+}';
        methodText = 'ANY';
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
      b.addRoute(api, { method, path: routePath(path), function: b.functionFor(name, format) }, at);
    }
  }
  return b.result();
}
