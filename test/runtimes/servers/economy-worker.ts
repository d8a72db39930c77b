// The economy's Durable Object in workerd: the shipped EconomyRules class as it is. The Worker forwards each request
// to the object named by `?name=`, so each test has an object of its own (one player shard).
export { EconomyRules } from '../../../src/relay/economy/durable-object.js';

interface Env {
  ECONOMY: { idFromName(name: string): unknown; get(id: unknown): { fetch(request: Request): Promise<Response> } };
}

export default {
  async fetch(request: Request, env: Env): Promise<Response> {
    const url = new URL(request.url);
    const stub = env.ECONOMY.get(env.ECONOMY.idFromName(url.searchParams.get('name') ?? 'default'));
    return stub.fetch(new Request(`https://economy${url.pathname}`, request));
  },
};
