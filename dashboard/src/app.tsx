import { Suspense, useEffect, useState, type ReactNode } from 'react';
import { Link, Route, Router, Switch, useLocation } from 'wouter';
import { useHashLocation } from 'wouter/use-hash-location';
import { ViewerProvider, useViewer } from './viewer.tsx';
import { Loading } from './components/notice.tsx';
import { ErrorBoundary } from './components/error-boundary.tsx';
import { lazyPage, preloadWhenIdle, type LazyPage } from './page-loader.ts';

/**
 * Each page's code is its own chunk: the first screen loads only the page it shows (in parallel
 * with the signed-in user), the others load when the browser is idle.
 */
const pages: { path: string; label: string; group: string; page: LazyPage }[] = [
  { path: '/', label: 'Overview', group: 'Home', page: lazyPage(() => import('./pages/overview.tsx')) },
  { path: '/files', label: 'Files', group: 'Data', page: lazyPage(() => import('./pages/files.tsx')) },
  { path: '/returns', label: 'Returns', group: 'Data', page: lazyPage(() => import('./pages/returns.tsx')) },
  { path: '/stickies', label: 'Stickies', group: 'Workspace', page: lazyPage(() => import('./pages/stickies.tsx')) },
  { path: '/links', label: 'Links', group: 'Workspace', page: lazyPage(() => import('./pages/links.tsx')) },
  { path: '/transcripts', label: 'Transcripts', group: 'Workspace', page: lazyPage(() => import('./pages/transcripts.tsx')) },
  { path: '/tasks', label: 'Tasks', group: 'Workspace', page: lazyPage(() => import('./pages/tasks.tsx')) },
  { path: '/news', label: 'News', group: 'Workspace', page: lazyPage(() => import('./pages/news.tsx')) },
  { path: '/chat', label: 'Chat', group: 'Workspace', page: lazyPage(() => import('./pages/chat.tsx')) },
  { path: '/generation', label: 'Summaries', group: 'Workspace', page: lazyPage(() => import('./pages/generation.tsx')) },
  { path: '/system', label: 'System', group: 'Service', page: lazyPage(() => import('./pages/system.tsx')) },
  { path: '/audit', label: 'Audit log', group: 'Service', page: lazyPage(() => import('./pages/audit.tsx')) },
  { path: '/usage', label: 'Usage', group: 'Service', page: lazyPage(() => import('./pages/usage.tsx')) },
  { path: '/settings', label: 'API keys & tokens', group: 'Service', page: lazyPage(() => import('./pages/settings.tsx')) },
  { path: '/webhooks', label: 'Webhooks', group: 'Service', page: lazyPage(() => import('./pages/webhooks.tsx')) },
];

/** Pages the service serves itself (not hash routes): a full navigation away from the dashboard. */
const serviceLinks: { href: string; label: string; group: string }[] = [{ href: '/api-docs', label: 'API reference', group: 'Service' }];

export function App() {
  return (
    <Router hook={useHashLocation}>
      <a
        className="skip-link"
        href="#main"
        onClick={(e) => {
          e.preventDefault();
          document.getElementById('main')?.focus();
        }}
      >
        Skip to content
      </a>
      <CurrentPageCode>
        <ViewerProvider>
          <Shell />
        </ViewerProvider>
      </CurrentPageCode>
    </Router>
  );
}

/** Starts loading the current page's code at once; the shell waits for it (a failure is shown by the page's error boundary). */
function CurrentPageCode({ children }: { children: ReactNode }) {
  const [location] = useLocation();
  const [ready, setReady] = useState(false);
  useEffect(() => {
    const entry = pages.find((p) => isCurrent(location, p.path));
    if (!entry) return setReady(true);
    entry.page.load().then(
      () => setReady(true),
      () => setReady(true),
    );
    // Only the first page: later navigation renders through the page's own loading state.
  }, []);
  return ready ? <>{children}</> : <Loading label="Loading the dashboard…" />;
}

/** Route components, made once (a new component per render would remount the page). */
const routeComponents = new Map(
  pages.map((p) => [
    p.path,
    function PageRoute() {
      const Component = p.page.loaded ?? p.page.Lazy;
      return <Component />;
    },
  ]),
);

function Shell() {
  const viewer = useViewer();
  const [location] = useLocation();
  const [menuOpen, setMenuOpen] = useState(false);
  useEffect(() => setMenuOpen(false), [location]);
  useEffect(() => preloadWhenIdle(pages.map((p) => p.page)), []);
  const groups = [...new Set(pages.map((p) => p.group))];
  return (
    <div className="shell">
      <header className="topbar">
        <button type="button" className="menu-toggle" aria-expanded={menuOpen} aria-controls="site-nav" onClick={() => setMenuOpen((open) => !open)}>
          <span aria-hidden="true">☰</span> Menu
        </button>
        <Link href="/" className="brand">
          Gateway
        </Link>
        <div className="account">
          <span className="account-email" title={viewer.user.email}>
            {viewer.user.email}
          </span>
          <form method="post" action="/logout">
            <button type="submit" className="button-secondary">
              Sign out
            </button>
          </form>
        </div>
      </header>
      <nav id="site-nav" className={menuOpen ? 'sidebar open' : 'sidebar'} aria-label="Main">
        {groups.map((group) => (
          <div key={group} className="nav-group">
            <h2 className="nav-group-title">{group}</h2>
            <ul>
              {pages
                .filter((p) => p.group === group)
                .map((p) => (
                  <li key={p.path}>
                    <Link
                      href={p.path}
                      className={isCurrent(location, p.path) ? 'nav-link active' : 'nav-link'}
                      aria-current={isCurrent(location, p.path) ? 'page' : undefined}
                    >
                      {p.label}
                    </Link>
                  </li>
                ))}
              {serviceLinks
                .filter((l) => l.group === group)
                .map((l) => (
                  <li key={l.href}>
                    <a href={l.href} className="nav-link">
                      {l.label}
                    </a>
                  </li>
                ))}
            </ul>
          </div>
        ))}
      </nav>
      <main id="main" tabIndex={-1}>
        <ErrorBoundary key={location}>
          <Suspense fallback={<Loading />}>
            <Switch>
              {pages.map((p) => (
                <Route key={p.path} path={p.path === '/' ? '/' : `${p.path}/*?`} component={routeComponents.get(p.path)!} />
              ))}
              <Route>
                <p>
                  There is no page at {location}. <Link href="/">Go to the overview</Link>.
                </p>
              </Route>
            </Switch>
          </Suspense>
        </ErrorBoundary>
      </main>
    </div>
  );
}

function isCurrent(location: string, path: string): boolean {
  return path === '/' ? location === '/' : location === path || location.startsWith(`${path}/`);
}
