import { lazy, type ComponentType, type LazyExoticComponent } from 'react';

export interface LazyPage {
  /** Loads the page's code once (a failed load is tried again next time). */
  load(): Promise<ComponentType>;
  /** The page's component once its code is here. */
  loaded: ComponentType | null;
  /** For a page whose code is not here yet: suspends until it is. */
  Lazy: LazyExoticComponent<ComponentType>;
}

/**
 * A page whose code is loaded on demand. Once loaded it renders directly: going through
 * Suspense again would cost a visible pause, as React holds back revealing suspended
 * content for 300 ms after showing its fallback.
 */
export function lazyPage(importer: () => Promise<{ default: ComponentType }>): LazyPage {
  let pending: Promise<ComponentType> | null = null;
  const page: LazyPage = {
    loaded: null,
    load() {
      pending ??= importer().then(
        (module) => (page.loaded = module.default),
        (error: unknown) => {
          pending = null;
          throw error;
        },
      );
      return pending;
    },
    Lazy: lazy(() => page.load().then((component) => ({ default: component }))),
  };
  return page;
}

/** Loads every page's code when the browser is idle, so later navigation does not wait for it. */
export function preloadWhenIdle(pages: LazyPage[]): () => void {
  const run = () => pages.forEach((page) => void page.load().catch(() => undefined));
  if ('requestIdleCallback' in window) {
    const handle = window.requestIdleCallback(run, { timeout: 3000 });
    return () => window.cancelIdleCallback(handle);
  }
  const timer = setTimeout(run, 1000);
  return () => clearTimeout(timer);
}
