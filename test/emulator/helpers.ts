import { expect } from 'vitest';
import { createEmulator, type EmulatorOptions } from '../../src/emulator/index.js';
import { API_KEY } from '../helpers/fixtures.js';

export interface Call {
  status: number;
  // biome-ignore lint/suspicious/noExplicitAny: the parsed JSON of an answer under test; each test asserts the shape it reads
  body: any;
  headers: Headers;
}

export type Send = (
  method: string,
  path: string,
  options?: { body?: unknown; raw?: string; headers?: Record<string, string>; apiKey?: string | null },
) => Promise<Call>;

/** An emulator and a `send` that speaks to it in-process with the test API key and JSON bodies. */
export function emulator(options: EmulatorOptions = {}) {
  const app = createEmulator({ apiKeys: [API_KEY], ...options });
  const send: Send = async (method, path, { body, raw, headers = {}, apiKey = API_KEY } = {}) => {
    const hasBody = body !== undefined || raw !== undefined;
    const response = await app.request(path, {
      method,
      headers: {
        ...(apiKey === null ? {} : { API_KEY: apiKey }),
        ...(hasBody ? { 'content-type': 'application/json' } : {}),
        ...headers,
      },
      ...(hasBody ? { body: raw ?? JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    let parsed: unknown = text;
    try {
      parsed = JSON.parse(text);
    } catch {
      // keep the text
    }
    return { status: response.status, body: parsed, headers: response.headers };
  };
  return { app, send };
}

/** The standard error body, with a message that must match. */
export function expectError(call: Call, status: number, message: string | RegExp) {
  expect(call.status).toBe(status);
  expect(call.body).toEqual({ success: false, message: expect.any(String) });
  if (typeof message === 'string') expect(call.body.message).toBe(message);
  else expect(call.body.message).toMatch(message);
}

export const uuid = () => crypto.randomUUID();
