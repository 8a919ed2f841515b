/**
 * A function's triggers besides HTTP: cron `schedules`, event subscriptions
 * (`events`) and the `async` settings (retries, destinations) of its
 * background runs. The checks a JSON schema cannot express (cron, time zone,
 * event names, destinations that exist); the API's view of them is
 * src/http/views/functions.ts, and the runs themselves go through the delivery
 * pipeline (src/deliveries/, function target: src/functions/target.ts).
 */
import { InvalidRequestError, SwitchyardError } from '../errors.js';
import { parseCron, validTimezone } from '../scheduler/cron.js';
import { firstFire } from '../scheduler/scheduler.js';
import type { AsyncInput, DestinationInput, ScheduleInput } from '../schema/functions.js';
import type { Store } from '../store/store.js';
import { DEFAULT_ASYNC, type AsyncConfig, type Destination, type FunctionSchedule } from '../types.js';

const EVENT_PATTERN = /^[A-Za-z0-9_.:-]{1,200}$/;

/** Checks and defaults `schedules`; a bad cron or time zone is a 400 naming `schedules[i].cron` / `.timezone`. */
export function readSchedules(input: ScheduleInput[]): FunctionSchedule[] {
  return input.map((s, i) => {
    const timezone = s.timezone ?? 'UTC';
    if (!validTimezone(timezone)) {
      throw new InvalidRequestError(`schedules[${i}].timezone: '${timezone}' is not an IANA time zone (e.g. UTC, Europe/Berlin)`, {
        field: `schedules[${i}].timezone`,
      });
    }
    try {
      parseCron(s.cron);
    } catch (err) {
      if (err instanceof SwitchyardError) {
        throw new InvalidRequestError(`schedules[${i}].${err.message}`, { field: `schedules[${i}].cron` });
      }
      throw err;
    }
    return { cron: s.cron, timezone, payload: s.payload ?? null };
  });
}

/** The first fire time of each schedule after `now`, for the store's slot rows. */
export function scheduleFires(schedules: FunctionSchedule[], now: number): Array<string | null> {
  return schedules.map((s) => firstFire(s.cron, s.timezone, true, now));
}

export function readEvents(events: string[]): string[] {
  for (const event of events) {
    if (event !== '*' && !EVENT_PATTERN.test(event)) {
      throw new InvalidRequestError(`events: '${event}' is not a valid event name`, { field: 'events' });
    }
  }
  return [...new Set(events)];
}

function readDestination(d: DestinationInput | null | undefined): Destination | null {
  if (!d) return null;
  return d.type === 'webhook' ? { type: 'webhook', id: d.id } : { type: 'function', name: d.name };
}

/** `async` with its defaults; each destination must exist (400 naming `async.on_success` / `async.on_failure`). */
export async function readAsync(input: AsyncInput | null | undefined, store: Store): Promise<AsyncConfig> {
  const config: AsyncConfig = {
    retries: input?.retries ?? DEFAULT_ASYNC.retries,
    onSuccess: readDestination(input?.on_success),
    onFailure: readDestination(input?.on_failure),
  };
  for (const [field, d] of [
    ['async.on_success', config.onSuccess],
    ['async.on_failure', config.onFailure],
  ] as const) {
    if (!d) continue;
    const exists = d.type === 'webhook' ? await store.getWebhook(d.id) : await store.getFunction(d.name);
    if (!exists) {
      const what = d.type === 'webhook' ? `webhook '${d.id}'` : `function '${d.name}'`;
      throw new InvalidRequestError(`${field}: ${what} does not exist`, { field });
    }
  }
  return config;
}
