/**
 * An API's `binaryMediaTypes` (REST API semantics, for `aws-v1` functions),
 * compiled once when its route table is built: null when the API has none
 * set, so the hot path of every other API tests one field.
 *
 * A pattern is `type/subtype`, either part `*`; a media type matches when
 * each part equals (case-insensitively) or the pattern's part is `*`.
 * Parameters (`; charset=...`) are not part of the match.
 */

export interface BinaryMediaTypes {
  /** Whether a Content-Type (or one Accept entry) is one of the API's binary types. */
  matches(mediaType: string | undefined): boolean;
}

/** `Image/PNG; q=1` -> ['image', 'png']; null when it is not `type/subtype`. */
function parts(mediaType: string): [string, string] | null {
  const semi = mediaType.indexOf(';');
  const bare = (semi === -1 ? mediaType : mediaType.slice(0, semi)).trim().toLowerCase();
  const slash = bare.indexOf('/');
  if (slash <= 0 || slash === bare.length - 1) return null;
  return [bare.slice(0, slash), bare.slice(slash + 1)];
}

export function compileBinaryMediaTypes(patterns: string[] | null): BinaryMediaTypes | null {
  if (patterns === null) return null;
  const compiled = patterns.map(parts).filter((p): p is [string, string] => p !== null);
  return {
    matches(mediaType) {
      if (mediaType === undefined) return false;
      const given = parts(mediaType);
      if (given === null) return false;
      for (const [type, subtype] of compiled) {
        if ((type === '*' || type === given[0]) && (subtype === '*' || subtype === given[1])) return true;
      }
      return false;
    },
  };
}

/** The first value of the request's first Accept header: the one API Gateway decides a binary answer by. */
export function firstAccept(rawHeaders: string[]): string | undefined {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i].length === 6 && rawHeaders[i].toLowerCase() === 'accept') {
      const value = rawHeaders[i + 1];
      const comma = value.indexOf(',');
      return comma === -1 ? value : value.slice(0, comma);
    }
  }
  return undefined;
}

/** The request's Content-Type header, from rawHeaders. */
export function requestContentType(rawHeaders: string[]): string | undefined {
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    if (rawHeaders[i].length === 12 && rawHeaders[i].toLowerCase() === 'content-type') return rawHeaders[i + 1];
  }
  return undefined;
}
