import type { Plugin } from 'vite';
export function vendorPatches(): Plugin;
