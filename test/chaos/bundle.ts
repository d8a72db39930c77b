import { fileURLToPath } from 'node:url';
import { browserBundle } from '../helpers/bundle.js';

const here = fileURLToPath(new URL('.', import.meta.url));

/** The page scripts and the pages' service worker (SDK included) bundled for Chromium, once per process. */
export const pageBundle = (name: 'ours' | 'naive' | 'worker'): Promise<string> => browserBundle(`${here}pages/${name}.ts`);
