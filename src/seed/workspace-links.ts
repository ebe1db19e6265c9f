/**
 * Demo links and folders for the demo admin: three folders, a dozen links (some starred, some in
 * no folder), created through LinkService like any client's. The service never fetches them.
 */
import type { Services } from '../services.ts';

interface DemoLink {
  url: string;
  title: string;
  folder?: 'Reading list' | 'Tools' | 'Research';
  tags: string[];
  starred?: boolean;
}

const FOLDERS = ['Reading list', 'Research', 'Tools'] as const;

const LINKS: DemoLink[] = [
  {
    url: 'https://www.cfainstitute.org/en/ethics-standards/codes/gips-standards',
    title: 'GIPS Standards',
    folder: 'Research',
    tags: ['performance', 'standards'],
    starred: true,
  },
  { url: 'https://en.wikipedia.org/wiki/Modified_Dietz_method', title: 'Modified Dietz method', folder: 'Research', tags: ['performance', 'returns'] },
  { url: 'https://en.wikipedia.org/wiki/Time-weighted_return', title: 'Time-weighted return', folder: 'Research', tags: ['returns'] },
  {
    url: 'https://www.postgresql.org/docs/current/explicit-locking.html',
    title: 'PostgreSQL: explicit locking',
    folder: 'Tools',
    tags: ['postgres', 'databases'],
  },
  { url: 'https://www.prisma.io/docs/orm/overview/databases/postgresql', title: 'Prisma and PostgreSQL', folder: 'Tools', tags: ['prisma', 'databases'] },
  { url: 'https://graphql.org/learn/pagination/', title: 'GraphQL pagination', folder: 'Tools', tags: ['graphql', 'api'], starred: true },
  {
    url: 'https://datatracker.ietf.org/doc/draft-ietf-httpapi-ratelimit-headers/',
    title: 'RateLimit header fields for HTTP',
    folder: 'Reading list',
    tags: ['api', 'http'],
  },
  {
    url: 'https://martinfowler.com/articles/patterns-of-distributed-systems/',
    title: 'Patterns of distributed systems',
    folder: 'Reading list',
    tags: ['architecture'],
  },
  {
    url: 'https://www.sec.gov/rules-regulations/2020/12/investment-adviser-marketing',
    title: 'SEC marketing rule',
    folder: 'Reading list',
    tags: ['compliance', 'performance'],
    starred: true,
  },
  { url: 'https://12factor.net/config', title: 'The twelve-factor app: config', tags: ['architecture', 'ops'] },
  { url: 'https://owasp.org/www-community/attacks/Server_Side_Request_Forgery', title: 'OWASP: server-side request forgery', tags: ['security'] },
  { url: 'https://www.rfc-editor.org/rfc/rfc9457', title: 'RFC 9457: problem details for HTTP APIs', tags: ['api', 'http'] },
];

export async function seedLinks(services: Services, userId: string): Promise<void> {
  const folderIds = new Map<string, string>();
  for (const name of FOLDERS) folderIds.set(name, (await services.links.createFolder(userId, name)).id);
  // Oldest first, so that the list (newest first) starts with the last entry.
  for (const link of LINKS) {
    await services.links.create(userId, {
      url: link.url,
      title: link.title,
      folderId: link.folder ? folderIds.get(link.folder) : null,
      tags: link.tags,
      starred: link.starred ?? false,
    });
  }
}
