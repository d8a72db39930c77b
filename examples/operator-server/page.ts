// The game page of the operator's server: signed in (a session cookie), it awards through the server's relay at /qp
// with tokens from the server's token route; signed out, it shows the login form.
// #region client
import { createQuestPoints } from 'quest-points';
import { attachHud } from 'quest-points/hud';
import { backgroundSync, registerWorker, tokenFrom } from 'quest-points/sw';

const me = await fetch('/me').then((r) => r.json() as Promise<{ player: string | null }>);
if (me.player) {
  // Not awaited, never rejects: where service workers are refused (a sandboxed frame, plain http on a LAN address,
  // storage blocked) it resolves { registered: false, reason } and the game runs on.
  void registerWorker('/quest-points-sw.js?relayUrl=/qp&tokenUrl=/login/qp-token');

  const qp = createQuestPoints({
    relayUrl: '/qp', // the relay the server mounts
    getToken: tokenFrom('/login/qp-token'), // the server's token route, with the session cookie
    questId: 'summer',
    serviceUserId: me.player, // the token's subject: the session's player
    backgroundSync: backgroundSync(), // says why not where it cannot work (a frame, no worker, Firefox, Safari)
    persist: true, // asks navigator.storage.persist(); the answer is environment.persistent
  });

  qp.on('environment:changed', ({ environment }) => {
    if (environment.storage === 'memory') console.warn(`awards kept in memory here (${environment.storageReason})`);
  });
  attachHud(qp, { parent: document.querySelector('#game') ?? document.body });
  document.getElementById('coin')?.addEventListener('click', () => qp.award({ eventPoints: 5, eventName: 'coin' }));
}
// #endregion client

const show = (id: string) => document.getElementById(id)?.removeAttribute('hidden');
show(me.player ? 'play' : 'login');
const who = document.getElementById('who');
if (who && me.player) who.textContent = `playing as ${me.player}`;
