export { png } from '../../infra/local/demo-images.ts';

/**
 * Small images made in the test, one per accepted type. The PNG (shared with the demo data) is a
 * complete, decodable image;
 * the JPEG, WebP and AVIF carry real headers (signature, dimensions) around a token payload, which
 * is what a type check by magic bytes and a dimension read from the header look at.
 */
const u32 = (value: number) => {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32BE(value);
  return buffer;
};
const u16 = (value: number) => Buffer.from([value >> 8, value & 0xff]);

export function jpeg(width: number, height: number): Buffer {
  const app0 = Buffer.concat([
    Buffer.from([0xff, 0xe0]),
    u16(16),
    Buffer.from('JFIF\0', 'latin1'),
    Buffer.from([1, 1, 0, 0, 1, 0, 1, 0, 0]),
  ]);
  const sof0 = Buffer.concat([
    Buffer.from([0xff, 0xc0]),
    u16(11),
    Buffer.from([8]),
    u16(height),
    u16(width),
    Buffer.from([1, 1, 0x11, 0]),
  ]);
  return Buffer.concat([Buffer.from([0xff, 0xd8]), app0, sof0, Buffer.from([0xff, 0xd9])]);
}

export function webp(width: number, height: number): Buffer {
  // VP8L (lossless): signature 0x2f, then width-1 and height-1 in 14 bits each.
  const bits = ((width - 1) & 0x3fff) | (((height - 1) & 0x3fff) << 14);
  const vp8l = Buffer.concat([
    Buffer.from([0x2f]),
    Buffer.from([bits & 0xff, (bits >> 8) & 0xff, (bits >> 16) & 0xff, (bits >> 24) & 0xff]),
    Buffer.alloc(8),
  ]);
  const chunk = Buffer.concat([Buffer.from('VP8L', 'ascii'), le32(vp8l.length), vp8l]);
  return Buffer.concat([
    Buffer.from('RIFF', 'ascii'),
    le32(4 + chunk.length),
    Buffer.from('WEBP', 'ascii'),
    chunk,
  ]);
}

export function avif(width: number, height: number): Buffer {
  const box = (type: string, ...parts: Buffer[]) => {
    const body = Buffer.concat(parts);
    return Buffer.concat([u32(8 + body.length), Buffer.from(type, 'ascii'), body]);
  };
  const ftyp = box('ftyp', Buffer.from('avif', 'ascii'), u32(0), Buffer.from('avifmif1miaf', 'ascii'));
  const ispe = box('ispe', u32(0), u32(width), u32(height));
  const meta = box('meta', u32(0), box('iprp', box('ipco', ispe)));
  return Buffer.concat([ftyp, meta]);
}

function le32(value: number) {
  const buffer = Buffer.alloc(4);
  buffer.writeUInt32LE(value);
  return buffer;
}
