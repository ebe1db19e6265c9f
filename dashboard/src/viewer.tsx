import { createContext, useContext, type ReactNode } from 'react';
import { useQuery } from 'urql';
import { ErrorNotice, Loading } from './components/notice.tsx';
import { isUnauthenticated, signInAgain } from './api/errors.ts';
import { graphql, type ResultOf } from './api/graphql.ts';

export type Viewer = ResultOf<typeof ViewerQuery>['me'];
export type Organization = Viewer['user']['organizations'][number];

const ViewerQuery = graphql(`
  query DashboardViewer {
    me {
      credential
      scopes
      user {
        id
        email
        name
        role
        organizations {
          id
          name
        }
      }
    }
  }
`);

const ViewerContext = createContext<Viewer | null>(null);

/** Loads the signed-in user once; every page reads it with useViewer(). */
export function ViewerProvider({ children }: { children: ReactNode }) {
  const [{ data, error, fetching }] = useQuery({ query: ViewerQuery, requestPolicy: 'cache-first' });
  if (isUnauthenticated(error)) {
    signInAgain();
    return <Loading label="Your session has ended. Taking you to sign in…" />;
  }
  if (error) return <ErrorNotice error={error} title="The dashboard could not load your account" />;
  if (fetching || !data) return <Loading label="Loading your account…" />;
  return <ViewerContext.Provider value={data.me}>{children}</ViewerContext.Provider>;
}

export function useViewer(): Viewer {
  const viewer = useContext(ViewerContext);
  if (!viewer) throw new Error('useViewer outside ViewerProvider');
  return viewer;
}
