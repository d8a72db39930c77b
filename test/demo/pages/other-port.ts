// A game's page on its own dev server (Unity's Build And Run, Godot's web export server, Vite), the SDK pointed at
// `quest-points dev` on another loopback port: query `dev` is that server's origin, `sub` the player.
import { createQuestPoints } from '../../../src/client/index.js';
import { tokenFrom } from '../../../src/sw/token.js';

const params = new URLSearchParams(location.search);
const dev = params.get('dev') ?? 'http://127.0.0.1:8787';
const sub = params.get('sub') ?? 'dev-player';

const qp = createQuestPoints({
  relayUrl: `${dev}/api`,
  getToken: tokenFrom(`${dev}/__dev/token?sub=${encodeURIComponent(sub)}`),
  questId: 'q-other-port',
  serviceUserId: sub,
  storageName: `qp-other-port-${sub}`,
});

/** Awards `points`, resolves with the settled outcome and the snapshot's dead-letter count. */
async function award(points: number) {
  const settled = await qp.award({ eventPoints: points, eventName: 'level' }).settled;
  return { outcome: settled.outcome, deadLetters: qp.getSnapshot().deadLetterCount };
}

Object.assign(window, { award });
