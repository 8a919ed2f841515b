/**
 * `diagnostics_channel`: named channels whose subscribers are called on
 * publish, within this isolate (packages such as fastify and undici publish
 * to them; nothing in the sandbox subscribes). Tracing channels run the
 * traced function as it is, publishing start/end/error to their channels.
 */
'use strict';
const channels = new Map();

class Channel {
  #subscribers = [];
  constructor(name) {
    this.name = name;
  }
  get hasSubscribers() {
    return this.#subscribers.length > 0;
  }
  subscribe(fn) {
    this.#subscribers.push(fn);
  }
  unsubscribe(fn) {
    const i = this.#subscribers.indexOf(fn);
    if (i < 0) return false;
    this.#subscribers.splice(i, 1);
    return true;
  }
  publish(message) {
    for (const fn of this.#subscribers.slice()) {
      try {
        fn(message, this.name);
      } catch (e) {
        queueMicrotask(() => {
          throw e;
        });
      }
    }
  }
  bindStore() {}
  unbindStore() {
    return false;
  }
  runStores(data, fn, thisArg, ...args) {
    this.publish(data);
    return fn.apply(thisArg, args);
  }
}

function channel(name) {
  let c = channels.get(name);
  if (!c) {
    c = new Channel(name);
    channels.set(name, c);
  }
  return c;
}

function tracingChannel(nameOrChannels) {
  const named = typeof nameOrChannels === 'string';
  const pick = (event) => (named ? channel('tracing:' + nameOrChannels + ':' + event) : nameOrChannels[event]);
  const t = {
    start: pick('start'),
    end: pick('end'),
    asyncStart: pick('asyncStart'),
    asyncEnd: pick('asyncEnd'),
    error: pick('error'),
    get hasSubscribers() {
      return [t.start, t.end, t.asyncStart, t.asyncEnd, t.error].some((c) => c.hasSubscribers);
    },
    subscribe(handlers) {
      for (const k of Object.keys(handlers)) t[k].subscribe(handlers[k]);
    },
    unsubscribe(handlers) {
      let all = true;
      for (const k of Object.keys(handlers)) all = t[k].unsubscribe(handlers[k]) && all;
      return all;
    },
    traceSync(fn, context = {}, thisArg, ...args) {
      t.start.publish(context);
      try {
        const result = fn.apply(thisArg, args);
        context.result = result;
        return result;
      } catch (e) {
        context.error = e;
        t.error.publish(context);
        throw e;
      } finally {
        t.end.publish(context);
      }
    },
    tracePromise(fn, context = {}, thisArg, ...args) {
      t.start.publish(context);
      try {
        return Promise.resolve(fn.apply(thisArg, args)).then(
          (result) => {
            context.result = result;
            t.asyncEnd.publish(context);
            return result;
          },
          (e) => {
            context.error = e;
            t.error.publish(context);
            t.asyncEnd.publish(context);
            throw e;
          },
        );
      } finally {
        t.end.publish(context);
      }
    },
    traceCallback(fn, position = -1, context = {}, thisArg, ...args) {
      return t.traceSync(fn, context, thisArg, ...args);
    },
  };
  return t;
}

module.exports = {
  channel,
  hasChannel: (name) => channels.has(name) && channels.get(name).hasSubscribers,
  subscribe: (name, fn) => channel(name).subscribe(fn),
  unsubscribe: (name, fn) => channel(name).unsubscribe(fn),
  tracingChannel,
  Channel,
};
