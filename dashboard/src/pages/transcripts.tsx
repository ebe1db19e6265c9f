import { useRoute } from 'wouter';
import { TranscriptList } from './transcripts/list.tsx';
import { TranscriptView } from './transcripts/view.tsx';
import './transcripts/transcripts.css';

/** /transcripts lists the meetings (and imports one); /transcripts/<id> reads one. */
export default function TranscriptsPage() {
  const [open, params] = useRoute('/transcripts/:id');
  return open ? <TranscriptView id={params.id} /> : <TranscriptList />;
}
