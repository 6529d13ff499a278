/**
 * `npm run gallery -- <command>`: the industry gallery the media service reads.
 *
 *   add --industry ID FILE [--alt TEXT]   a JPEG, PNG, WebP or AVIF (type and size from the bytes)
 *   list [--industry ID]
 *
 * Talks to the running local stack, or to AWS when TABLE_NAME and PHOTOS_BUCKET (and AWS
 * credentials) are set.
 */
import { existsSync, readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { imageSize } from 'image-size';
import { fail, speakOneLine } from './cli-failure.ts';
import { useLocalStack } from './running-stack.ts';

const TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
};

speakOneLine();
const { values, positionals } = parseArgs({
  options: { industry: { type: 'string' }, alt: { type: 'string' } },
  allowPositionals: true,
});
useLocalStack();
const [{ addGalleryPhoto }, { listGallery }] = await Promise.all([
  import('#lib/media/gallery-writes.ts'),
  import('#lib/media/gallery-store.ts'),
]);

switch (positionals[0]) {
  case 'add': {
    const file = positionals[1];
    if (!values.industry || !/^[A-Za-z0-9_-]{1,100}$/.test(values.industry)) {
      fail('add needs --industry ID (letters, digits, - and _)');
    }
    if (!file || !existsSync(file)) fail(`add needs an image file; '${file ?? ''}' does not exist`);
    const bytes = readFileSync(file);
    let detected: ReturnType<typeof imageSize> | undefined;
    try {
      detected = imageSize(bytes);
    } catch {
      detected = undefined;
    }
    const contentType = detected?.type ? TYPES[detected.type] : undefined;
    if (!contentType) fail(`${file} is not a JPEG, PNG, WebP or AVIF image`);
    const photo = await addGalleryPhoto({
      industryId: values.industry,
      bytes,
      contentType,
      width: detected?.width ?? null,
      height: detected?.height ?? null,
      altText: values.alt ?? null,
    });
    console.log(JSON.stringify(photo, null, 2));
    break;
  }
  case 'list':
    console.log(
      JSON.stringify((await listGallery({ industryId: values.industry, limit: 500 })).items, null, 2),
    );
    break;
  default:
    fail('use: add --industry ID FILE [--alt TEXT] | list [--industry ID]');
}
