// The HUD in markup (no engine, no framework): <quest-points-hud> is in index.html; this binds it to a client.
// Run it: `npm run example hud-only`.
// #region bind
import 'quest-points/hud'; // defines <quest-points-hud>
import { createQuestPoints } from 'quest-points';
import { tokenFrom } from 'quest-points/sw';

const qp = createQuestPoints({ relayUrl: '/api', getToken: tokenFrom('/__dev/token'), questId: 'summer', serviceUserId: 'dev-player' });
const hud = document.querySelector('quest-points-hud');
if (hud) hud.client = qp;
// #endregion bind

// #region words
// A refusal by a rule of the relay's economy, in the player's language: each code has its words (any other code says
// `rejected`'s). Generic on purpose: no limit, window or rule that would tell a bot how to get round it.
if (hud)
  hud.strings = {
    rejected: 'refusé',
    budget: 'limite atteinte',
    once: 'déjà gagné',
    cooldown: 'réessayez plus tard',
    campaign: 'hors période',
  };
// #endregion words

document.getElementById('quest')?.addEventListener('click', () => {
  qp.award({ eventPoints: 25, eventName: 'side_quest', eventDescription: 'Side quest done' }); // a toast: +25 Side quest done
});
