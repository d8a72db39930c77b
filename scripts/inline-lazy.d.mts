// The type of scripts/inline-lazy.mjs (bench/sdk.bench.ts measures sw.js with it, as scripts/build-sw.mjs builds it).
import type { Plugin } from 'esbuild';

export declare const inlineLazy: Plugin;
