/** Polling for the integration tests: what real processes do happens a little later. */

export const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** Resolves with the first truthy value of `probe`; throws naming `what` after `ms`. */
export async function until<T>(
  probe: () => T | undefined | null | false | Promise<T | undefined | null | false>,
  what: string,
  ms = 10_000,
): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const value = await probe();
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await sleep(25);
  }
}
