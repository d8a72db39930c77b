// The game page of the operator's server: signed in (a session cookie), it awards through the server's relay at /qp
// with tokens from the server's login route; signed out, it shows the login form.
import { createQuestPoints } from 'quest-points';
import { attachHud } from 'quest-points/hud';
import { tokenFrom } from 'quest-points/sw';

const { player } = (await (await fetch('/me')).json()) as { player: string | null };
const show = (id: string) => document.getElementById(id)?.removeAttribute('hidden');
if (!player) show('login');
else {
  show('play');
  const who = document.getElementById('who');
  if (who) who.textContent = `playing as ${player}`;
  // #region client
  const qp = createQuestPoints({
    relayUrl: '/qp', // the relay the server mounts
    getToken: tokenFrom('/login/qp-token'), // the server's token route, with the session cookie
    questId: 'summer',
    serviceUserId: player, // the token's subject: the session's player
  });
  // #endregion client
  attachHud(qp, { parent: document.querySelector('#game') ?? document.body });
  document.getElementById('coin')?.addEventListener('click', () => qp.award({ eventPoints: 5, eventName: 'coin' }));
}
