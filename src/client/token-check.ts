// The one rule for what getToken() gave: a token (token.ts's plausibleToken, the only part loaded up front), a mistake
// in the game's code (named, with the fix), the player not signed in (auth:required), or no network (retried as
// offline, never a sign-in prompt). The transport loads this module by import() only when getToken() failed or gave
// no token: its words cost a game nothing until then.
import type { Verdict } from '../protocol/status.js';
import { QuestPointsError } from './errors.js';

const FIX = 'use tokenFrom(url) for a route that answers JSON { "token": "..." }';

const mistake = (what: string, fix: string) => new QuestPointsError(`getToken returned ${what}, not a token: ${fix}`, 'auth');

/**
 * For a value token-check.ts's plausibleToken() refused: a QuestPointsError 'auth' naming the mistake and its fix: HTML (a dev server's
 * index.html for a route that does not exist), JSON text (a `{ token }` body read with `.text()`), nothing or only
 * whitespace, an Error returned instead of thrown, anything else that is no bearer token.
 */
export function checkToken(value: unknown): never {
  if (value instanceof Error) return thrownAsValue(value);
  if (typeof value !== 'string') throw mistake(value === null ? 'null' : typeof value, `return the token string; ${FIX}`);
  const token = value.trim();
  if (!token) throw mistake('an empty string', `is the player signed in, and does the token route answer a token? ${FIX}`);
  if (token.startsWith('<'))
    throw mistake('HTML', `does the token route exist (a dev server answers index.html for a route it does not have)? ${FIX}`);
  if (/^[{["]/.test(token)) throw mistake('JSON text', `read its "token" field, or ${FIX}`);
  throw mistake('text with spaces or characters a bearer token cannot have', FIX);
}

function thrownAsValue(error: Error): never {
  throw mistake(`an Error (${error.message})`, `throw it (or reject) instead of returning it; ${FIX}`);
}

/** Errors fetch() raises when there is no network: Chromium, Firefox and Safari word it differently. */
const NO_NETWORK = /failed to fetch|networkerror|network error|load failed|network connection was lost|internet/i;

/**
 * What a getToken() failure means. No network (fetch's TypeError, the browser offline, tokenFrom's 'network') or no
 * answer in time: QuestPointsError 'network' / 'timeout', retried as offline. A token route that answered a status
 * the protocol retries (408, 429, 5xx): 'http', retried, online. Anything else (401/403: no session; the game's own
 * error; a mistake named by checkToken): 'auth', the player must sign in (auth:required). `verdict`: the protocol's
 * status policy (statusVerdict), handed in so this chunk shares no module with the entry but errors.ts.
 */
export function tokenFailure(error: unknown, verdict: (status: number) => Verdict): QuestPointsError {
  const { name = '', message = String(error) } = (error ?? {}) as Error;
  if (error instanceof QuestPointsError) {
    if (error.code === 'network' || error.code === 'timeout') return error;
    // A mistake checkToken named says so itself; another refusal (tokenFrom's 401/403) is told as getToken's.
    if (error.code === 'auth')
      return message.startsWith('getToken') ? error : new QuestPointsError(`getToken() failed: ${message}`, 'auth', error.status);
    if (error.code === 'http' && error.status !== undefined && verdict(error.status) === 'retry') return error;
  }
  if (name === 'TimeoutError' || name === 'AbortError') return new QuestPointsError(`getToken() timed out: ${message}`, 'timeout');
  const offline = typeof navigator !== 'undefined' && navigator.onLine === false;
  if (offline || name === 'NetworkError' || (name === 'TypeError' && NO_NETWORK.test(message)))
    return new QuestPointsError(`getToken() failed, no network: ${message}`, 'network');
  return new QuestPointsError(`getToken() failed: ${message}`, 'auth', (error as QuestPointsError).status);
}
