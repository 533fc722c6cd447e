/** Draws the toolbar icon (a page with a lens) as PNGs, so the repository holds no binary images. */
import { deflateSync } from 'node:zlib';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';

function crc32(buf) {
  let c = ~0;
  for (const b of buf) {
    c ^= b;
    for (let k = 0; k < 8; k++) c = (c >>> 1) ^ (0xedb88320 & -(c & 1));
  }
  return ~c >>> 0;
}

function chunk(type, data) {
  const len = Buffer.alloc(4);
  len.writeUInt32BE(data.length);
  const td = Buffer.concat([Buffer.from(type), data]);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(td));
  return Buffer.concat([len, td, crc]);
}

function png(size, pixel) {
  const raw = Buffer.alloc((size * 4 + 1) * size);
  for (let y = 0; y < size; y++) {
    raw[y * (size * 4 + 1)] = 0;
    for (let x = 0; x < size; x++) {
      const [r, g, b, a] = pixel((x + 0.5) / size, (y + 0.5) / size);
      raw.set([r, g, b, a], y * (size * 4 + 1) + 1 + x * 4);
    }
  }
  const ihdr = Buffer.alloc(13);
  ihdr.writeUInt32BE(size, 0);
  ihdr.writeUInt32BE(size, 4);
  ihdr[8] = 8;
  ihdr[9] = 6;
  return Buffer.concat([Buffer.from([137, 80, 78, 71, 13, 10, 26, 10]), chunk('IHDR', ihdr), chunk('IDAT', deflateSync(raw)), chunk('IEND', Buffer.alloc(0))]);
}

function icon(x, y) {
  // Rounded square background.
  const r = 0.2;
  const dx = Math.max(Math.abs(x - 0.5) - (0.5 - r), 0);
  const dy = Math.max(Math.abs(y - 0.5) - (0.5 - r), 0);
  if (dx * dx + dy * dy > r * r) return [0, 0, 0, 0];
  // Lens ring and handle in white.
  const d = Math.hypot(x - 0.44, y - 0.42);
  const ring = d > 0.17 && d < 0.25;
  const t = (x - 0.6 + (y - 0.6)) / 2;
  const hx = 0.6 + t, hy = 0.6 + t;
  const handle = t > 0 && t < 0.17 && Math.hypot(x - hx, y - hy) < 0.055;
  if (ring || handle) return [255, 255, 255, 255];
  // Text lines inside the lens.
  if (d < 0.17 && [0.37, 0.44, 0.51].some((ly) => Math.abs(y - ly) < 0.018) && Math.abs(x - 0.44) < 0.1) return [255, 255, 255, 220];
  return [36, 88, 214, 255];
}

export async function makeIcons(dir) {
  await mkdir(dir, { recursive: true });
  for (const s of [16, 32, 48, 128]) await writeFile(join(dir, `${s}.png`), png(s, icon));
}
