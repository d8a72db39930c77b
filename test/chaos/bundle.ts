import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';

const here = fileURLToPath(new URL('.', import.meta.url));
const cache = new Map<string, Promise<string>>();

/** The page scripts (SDK included) bundled for Chromium, once per process. */
export function pageBundle(name: 'ours' | 'naive'): Promise<string> {
  let bundle = cache.get(name);
  if (!bundle) {
    bundle = build({
      entryPoints: [`${here}pages/${name}.ts`],
      bundle: true,
      write: false,
      format: 'esm',
      platform: 'browser',
      target: 'chrome120',
      logLevel: 'silent',
    }).then((result) => result.outputFiles[0]!.text);
    cache.set(name, bundle);
  }
  return bundle;
}
