/**
 * A stream that can also be read without a promise per value: a consumer that writes what it
 * gets synchronously (the REST event stream, thousands of followers of a run) asks to be told
 * when values are ready and takes every ready value at once. The async iterator protocol still
 * works on the same stream (and its return() still ends it); the wrappers below pass this on.
 */
export interface PushSource<T> {
  /** The values ready now (none: wait for the next call of the ready callback). */
  drain(): T[];
  /** `ready` is called (synchronously, by whoever produces values) when values may be ready or the stream has ended. */
  onReady(ready: () => void): void;
  /** True once the stream has ended (after the last value was drained). */
  readonly ended: boolean;
}

export const PUSH = Symbol('push source');

export type MaybePushable<T> = AsyncIterableIterator<T> & { [PUSH]?: PushSource<T> };

/** The stream's push side, when it has one. */
export function pushSourceOf<T>(stream: unknown): PushSource<T> | undefined {
  return (stream as { [PUSH]?: PushSource<T> } | null)?.[PUSH];
}

/**
 * `source` with each value mapped. Unlike an async generator wrapping it, return() reaches the
 * source at once even while a next() is pending, so a subscription whose client went away stops
 * following immediately instead of at its next value.
 */
export function mapAsyncIterator<T, U>(source: AsyncIterator<T>, map: (value: T) => U): MaybePushable<U> {
  const push = pushSourceOf<T>(source);
  return {
    ...(push && {
      [PUSH]: {
        drain: () => push.drain().map(map),
        onReady: (ready: () => void) => push.onReady(ready),
        get ended() {
          return push.ended;
        },
      },
    }),
    async next() {
      const result = await source.next();
      return result.done ? { done: true, value: undefined } : { done: false, value: map(result.value) };
    },
    async return() {
      await source.return?.();
      return { done: true, value: undefined };
    },
    async throw(error?: unknown) {
      await source.return?.();
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}

/**
 * `source`, calling `onEnd` once when it ends: run to completion, returned early (a client that
 * went away), or failed. For resources held while a stream is open (a user's stream slot).
 */
export function endingWith<T>(source: AsyncIterator<T>, onEnd: () => void): MaybePushable<T> {
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  const push = pushSourceOf<T>(source);
  return {
    ...(push && {
      [PUSH]: {
        drain: () => {
          const values = push.drain();
          if (push.ended) end();
          return values;
        },
        onReady: (ready: () => void) => push.onReady(ready),
        get ended() {
          return push.ended;
        },
      },
    }),
    async next() {
      try {
        const result = await source.next();
        if (result.done) end();
        return result;
      } catch (error) {
        end();
        throw error;
      }
    },
    async return() {
      try {
        await source.return?.();
      } finally {
        end();
      }
      return { done: true, value: undefined };
    },
    async throw(error?: unknown) {
      try {
        await source.return?.();
      } finally {
        end();
      }
      throw error;
    },
    [Symbol.asyncIterator]() {
      return this;
    },
  };
}
