/**
 * The try-it panel's request, without the page: the path parameters a route's
 * path names (`:id`, `{name}`, a final `*` or `{proxy+}`, as the gateway reads
 * them: docs/api.md), the path with their values filled in, and the request as
 * a curl command that curl sends as written.
 */

export interface PathParam {
  /** The name as the route writes it (`id`, `proxy`); `*` for a bare greedy segment. */
  name: string;
  /** A final `*` or `{name+}`: takes the rest of the path, `/` included. */
  greedy: boolean;
  /** The segment as written (`:id`, `{name}`), left in the path while the value is empty. */
  written: string;
}

function paramOf(segment: string, last: boolean): PathParam | null {
  if (segment === '*' && last) return { name: '*', greedy: true, written: segment };
  if (segment.length > 1 && segment.startsWith(':')) return { name: segment.slice(1), greedy: false, written: segment };
  if (segment.length > 2 && segment.startsWith('{') && segment.endsWith('}')) {
    const greedy = segment.endsWith('+}') && last;
    return { name: segment.slice(1, greedy ? -2 : -1), greedy, written: segment };
  }
  return null;
}

/** The parameters of a route path, in order; a name used twice is asked once. */
export function pathParams(path: string): PathParam[] {
  const segments = path.split('/');
  const params: PathParam[] = [];
  segments.forEach((segment, i) => {
    const param = paramOf(segment, i === segments.length - 1);
    if (param && !params.some((p) => p.name === param.name)) params.push(param);
  });
  return params;
}

/**
 * The path with each parameter's value percent-encoded in its place: one
 * segment for a plain one (a `/` in it becomes `%2F`), each part of a greedy
 * one's value on its own. A parameter with no value keeps its segment as
 * written, so the path still shows what is missing.
 */
export function fillPath(path: string, values: Readonly<Record<string, string>>): string {
  const segments = path.split('/');
  return segments
    .map((segment, i) => {
      const param = paramOf(segment, i === segments.length - 1);
      const value = param ? values[param.name] : undefined;
      if (!param || !value) return segment;
      return param.greedy ? value.split('/').map(encodeURIComponent).join('/') : encodeURIComponent(value);
    })
    .join('/');
}

const shellQuote = (text: string) => `'${text.replace(/'/g, `'\\''`)}'`;

/**
 * The request as a curl command. Single quotes keep the shell off the text;
 * `--globoff` keeps curl off it too: curl reads `{a,b}` and `[1-9]` in a URL
 * as ranges to expand, so a path still holding `{name}` or a query such as
 * `ids[]=1` would otherwise be refused or sent as several requests.
 */
export function curlCommand(method: string, url: string, headers: [string, string][], body: string): string {
  const parts = ['curl', '-i', '-X', method];
  if (/[[\]{}]/.test(url)) parts.push('--globoff');
  parts.push(shellQuote(url));
  for (const [name, value] of headers) parts.push('-H', shellQuote(`${name}: ${value}`));
  if (body && method !== 'GET' && method !== 'HEAD') parts.push('--data-raw', shellQuote(body));
  return parts.join(' ');
}
