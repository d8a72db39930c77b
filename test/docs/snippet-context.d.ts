// The runtimes' own globals, as far as docs/relay.md "Deploying" uses them (their type packages are not installed).
declare const Bun: {
  serve(options: { port?: number; hostname?: string; fetch(request: Request, server: unknown): Response | Promise<Response> }): { port: number };
};
declare const Deno: {
  env: { get(name: string): string | undefined };
  serve(options: { port?: number; hostname?: string }, handler: (request: Request, info: unknown) => Response | Promise<Response>): unknown;
};
