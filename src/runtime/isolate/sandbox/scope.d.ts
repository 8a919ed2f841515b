/**
 * What every sandbox part (the .js files here) sees in the bootstrap's closure
 * (../../sandbox/bootstrap.ts): the bootstrap's own bindings, the host bridges
 * it receives as parameters (BRIDGE_NAMES), and the constants spliced into
 * emit.js. Each part is a script, not a module, so tsc also lets each see the
 * others' top-level declarations, as they do inside the one closure.
 */
declare const g: typeof globalThis & Record<string, any>;
/** Completions the host sends, by kind (`timer`, `fetch`, ...). */
declare const handlers: Record<string, (id: number, payload: any) => void>;
declare const callFunction: typeof Reflect.apply;
declare const createObject: typeof Object.create;
/** True while an invocation is in flight. */
declare let active: boolean;
/** Run when the last invocation ends, and when the first starts. */
declare const idleHooks: Array<() => void>;
declare const wakeHooks: Array<() => void>;
declare function def(name: string, value: unknown): void;
/** The bundled Node built-ins (dist/sandbox/node-builtins.js), loaded on first use. */
declare const nodeBundle: () => any;

/** The host bridges: isolated-vm References and Callbacks, or plain values. */
declare const hostRandom: any;
declare const hostCrypto: any;
declare const hostUrl: any;
declare const hostNode: any;
declare const hostTimerSet: any;
declare const hostTimerClear: any;
declare const hostFetch: any;
declare const hostEmit: any;
declare const envJson: string;
declare const userFile: string;
declare const userMappings: string | null;
declare const firstLineOffset: number;
declare const hostFetchCancel: any;
declare const hostSubtle: any;

declare const __EMIT_MAX_EVENT_CHARS__: number;
declare const __EMIT_RESERVED_PREFIX_JSON__: string;
declare const __EMIT_MAX_DATA_BYTES__: number;
declare const __EMIT_RATE_PER_SECOND__: number;
declare const __EMIT_MAX_DATA_KIB__: number;
declare const __MAX_JSON_DEPTH__: number;
declare const __NODE_VERSION_JSON__: string;

/** V8's hook for formatting stacks (positions.js maps frames to the user's source). */
interface ErrorConstructor {
  prepareStackTrace?: (err: Error, frames: any[]) => any;
}
/** Node's errors carry a `code` (and URL errors the `input`); the sandbox's copy them. */
interface TypeError {
  code?: string;
  input?: string;
}
