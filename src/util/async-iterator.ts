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
 * following immediately instead of at its next value. A class, not an object of closures: a
 * follower holds its wrappers for as long as it follows, thousands at once, and methods on the
 * prototype cost nothing per follower.
 */
export function mapAsyncIterator<T, U>(source: AsyncIterator<T>, map: (value: T) => U): MaybePushable<U> {
  return new MappedIterator(source, map);
}

/**
 * `source`, calling `onEnd` once when it ends: run to completion, returned early (a client that
 * went away), or failed. For resources held while a stream is open (a user's stream slot).
 */
export function endingWith<T>(source: AsyncIterator<T>, onEnd: () => void): MaybePushable<T> {
  return new EndingIterator(source, onEnd);
}

class MappedIterator<T, U> implements AsyncIterableIterator<U>, PushSource<U> {
  /** Itself, when the source can be read without promises (its own push side is the source's, mapped). */
  readonly [PUSH]?: PushSource<U>;
  private readonly push: PushSource<T> | undefined;

  constructor(
    private readonly source: AsyncIterator<T>,
    private readonly map: (value: T) => U,
  ) {
    this.push = pushSourceOf<T>(source);
    if (this.push) this[PUSH] = this;
  }

  drain(): U[] {
    return this.push!.drain().map(this.map);
  }

  onReady(ready: () => void): void {
    this.push!.onReady(ready);
  }

  get ended(): boolean {
    return this.push!.ended;
  }

  async next(): Promise<IteratorResult<U, undefined>> {
    const result = await this.source.next();
    return result.done ? { done: true, value: undefined } : { done: false, value: this.map(result.value) };
  }

  async return(): Promise<IteratorResult<U, undefined>> {
    await this.source.return?.();
    return { done: true, value: undefined };
  }

  async throw(error?: unknown): Promise<IteratorResult<U, undefined>> {
    await this.source.return?.();
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}

class EndingIterator<T> implements AsyncIterableIterator<T>, PushSource<T> {
  /** Itself, when the source can be read without promises. */
  readonly [PUSH]?: PushSource<T>;
  private readonly push: PushSource<T> | undefined;
  private onEnd: (() => void) | null;

  constructor(
    private readonly source: AsyncIterator<T>,
    onEnd: () => void,
  ) {
    this.onEnd = onEnd;
    this.push = pushSourceOf<T>(source);
    if (this.push) this[PUSH] = this;
  }

  /** Calls onEnd once (and lets go of it). */
  private end(): void {
    const onEnd = this.onEnd;
    this.onEnd = null;
    onEnd?.();
  }

  drain(): T[] {
    const values = this.push!.drain();
    if (this.push!.ended) this.end();
    return values;
  }

  onReady(ready: () => void): void {
    this.push!.onReady(ready);
  }

  get ended(): boolean {
    return this.push!.ended;
  }

  async next(): Promise<IteratorResult<T, undefined>> {
    try {
      const result = await this.source.next();
      if (result.done) this.end();
      return result as IteratorResult<T, undefined>;
    } catch (error) {
      this.end();
      throw error;
    }
  }

  async return(): Promise<IteratorResult<T, undefined>> {
    try {
      await this.source.return?.();
    } finally {
      this.end();
    }
    return { done: true, value: undefined };
  }

  async throw(error?: unknown): Promise<IteratorResult<T, undefined>> {
    try {
      await this.source.return?.();
    } finally {
      this.end();
    }
    throw error;
  }

  [Symbol.asyncIterator](): this {
    return this;
  }
}
