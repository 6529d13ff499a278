import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { INLINE_LIMIT_BYTES, PAYLOAD_CEILING_BYTES } from '#lib/media/inline-limit.ts';
import type { HarnessInfo } from '../infra/local/harness-process.ts';
import { NETWORK_DELAY_MS } from './edits-apply.ts';
import { type Spread, spread } from './stats.ts';

/**
 * The client ↔ region round trip: the bench waits this long before every request its client sends
 * (to the API and to S3 alike; both are in the region). 30 ms is a client on the same continent as
 * the region over the internet (a media service hosted elsewhere, a browser); a client inside the
 * region would see a few ms.
 */
export const CLIENT_ROUND_TRIP_MS = 30;

/** Photo sizes measured, small to large; 4 MB is the largest photo an import takes. */
export const PHOTO_SIZES_BYTES = [16, 64, 256, 512, 1024, 1536, 2048, 4096].map(
  (kilobytes) => kilobytes * 1024,
);

/** The target: every photo, as the service answers it, within this many bare GetObjects. */
export const PHOTO_TARGET_RATIO = 1.5;

export interface PhotoDeliveryRow {
  bytes: number;
  /** 200 with the bytes, through the function (ms, client round trip included). */
  inline: Spread;
  /** 303, then the presigned GET of its Location (ms, both requests and both round trips). */
  redirect: Spread;
  /** GetObject of the same object from the client (ms, one client round trip included). */
  bare: Spread;
  /** Per run, inline over the same run's bare GetObject; likewise redirect. */
  inlineRatio: Spread;
  redirectRatio: Spread;
  /** What the service answers for this size with its own inline limit. */
  serviceAnswer: 'inline' | '303';
}

export interface PhotoDelivery {
  rows: PhotoDeliveryRow[];
  runs: number;
  inlineLimitBytes: number;
  payloadCeilingBytes: number;
}

/**
 * Inline against 303 at every size, through the harness, under the bench's model of the network:
 * the client waits CLIENT_ROUND_TRIP_MS before each request it sends, and the function's DynamoDB
 * and S3 calls each wait NETWORK_DELAY_MS (x-local-network-delay-ms). Each request forces its
 * answer with x-local-photo-inline-limit-bytes (the payload ceiling: inline; 0: 303), which only the
 * local harness honours. Sizes are measured round by round, the three ways interleaved in a
 * rotating order, after one unmeasured round.
 */
export async function measurePhotoDelivery(harness: HarnessInfo, runs: number): Promise<PhotoDelivery> {
  Object.assign(process.env, harness.env);
  const { addPhoto } = await import('#lib/media/photo-writes.ts');
  const { GetObjectCommand } = await import('@aws-sdk/client-s3');
  const { photoObjectKey, photosBucket, s3 } = await import('#lib/storage/photo-bucket.ts');
  const business = harness.credentials.businesses[0];
  if (!business) throw new Error('no demo business');
  const headers = {
    'x-internal-api-key': harness.credentials.internal_api_key,
    'x-local-network-delay-ms': String(NETWORK_DELAY_MS),
  };

  const expectBytes = (what: string, received: number, expected: number) => {
    if (received !== expected) throw new Error(`${what}: ${received} bytes, expected ${expected}`);
  };
  const timed = async (work: () => Promise<void>) => {
    const started = performance.now();
    await work();
    return performance.now() - started;
  };

  const rows: PhotoDeliveryRow[] = [];
  for (const size of PHOTO_SIZES_BYTES) {
    const photo = await addPhoto({
      businessId: business.id,
      bytes: randomBytes(size),
      contentType: 'image/jpeg',
      source: 'upload',
    });
    const url = `${harness.baseUrl}/api/v1/internal/media/photos/${photo.id}/bytes`;
    const ways = {
      inline: async () => {
        await sleep(CLIENT_ROUND_TRIP_MS);
        const response = await fetch(url, {
          headers: { ...headers, 'x-local-photo-inline-limit-bytes': String(PAYLOAD_CEILING_BYTES) },
        });
        if (response.status !== 200) throw new Error(`inline answered ${response.status}`);
        expectBytes('inline', (await response.arrayBuffer()).byteLength, size);
      },
      redirect: async () => {
        await sleep(CLIENT_ROUND_TRIP_MS);
        const response = await fetch(url, {
          headers: { ...headers, 'x-local-photo-inline-limit-bytes': '0' },
          redirect: 'manual',
        });
        await response.arrayBuffer();
        const location = response.headers.get('location');
        if (response.status !== 303 || !location) throw new Error(`redirect answered ${response.status}`);
        await sleep(CLIENT_ROUND_TRIP_MS);
        const object = await fetch(location);
        if (object.status !== 200) throw new Error(`the presigned GET answered ${object.status}`);
        expectBytes('redirect', (await object.arrayBuffer()).byteLength, size);
      },
      bare: async () => {
        await sleep(CLIENT_ROUND_TRIP_MS);
        const object = await s3.send(
          new GetObjectCommand({ Bucket: photosBucket, Key: photoObjectKey(business.id, photo.id) }),
        );
        expectBytes('bare', (await object.Body?.transformToByteArray())?.byteLength ?? 0, size);
      },
    };
    // One unmeasured round: the forced containers start cold, and the object is read once.
    for (const way of [ways.inline, ways.redirect, ways.bare]) await way();
    const samples = { inline: [] as number[], redirect: [] as number[], bare: [] as number[] };
    for (let run = 0; run < runs; run++) {
      const measured: Partial<Record<keyof typeof samples, number>> = {};
      for (let turn = 0; turn < 3; turn++) {
        const name = (['inline', 'redirect', 'bare'] as const)[(run + turn) % 3] as keyof typeof samples;
        measured[name] = await timed(ways[name]);
      }
      for (const name of ['inline', 'redirect', 'bare'] as const) samples[name].push(measured[name] ?? NaN);
    }
    const ratios = (of: number[]) => of.map((ms, run) => ms / (samples.bare[run] ?? NaN));
    rows.push({
      bytes: size,
      inline: spread(samples.inline),
      redirect: spread(samples.redirect),
      bare: spread(samples.bare),
      inlineRatio: spread(ratios(samples.inline)),
      redirectRatio: spread(ratios(samples.redirect)),
      serviceAnswer: size <= INLINE_LIMIT_BYTES ? 'inline' : '303',
    });
  }
  return { rows, runs, inlineLimitBytes: INLINE_LIMIT_BYTES, payloadCeilingBytes: PAYLOAD_CEILING_BYTES };
}

