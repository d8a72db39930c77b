// quest-points/global: the script-tag build. One IIFE (scripts/build-global.mjs bundles this file with everything it
// imports) that defines `window.QuestPoints` for pages and engines with no bundler: plain HTML, Construct, GDevelop,
// Defold, and the engine packages (Unity carries it as a .jspre, Godot's addon loads it). Loading it also defines
// <quest-points-hud>. It assigns globalThis explicitly, not a top-level `var`: a .jspre runs inside Unity's framework
// function, where a `var` would stay local to that function.
import { createQuestPoints, pointsKey, QuestPointsError } from '../client/index.js';
import { attachHud, HUD_STRINGS, QuestPointsHud } from '../hud/index.js';
import { readToken, tokenFrom } from '../sw/token.js';

/** The package version this build was made from (replaced by the build; 'source' when run unbundled). */
declare const __QP_VERSION__: string | undefined;

/** What `window.QuestPoints` holds: the SDK's entry points, the token-URL reader and the HUD. */
const api = Object.freeze({
  createQuestPoints,
  tokenFrom,
  readToken,
  attachHud,
  QuestPointsHud,
  HUD_STRINGS,
  QuestPointsError,
  pointsKey,
  version: typeof __QP_VERSION__ === 'string' ? __QP_VERSION__ : 'source',
});

declare global {
  /** quest-points' script-tag build (`<script src=".../quest-points/dist/global/index.js">`), as `window.QuestPoints`. */
  var QuestPoints: typeof api;
}

// Two copies on one page (a CDN script and an engine's .jspre) keep the first: one client per storage name, one
// element definition.
globalThis.QuestPoints ??= api;
