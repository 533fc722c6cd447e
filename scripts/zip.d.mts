import type { Dirent } from 'node:fs';
export function listFiles(dir: string, skip?: (rel: string, entry: Dirent) => boolean): Promise<string[]>;
export function zipFiles(dir: string, files: readonly string[]): Promise<Buffer>;
export function zipEntryNames(buf: Buffer): string[];
