// The game page of the operator's server: signed in (a session cookie), it awards through the server's relay at /qp
// with tokens from the server's token route; signed out, it shows the login form.
// #region client
import { createQuestPoints } from 'quest-points';
import { attachHud } from 'quest-points/hud';
import { tokenFrom } from 'quest-points/sw';

const me = await fetch('/me').then((r) => r.json() as Promise<{ player: string | null }>);
if (me.player) {
  const qp = createQuestPoints({
    relayUrl: '/qp', // the relay the server mounts
    getToken: tokenFrom('/login/qp-token'), // the server's token route, with the session cookie
    questId: 'summer',
    serviceUserId: me.player, // the token's subject: the session's player
  });
  attachHud(qp, { parent: document.querySelector('#game') ?? document.body });
  document.getElementById('coin')?.addEventListener('click', () => qp.award({ eventPoints: 5, eventName: 'coin' }));
}
// #endregion client

const show = (id: string) => document.getElementById(id)?.removeAttribute('hidden');
show(me.player ? 'play' : 'login');
const who = document.getElementById('who');
if (who && me.player) who.textContent = `playing as ${me.player}`;
