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
import { imageSize } from 'image-size';
import { parseSubCommandLine, usageError } from '../../command-line.ts';
import { fail, speakOneLine } from './cli-failure.ts';
import { useLocalStack } from './running-stack.ts';

const TYPES: Record<string, string> = {
  jpg: 'image/jpeg',
  png: 'image/png',
  webp: 'image/webp',
  avif: 'image/avif',
};

const COMMAND = {
  name: 'npm run gallery',
  usage: `
Usage: npm run gallery -- <add|list> [options]

The industry gallery the media service reads. Talks to the running local stack, or to AWS when
TABLE_NAME and PHOTOS_BUCKET (and AWS credentials) are set.

  add --industry ID FILE [--alt TEXT]   add a JPEG, PNG, WebP or AVIF (type and size from the bytes)
  list [--industry ID]                  the gallery's photos (of one industry)
  -h, --help                            this text

Example:
  npm run gallery -- add --industry bakery ./croissant.jpg --alt "A croissant"
`,
};

speakOneLine();
const { subCommand, values, args } = parseSubCommandLine(
  COMMAND,
  {
    add: { summary: 'a photo', options: ['industry', 'alt'], args: ['FILE'] },
    list: { summary: 'the photos', options: ['industry'] },
  },
  { options: { industry: { type: 'string' }, alt: { type: 'string' } } },
);
if (values.industry !== undefined && !/^[A-Za-z0-9_-]{1,100}$/.test(values.industry))
  usageError(COMMAND, '--industry must be an id: letters, digits, - and _');
if (subCommand === 'add') {
  if (!values.industry) usageError(COMMAND, 'add needs --industry ID (letters, digits, - and _)');
  if (!existsSync(args[0] ?? '')) fail(`add needs an image file; '${args[0]}' does not exist`);
}
useLocalStack();
const [{ addGalleryPhoto }, { listGallery }] = await Promise.all([
  import('#lib/media/gallery-writes.ts'),
  import('#lib/media/gallery-store.ts'),
]);

switch (subCommand) {
  case 'add': {
    const file = args[0] as string;
    const industryId = values.industry as string;
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
      industryId,
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
}
