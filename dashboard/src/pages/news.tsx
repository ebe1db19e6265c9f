import { useState } from 'react';
import { Page } from '../components/page.tsx';
import { Digest } from './news/digest.tsx';
import { Articles, type ArticleFilters } from './news/articles.tsx';
import { AddArticleForm } from './news/add-form.tsx';
import './news/news.css';

export default function NewsPage() {
  const [adding, setAdding] = useState(false);
  const [filters, setFilters] = useState<ArticleFilters>({ source: '', tag: '' });
  // Picking a tag or source in the digest filters the article list and takes the reader there.
  const show = (next: ArticleFilters) => {
    setFilters(next);
    document.getElementById('articles')?.scrollIntoView({ behavior: 'smooth', block: 'start' });
  };
  return (
    <Page
      title="News"
      intro="Articles you saved, and a weekly digest by tag and source. The service never fetches the pages."
      actions={
        <button type="button" aria-expanded={adding} aria-controls="add-article" onClick={() => setAdding((open) => !open)}>
          {adding ? 'Close the form' : 'Add an article'}
        </button>
      }
    >
      {adding && <AddArticleForm onClose={() => setAdding(false)} />}
      <Digest onTag={(tag) => show({ source: '', tag })} onSource={(source) => show({ source, tag: '' })} />
      <Articles filters={filters} onFilters={setFilters} />
    </Page>
  );
}
