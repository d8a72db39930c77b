// An operator's game server: Express 5 with a cookie session, a login route, the token route the SDK reads, and the
// relay mounted at /qp. The API key and the relay secret stay here: the browser only ever sees its own token.
// #region server
import { fileURLToPath } from 'node:url';
import express from 'express';
import session from 'express-session';
import { createRelay, signPlayerToken, toNodeListener } from 'quest-points/relay/node';

declare module 'express-session' {
  interface SessionData {
    player?: string; // the signed-in player: the token's subject, the SDK's serviceUserId
  }
}

/** From your secret store: never in code, never sent to a browser. */
export interface GameServerSecrets {
  upstreamUrl: string; // the Quest Points Service (or the emulator)
  apiKey: string;
  relaySecret: string; // signs player tokens, >= 32 characters; may rotate
  keySecret: string; // names idempotency keys, >= 32 characters; never rotates
  sessionSecret: string; // signs the session cookie
}

export function createGameServer(secrets: GameServerSecrets): express.Express {
  const app = express();
  app.use(session({ secret: secrets.sessionSecret, resave: false, saveUninitialized: false, cookie: { httpOnly: true, sameSite: 'lax' } }));

  // #region production
  // The relay holds the API key; it trusts only tokens signed with relaySecret and decides the points by policy.
  const relay = createRelay({
    upstream: { url: secrets.upstreamUrl, apiKey: secrets.apiKey },
    secret: secrets.relaySecret,
    keySecret: secrets.keySecret,
    policy: { quests: ['summer'], events: { coin: { maxPoints: 5 } }, maxPointsPerAward: 5 },
  });
  app.use('/qp', toNodeListener(relay)); // before any body parser: the relay reads and limits the body itself

  // The page's getToken, tokenFrom('/login/qp-token'), reads JSON { "token": "..." } for the session's player; 401
  // without one (the SDK pauses sending and emits auth:required). A token lives 15 minutes; the SDK asks again.
  app.get('/login/qp-token', async (req, res) => {
    if (!req.session.player) {
      res.status(401).json({ message: 'not signed in' });
      return;
    }
    const token = await signPlayerToken({ sub: req.session.player, quests: ['summer'] }, { secret: secrets.relaySecret, ttl: '15m' });
    res.set('cache-control', 'no-store').json({ token });
  });
  // #endregion production

  // The ready-made worker (quest-points/sw.js) at the site's root, so its scope covers the game's pages: it delivers
  // awards when the tab is closed, reading relayUrl and tokenUrl from the URL page.ts registers it with.
  const worker = fileURLToPath(import.meta.resolve('quest-points/sw.js'));
  app.get('/quest-points-sw.js', (_req, res) => res.set('cache-control', 'no-cache').type('text/javascript').sendFile(worker));

  // Your login: check a password or your identity provider here; this example trusts the name it is given.
  app.use(express.urlencoded({ extended: false }));
  app.post('/login', (req, res) => {
    const name = String(req.body?.name ?? '')
      .trim()
      .toLowerCase();
    if (!/^[a-z0-9_-]{1,32}$/.test(name)) {
      res.status(400).json({ message: 'name must be 1-32 characters of a-z, 0-9, _ or -' });
      return;
    }
    req.session.player = name;
    res.redirect(303, '/');
  });
  app.post('/logout', (req, res) => req.session.destroy(() => res.redirect(303, '/')));
  app.get('/me', (req, res) => res.json({ player: req.session.player ?? null }));
  return app;
}
// #endregion server
