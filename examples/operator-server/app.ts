// An operator's game server: Express 5 with a cookie session, a real login route, the token route the SDK reads, and
// the relay mounted at /qp. The API key and the relay secret stay here: the browser only ever sees its own token.
import express from 'express';
import session from 'express-session';
import { createRelay, signPlayerToken, toNodeListener } from 'quest-points/relay/node';

/** What the server needs, from your secret store (server.ts reads the environment). */
export interface GameServerSecrets {
  /** The Quest Points Service (or the emulator) and its API key. */
  upstreamUrl: string;
  apiKey: string;
  /** Signs player tokens (>= 32 characters; rotates) and names idempotency keys (>= 32; never rotates). */
  relaySecret: string;
  keySecret: string;
  /** Signs the session cookie. */
  sessionSecret: string;
}

declare module 'express-session' {
  interface SessionData {
    player?: string;
  }
}

const PLAYER_NAME = /^[a-z0-9_-]{1,32}$/;

// #region server
export function createGameServer(secrets: GameServerSecrets): express.Express {
  const app = express();
  // The relay first: it reads and limits the body itself, so it goes before any body parser.
  const relay = createRelay({
    upstream: { url: secrets.upstreamUrl, apiKey: secrets.apiKey }, // the API key never leaves the server
    secret: secrets.relaySecret,
    keySecret: secrets.keySecret,
    policy: { quests: ['summer'], events: { coin: { maxPoints: 5 } }, maxPointsPerAward: 5 },
  });
  app.use('/qp', toNodeListener(relay));

  app.use(express.urlencoded({ extended: false }));
  app.use(
    session({
      secret: secrets.sessionSecret,
      resave: false,
      saveUninitialized: false,
      cookie: { httpOnly: true, sameSite: 'lax', secure: 'auto' },
    }),
  );

  // Your login: check the player's password or identity provider here; this example trusts the name it is given.
  app.post('/login', (req, res) => {
    const name = String(req.body?.name ?? '')
      .trim()
      .toLowerCase();
    if (!PLAYER_NAME.test(name)) {
      res.status(400).json({ message: 'name must be 1-32 characters of a-z, 0-9, _ or -' });
      return;
    }
    req.session.player = name;
    res.redirect(303, '/');
  });
  app.post('/logout', (req, res) => req.session.destroy(() => res.redirect(303, '/')));
  app.get('/me', (req, res) => res.json({ player: req.session.player ?? null }));

  // The token route the SDK reads with tokenFrom('/login/qp-token'): JSON { "token": "..." } for the signed-in player,
  // 401 when there is none (the SDK pauses and emits auth:required). Tokens live 15 minutes; the SDK asks again.
  app.get('/login/qp-token', async (req, res) => {
    const player = req.session.player;
    if (!player) {
      res.status(401).json({ message: 'not signed in' });
      return;
    }
    const token = await signPlayerToken({ sub: player, quests: ['summer'] }, { secret: secrets.relaySecret, ttl: '15m' });
    res.set('cache-control', 'no-store').json({ token });
  });
  return app;
}
// #endregion server
