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