/**
 * The least × bare GetObject any answer of the service could reach under the bench's model, from a
 * bare GetObject of `bareMs` (one client round trip and S3's own time): the function must read the
 * photo's owner pointer before its object, since the pointer holds the business that names the
 * object's key and the deletion that answers 410. So inline pays both in-region calls on top of a
 * bare read, and the 303 pays its own client round trip and the pointer's call before the client's
 * read. Nothing else is counted: the function's own work, DynamoDB's time, base64 and the API's are
 * all taken as free, so a measured answer can only be slower.
 */
export function leastRatioAllowed(bareMs: number): { inline: number; redirect: number } {
  return {
    inline: (bareMs + 2 * NETWORK_DELAY_MS) / bareMs,
    redirect: (bareMs + CLIENT_ROUND_TRIP_MS + NETWORK_DELAY_MS) / bareMs,
  };
}

/** ms = fixedMs + msPerMegabyte × size in MB: a least-squares line through the medians of one way. */
export interface LinearCost {
  fixedMs: number;
  msPerMegabyte: number;
}

export function fitCost(rows: PhotoDeliveryRow[], way: 'inline' | 'redirect'): LinearCost {
  const points = rows.map((row) => ({ x: row.bytes / (1024 * 1024), y: row[way].median }));
  const meanX = points.reduce((sum, p) => sum + p.x, 0) / points.length;
  const meanY = points.reduce((sum, p) => sum + p.y, 0) / points.length;
  const covariance = points.reduce((sum, p) => sum + (p.x - meanX) * (p.y - meanY), 0);
  const variance = points.reduce((sum, p) => sum + (p.x - meanX) ** 2, 0);
  const msPerMegabyte = covariance / variance;
  return { fixedMs: meanY - msPerMegabyte * meanX, msPerMegabyte };
}

/**
 * The size from which the 303 is the faster answer, where the two fitted lines cross, for a client
 * `roundTripMs` away: only the 303 pays the client round trip twice, so another round trip moves its
 * line by the difference. 0 when the 303 is faster at every size; undefined when it never is.
 */
export function crossoverBytes(
  inline: LinearCost,
  redirect: LinearCost,
  roundTripMs = CLIENT_ROUND_TRIP_MS,
): number | undefined {
  const extra = redirect.fixedMs + (roundTripMs - CLIENT_ROUND_TRIP_MS) - inline.fixedMs;
  const slower = inline.msPerMegabyte - redirect.msPerMegabyte;
  if (slower <= 0) return undefined;
  return Math.max(0, extra / slower) * 1024 * 1024;
}
