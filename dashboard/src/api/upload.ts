import { stringifyDocument, type TypedDocumentNode } from 'urql';
import { CSRF_HEADERS } from './client.ts';

export interface UploadProgress {
  loaded: number;
  total: number;
}

export interface GraphQLResponse<T> {
  data?: T | null;
  errors?: { message: string; extensions?: Record<string, unknown> }[];
}

/**
 * One GraphQL operation with a file, as a GraphQL multipart request
 * (https://github.com/jaydenseric/graphql-multipart-request-spec). XMLHttpRequest rather than
 * fetch because only XHR reports upload progress. `fileVariable` names the Upload variable; the
 * document's types (from the dashboard's typed `graphql()`) type the other variables and the result.
 */
export function uploadOperation<T, Variables, FileVariable extends keyof Variables & string>(options: {
  query: TypedDocumentNode<T, Variables>;
  variables: Omit<Variables, FileVariable>;
  fileVariable: FileVariable;
  file: File;
  onProgress?: (progress: UploadProgress) => void;
  signal?: AbortSignal;
}): Promise<GraphQLResponse<T>> {
  const form = new FormData();
  form.append('operations', JSON.stringify({ query: stringifyDocument(options.query), variables: { ...options.variables, [options.fileVariable]: null } }));
  form.append('map', JSON.stringify({ 0: [`variables.${options.fileVariable}`] }));
  form.append('0', options.file, options.file.name);

  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open('POST', '/graphql');
    xhr.withCredentials = true;
    xhr.responseType = 'text';
    for (const [name, value] of Object.entries(CSRF_HEADERS)) xhr.setRequestHeader(name, value);
    xhr.setRequestHeader('Accept', 'application/json');
    xhr.upload.onprogress = (event) => options.onProgress?.({ loaded: event.loaded, total: event.lengthComputable ? event.total : options.file.size });
    xhr.onerror = () => reject(new Error('The upload could not reach the service. Check your connection and try again.'));
    xhr.onabort = () => reject(new DOMException('The upload was cancelled.', 'AbortError'));
    xhr.onload = () => {
      try {
        resolve(JSON.parse(xhr.responseText) as GraphQLResponse<T>);
      } catch {
        reject(new Error(`The service answered ${xhr.status} ${xhr.statusText || ''}`.trim()));
      }
    };
    options.signal?.addEventListener('abort', () => xhr.abort(), { once: true });
    xhr.send(form);
  });
}
