import { useCallback, useEffect, useRef, useState } from 'react';
import { uploadOperation, type GraphQLResponse } from '../../api/upload.ts';
import { formatBytes } from '../../components/format.ts';
import { UploadFileMutation, type FileType, type UploadedFile } from './queries.ts';

export type UploadState = 'refused' | 'waiting' | 'sending' | 'sent' | 'failed' | 'cancelled';

export interface UploadItem {
  key: string;
  name: string;
  size: number;
  orgName: string;
  state: UploadState;
  loaded: number;
  message?: string;
  /** The stored file, once the service accepted it. */
  file?: UploadedFile;
  sessionEnded?: boolean;
}

interface Job {
  file: File;
  orgId: string;
  fileType: FileType | null;
}

export interface EnqueueOptions {
  orgId: string;
  orgName: string;
  fileType: FileType | null;
  /** Unknown when the limits could not be loaded: the service still enforces its limit. */
  maxBytes: number | undefined;
  uploadsPerMinute: number | undefined;
}

let sequence = 0;

/**
 * Files go out one at a time, in the order they were chosen: each gets its own progress bar,
 * and a batch does not spend the whole upload rate budget in one burst of parallel requests.
 */
export function useUploadQueue(onDone: (item: UploadItem) => void) {
  const [items, setItems] = useState<UploadItem[]>([]);
  const jobs = useRef(new Map<string, Job>());
  const controllers = useRef(new Map<string, AbortController>());
  const busy = useRef(false);
  const perMinute = useRef<number | undefined>(undefined);
  const onDoneRef = useRef(onDone);
  onDoneRef.current = onDone;

  const update = useCallback((key: string, patch: Partial<UploadItem>) => {
    setItems((list) => list.map((item) => (item.key === key ? { ...item, ...patch } : item)));
  }, []);

  useEffect(() => {
    if (busy.current) return;
    const next = items.find((item) => item.state === 'waiting');
    const job = next && jobs.current.get(next.key);
    if (!next || !job) return;
    busy.current = true;
    const controller = new AbortController();
    controllers.current.set(next.key, controller);
    update(next.key, { state: 'sending' });
    void send(job, controller.signal, perMinute.current, (loaded) => update(next.key, { loaded })).then((outcome) => {
      busy.current = false;
      jobs.current.delete(next.key);
      controllers.current.delete(next.key);
      update(next.key, outcome);
      onDoneRef.current({ ...next, ...outcome });
    });
  }, [items, update]);

  // Leaving the page stops uploads still under way rather than letting them finish unseen.
  useEffect(() => {
    const running = controllers.current;
    return () => running.forEach((controller) => controller.abort());
  }, []);

  const enqueue = useCallback((files: File[], options: EnqueueOptions) => {
    perMinute.current = options.uploadsPerMinute;
    const added = files.map((file): UploadItem => {
      sequence += 1;
      const key = `upload-${sequence}`;
      const base = { key, name: file.name, size: file.size, orgName: options.orgName, loaded: 0 };
      if (options.maxBytes !== undefined && file.size > options.maxBytes) {
        return {
          ...base,
          state: 'refused',
          message: `${formatBytes(file.size)} is over the upload limit of ${formatBytes(options.maxBytes)}. It was not sent.`,
        };
      }
      if (file.size === 0) return { ...base, state: 'refused', message: 'The file is empty. It was not sent.' };
      jobs.current.set(key, { file, orgId: options.orgId, fileType: options.fileType });
      return { ...base, state: 'waiting' };
    });
    setItems((list) => [...added.reverse(), ...list]);
    return added;
  }, []);

  const cancel = useCallback((key: string) => {
    const controller = controllers.current.get(key);
    if (controller) return controller.abort();
    jobs.current.delete(key);
    setItems((list) => list.filter((item) => item.key !== key));
  }, []);

  const clearFinished = useCallback(() => {
    setItems((list) => list.filter((item) => item.state === 'waiting' || item.state === 'sending'));
  }, []);

  return { items, enqueue, cancel, clearFinished };
}

async function send(job: Job, signal: AbortSignal, perMinute: number | undefined, onProgress: (loaded: number) => void): Promise<Partial<UploadItem>> {
  try {
    const response = await uploadOperation({
      query: UploadFileMutation,
      variables: { orgId: job.orgId, fileType: job.fileType },
      fileVariable: 'file',
      file: job.file,
      signal,
      onProgress: (progress) => onProgress(progress.loaded),
    });
    const stored = response.data?.uploadFile;
    if (stored && !response.errors?.length) return { state: 'sent', file: stored, loaded: job.file.size };
    return { state: 'failed', ...uploadError(response, perMinute) };
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') return { state: 'cancelled', message: 'Cancelled before the service stored it.' };
    return { state: 'failed', message: error instanceof Error ? error.message : String(error) };
  }
}

/** The service's refusal in words a person can act on (the codes are in schema/schema.graphql and src/errors.ts). */
export function uploadError(response: GraphQLResponse<unknown>, perMinute?: number): { message: string; sessionEnded?: boolean } {
  const error = response.errors?.[0];
  if (!error) return { message: 'The service did not store the file and gave no reason. Try again.' };
  const code = error.extensions?.code;
  const retry = error.extensions?.retryAfterSeconds;
  switch (code) {
    case 'PAYLOAD_TOO_LARGE': {
      const max = error.extensions?.maxBytes;
      return { message: `Too large: the service accepts files up to ${typeof max === 'number' ? formatBytes(max) : 'its upload limit'}. Nothing was stored.` };
    }
    case 'RATE_LIMITED':
      return {
        message: `Too many uploads${perMinute ? ` (the limit is ${perMinute} a minute)` : ''}.${typeof retry === 'number' ? ` Try again in ${retry} s.` : ' Try again in a minute.'}`,
      };
    case 'UNSUPPORTED_MEDIA_TYPE':
      return { message: `Not a file the service can read. ${error.message}` };
    case 'BAD_USER_INPUT':
      return { message: `Refused: ${error.message}` };
    case 'FORBIDDEN':
      return { message: 'You may not upload files to this organization (the upload permission or membership is missing).' };
    case 'UNAUTHENTICATED':
      return { message: 'Your session has ended, so the file was not sent.', sessionEnded: true };
    default:
      return { message: error.message };
  }
}
