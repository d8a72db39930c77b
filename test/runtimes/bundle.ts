// The relay's core as a runtime without Node would load it: bundled by esbuild for platform 'neutral' (no Node
// built-ins, no `node` export condition), every import the bundle meets recorded.
import { builtinModules } from 'node:module';
import { build, type Plugin } from 'esbuild';

/** What the core must never import: Node's built-ins and the Node-only libraries (docs/relay.md, "Deploying"). */
export const NODE_ONLY = /^(node:|prom-client$|redis$|@redis\/|@hono\/node-server|pino|undici)/;
const builtins = new Set(builtinModules.flatMap((name) => [name, `node:${name}`]));

export interface CoreBundle {
  code: string;
  /** Node built-ins and Node-only packages imported anywhere in the graph, with the file that imports each. */
  nodeImports: string[];
  /** Every file in the bundle (sources and node_modules). */
  inputs: string[];
}

export async function bundleCore(entry: string): Promise<CoreBundle> {
  const nodeImports: string[] = [];
  const record: Plugin = {
    name: 'record-node-imports',
    setup(build) {
      build.onResolve({ filter: /.*/ }, (args) => {
        const bare = args.path
          .split('/')
          .slice(0, args.path.startsWith('@') ? 2 : 1)
          .join('/');
        if (!builtins.has(args.path) && !builtins.has(bare) && !NODE_ONLY.test(args.path)) return undefined;
        nodeImports.push(`${args.path} (from ${args.importer.replace(/^.*?\/(src|node_modules)\//, '$1/')})`);
        return { path: args.path, external: true };
      });
    },
  };
  const result = await build({
    entryPoints: [entry],
    bundle: true,
    write: false,
    metafile: true,
    format: 'esm',
    platform: 'neutral',
    target: 'es2022',
    mainFields: ['module', 'main'],
    conditions: ['workerd', 'worker', 'browser'],
    logLevel: 'silent',
    plugins: [record],
  });
  return { code: result.outputFiles[0]!.text, nodeImports, inputs: Object.keys(result.metafile.inputs) };
}
