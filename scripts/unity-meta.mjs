// Writes the .meta file Unity needs beside every file and folder of engines/unity that has none. A package installed
// from a git URL is immutable: Unity ignores an asset without its .meta there (and a GUID must not change once
// published, so existing .meta files are never rewritten). GUIDs are derived from the path, so a rerun is stable.
// Samples~ is skipped: Unity does not import it (the sample is copied into Assets/ on request and gets metas there).
// Usage: node scripts/unity-meta.mjs
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { extname, join, relative, resolve } from 'node:path';

const root = resolve(import.meta.dirname, '../engines/unity');

const guid = (path) => createHash('md5').update(`com.quest-points.unity/${path}`).digest('hex');
const tail = 'userData: \nassetBundleName: \nassetBundleVariant: \n';

// A .jslib or .jspre is a WebGL plugin: included in WebGL builds only, never loaded by the Editor.
const plugin = `PluginImporter:
  externalObjects: {}
  serializedVersion: 2
  iconMap: {}
  executionOrder: {}
  defineConstraints: []
  isPreloaded: 0
  isOverridable: 0
  isExplicitlyReferenced: 0
  validateReferences: 1
  platformData:
  - first:
      Any: 
    second:
      enabled: 0
      settings: {}
  - first:
      Editor: Editor
    second:
      enabled: 0
      settings:
        DefaultValueInitialized: true
  - first:
      WebGL: WebGL
    second:
      enabled: 1
      settings: {}
`;

function importer(path, folder) {
  if (folder) return `folderAsset: yes\nDefaultImporter:\n  externalObjects: {}\n  ${tail.replace(/\n(?=.)/g, '\n  ')}`;
  switch (extname(path)) {
    case '.cs':
      return `MonoImporter:\n  externalObjects: {}\n  serializedVersion: 2\n  defaultReferences: []\n  executionOrder: 0\n  icon: {instanceID: 0}\n  ${tail.replace(/\n(?=.)/g, '\n  ')}`;
    case '.asmdef':
      return `AssemblyDefinitionImporter:\n  externalObjects: {}\n  ${tail.replace(/\n(?=.)/g, '\n  ')}`;
    case '.jslib':
    case '.jspre':
      return `${plugin}  ${tail.replace(/\n(?=.)/g, '\n  ')}`;
    case '.json':
      return path === 'package.json' ? `PackageManifestImporter:\n  externalObjects: {}\n  ${tail.replace(/\n(?=.)/g, '\n  ')}` : textImporter();
    default:
      return textImporter();
  }
}
function textImporter() {
  return `TextScriptImporter:\n  externalObjects: {}\n  ${tail.replace(/\n(?=.)/g, '\n  ')}`;
}

/** Every file and folder under engines/unity that Unity imports (no .meta files, no Samples~), relative paths. */
export function unityAssets(dir = root) {
  const found = [];
  for (const name of readdirSync(dir)) {
    if (name.endsWith('.meta') || name.endsWith('~') || name.startsWith('.')) continue;
    const full = join(dir, name);
    const folder = statSync(full).isDirectory();
    found.push({ path: relative(root, full), folder });
    if (folder) found.push(...unityAssets(full));
  }
  return found;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const { path, folder } of unityAssets()) {
    const meta = join(root, `${path}.meta`);
    if (existsSync(meta)) continue;
    writeFileSync(meta, `fileFormatVersion: 2\nguid: ${guid(path)}\n${importer(path, folder)}`);
    console.log(`wrote ${relative(process.cwd(), meta)}`);
  }
}
