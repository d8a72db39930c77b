import { ConfigError } from '../../kit/errors.js';

/**
 * An optional peer dependency, imported only by the feature that needs it: `npm install quest-points` for the SDK
 * stays free of server libraries. Missing -> one line naming the package to install and what it is for.
 */
export async function importPeer<T>(name: string, load: () => Promise<T>, neededFor: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (!isModuleNotFound(error, name)) throw error;
    throw new ConfigError(name, 'missing', `${neededFor} needs the "${name}" package: npm install ${name}`);
  }
}

function isModuleNotFound(error: unknown, name: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (code !== 'ERR_MODULE_NOT_FOUND' && code !== 'MODULE_NOT_FOUND') return false;
  // Only the peer itself: a broken install of one of its own dependencies must keep its own message.
  return typeof message === 'string' && (message.includes(`'${name}'`) || message.includes(`"${name}"`));
}
