import { build, type BuildOptions } from 'esbuild';

/** How a page script is bundled for the tests' Chromium: one ESM file, in memory. */
export const BROWSER_BUNDLE = {
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'browser',
  target: 'chrome120',
  logLevel: 'silent',
} as const satisfies BuildOptions;

const cache = new Map<string, Promise<string>>();

/** A page script (the SDK included) bundled for Chromium, once per file and process. */
export function browserBundle(entry: string): Promise<string> {
  let bundle = cache.get(entry);
  if (!bundle) {
    bundle = build({ ...BROWSER_BUNDLE, entryPoints: [entry] }).then((result) => result.outputFiles[0]!.text);
    cache.set(entry, bundle);
  }
  return bundle;
}
