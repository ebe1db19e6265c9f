/**
 * `source` with each value mapped. Unlike an async generator wrapping it, return() reaches the
 * source at once even while a next() is pending, so a subscription whose client went away stops
 * following immediately instead of at its next value.
 */
export function mapAsyncIterator<T, U>(source: AsyncIterator<T>, map: (value: T) => U): AsyncIterableIterator<U> {
  return {
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
export function endingWith<T>(source: AsyncIterator<T>, onEnd: () => void): AsyncIterableIterator<T> {
  let ended = false;
  const end = () => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  return {
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
