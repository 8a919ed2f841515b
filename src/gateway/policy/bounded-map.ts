/**
 * A Map that forgets its oldest entry past `max`: the caches of the policy
 * checks (authorizer checks per API, function authorizers' answers, verified
 * JWTs) are keyed by what callers send or by APIs that change, so each is
 * bounded. Written by hand: insertion order is all the ageing these need (a
 * set moves a key to the newest end), which a Map gives for free.
 */
export class BoundedMap<V> {
  private readonly map = new Map<string, V>();

  constructor(private readonly max: number) {}

  get(key: string): V | undefined {
    return this.map.get(key);
  }

  set(key: string, value: V): void {
    this.map.delete(key);
    this.map.set(key, value);
    if (this.map.size > this.max) this.map.delete(this.map.keys().next().value!);
  }

  delete(key: string): void {
    this.map.delete(key);
  }
}
