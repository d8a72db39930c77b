import { build } from 'esbuild';

const cache = new Map<string, Promise<string>>();

/** A page script (the SDK included) bundled for Chromium, once per file and process. */
export function browserBundle(entry: string): Promise<string> {
  let bundle = cache.get(entry);
  if (!bundle) {
    bundle = build({
      entryPoints: [entry],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: 'chrome120',
      logLevel: 'silent',
    }).then((result) => result.outputFiles[0]!.text);
    cache.set(entry, bundle);
  }
  return bundle;
}
