// The docs site's pages, in sidebar order: add a page here when you add it under docs/ (test/docs/links.test.ts fails
// on a page that is in no group, and on any broken link or anchor).
export interface Page {
  text: string;
  /** The page's path under docs/ without `.md`, e.g. 'guide/vite'. */
  page: string;
}

export const groups: { text: string; items: Page[] }[] = [
  {
    text: 'Guides',
    items: [
      { text: 'Play the demo', page: 'guide/play' },
      { text: 'Add to a Vite game', page: 'guide/vite' },
      { text: 'Phaser', page: 'guide/phaser' },
      { text: 'React', page: 'guide/react' },
      { text: 'Show points: the HUD', page: 'guide/hud' },
      { text: 'The relay', page: 'relay' },
      { text: 'Deploy the relay', page: 'relay/deploy' },
      { text: 'Configure the relay', page: 'relay/configure' },
      { text: 'Secure the relay', page: 'relay/secure' },
      { text: 'Operate and scale', page: 'relay/operate' },
      { text: 'Economy: stop farming', page: 'economy' },
      { text: 'Relay performance', page: 'relay/performance' },
      { text: 'Economy: stop farming, audit, webhooks', page: 'economy' },
      { text: 'Leaderboard: where do I stand?', page: 'leaderboard' },
      { text: 'Run it offline: guarantees', page: 'guide/offline' },
      { text: 'Test with the emulator', page: 'guide/emulator' },
      { text: 'Portals, iframes and storage', page: 'hosting' },
    ],
  },
  {
    text: 'Engines',
    items: [
      { text: 'Every engine: the matrix', page: 'engines' },
      { text: 'Unity WebGL', page: 'unity' },
      { text: 'Godot 4', page: 'godot' },
      { text: 'Script tag (no bundler)', page: 'script-tag' },
    ],
  },
  {
    text: 'Reference',
    items: [
      { text: 'SDK', page: 'sdk' },
      { text: 'HUD', page: 'hud' },
      { text: 'React bindings', page: 'react' },
      { text: 'Relay: routes and answers', page: 'relay/routes' },
      { text: 'Emulator', page: 'emulator' },
      { text: 'Dev server, Vite and Phaser plugins, demo', page: 'demo' },
      { text: 'Internals', page: 'internals' },
      { text: 'Releases, versions, upgrades', page: 'releases' },
    ],
  },
  {
    text: 'Measured',
    items: [{ text: 'Guarantees: chaos and fuzz runs', page: 'guarantees' }],
  },
];
