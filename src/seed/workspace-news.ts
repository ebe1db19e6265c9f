/**
 * Demo news articles for the demo admin: about two weeks of items from a few sources and tags,
 * so that `GET /api/news/digest` (the last seven days) and the previous ISO week both have
 * something to group. Publication times are relative to `now`.
 */
import type { Services } from '../services.ts';

interface DemoArticle {
  title: string;
  url: string;
  source: string;
  summary: string;
  tags: string[];
  /** Hours before now. */
  hoursAgo: number;
}

const ARTICLES: DemoArticle[] = [
  {
    title: 'Central bank holds rates, signals patience on cuts',
    url: 'https://news.example.com/markets/central-bank-holds-rates',
    source: 'Market Wire',
    summary: 'Policy makers kept the benchmark rate unchanged and said inflation data would guide the timing of any cut.',
    tags: ['rates', 'macro'],
    hoursAgo: 5,
  },
  {
    title: 'Bond yields slip after softer inflation print',
    url: 'https://news.example.com/markets/bond-yields-slip',
    source: 'Market Wire',
    summary: 'Ten-year yields fell eight basis points as core inflation came in below forecasts.',
    tags: ['rates', 'fixed-income'],
    hoursAgo: 20,
  },
  {
    title: 'Custodians move to daily performance files',
    url: 'https://fintech.example.org/custody/daily-performance-files',
    source: 'Fintech Daily',
    summary: 'Several custodians now deliver daily returns files, narrowing the gap with internal calculations.',
    tags: ['performance', 'operations'],
    hoursAgo: 30,
  },
  {
    title: 'Private credit fundraising cools in the third quarter',
    url: 'https://news.example.com/alternatives/private-credit-q3',
    source: 'Market Wire',
    summary: 'New commitments fell for a second quarter as managers deployed existing capital.',
    tags: ['private-markets'],
    hoursAgo: 50,
  },
  {
    title: 'Regulator publishes FAQ on performance advertising',
    url: 'https://regwatch.example.net/performance-advertising-faq',
    source: 'Reg Watch',
    summary: 'The FAQ clarifies net-of-fee presentation and the treatment of extracted performance.',
    tags: ['compliance', 'performance'],
    hoursAgo: 72,
  },
  {
    title: 'Why reconciliation breaks cluster around month end',
    url: 'https://fintech.example.org/operations/month-end-breaks',
    source: 'Fintech Daily',
    summary: 'Late trade bookings and pricing changes explain most month-end differences, a survey finds.',
    tags: ['operations', 'reconciliation'],
    hoursAgo: 96,
  },
  {
    title: 'Equity markets close the week at a record',
    url: 'https://news.example.com/markets/equities-record-week',
    source: 'Market Wire',
    summary: 'Broad indices rose for a fourth straight week, led by technology and industrials.',
    tags: ['equities', 'macro'],
    hoursAgo: 120,
  },
  {
    title: 'Family offices raise allocations to infrastructure',
    url: 'https://wealth.example.com/family-offices-infrastructure',
    source: 'Wealth Review',
    summary: 'A poll of 150 family offices shows infrastructure overtaking real estate in planned allocations.',
    tags: ['private-markets', 'allocation'],
    hoursAgo: 150,
  },
  {
    title: 'Time-weighted or money-weighted? A practitioner guide',
    url: 'https://wealth.example.com/guides/twr-vs-mwr',
    source: 'Wealth Review',
    summary: 'When each return measure is appropriate, and why clients often see both.',
    tags: ['performance', 'returns'],
    hoursAgo: 190,
  },
  {
    title: 'Operational resilience rules take effect',
    url: 'https://regwatch.example.net/operational-resilience',
    source: 'Reg Watch',
    summary: 'Firms must now map important business services and test their impact tolerances.',
    tags: ['compliance', 'operations'],
    hoursAgo: 230,
  },
  {
    title: 'Dollar steadies as traders trim rate bets',
    url: 'https://news.example.com/markets/dollar-steadies',
    source: 'Market Wire',
    summary: 'The dollar index was little changed after a volatile week in currency markets.',
    tags: ['fx', 'macro'],
    hoursAgo: 260,
  },
  {
    title: 'Data lineage becomes a board-level topic',
    url: 'https://fintech.example.org/data/lineage-board',
    source: 'Fintech Daily',
    summary: 'Audit committees are asking where reported figures come from, and how they are checked.',
    tags: ['data', 'operations'],
    hoursAgo: 300,
  },
];

export async function seedNews(services: Services, userId: string, now: Date = new Date()): Promise<void> {
  for (const article of ARTICLES) {
    await services.news.create(
      userId,
      {
        title: article.title,
        url: article.url,
        source: article.source,
        summary: article.summary,
        tags: article.tags,
        publishedAt: new Date(now.getTime() - article.hoursAgo * 3_600_000),
      },
      now,
    );
  }
}
