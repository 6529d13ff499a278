import { createHash, randomBytes } from 'node:crypto';
import { inject } from 'vitest';
import { addPhoto } from '#lib/media/photo-writes.ts';
import { api } from './api.ts';

/** The internal media API as the media service calls it: with the internal key. */
export const MEDIA = '/api/v1/internal/media';
const key = () => inject('harness').credentials.internal_api_key;

export const media = (path: string, headers: Record<string, string> = {}) =>
  api('GET', `${MEDIA}${path}`, { headers: { 'x-internal-api-key': key(), ...headers } });

export const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/** Fetch bytes as a client would (api() reads text), without following a redirect. */
export async function bytesOf(path: string, headers: Record<string, string> = {}) {
  const response = await fetch(`${inject('harness').baseUrl}${MEDIA}${path}`, {
    headers: { 'x-internal-api-key': key(), ...headers },
    redirect: 'manual',
  });
  return {
    status: response.status,
    headers: response.headers,
    body: Buffer.from(await response.arrayBuffer()),
  };
}

/** A 10×10 PNG-typed upload of random bytes to a business. */
export const upload = (businessId: string, bytes = randomBytes(2048)) =>
  addPhoto({ businessId, bytes, contentType: 'image/png', width: 10, height: 10, source: 'upload' });
