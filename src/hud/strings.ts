/** Every word the HUD shows or announces; `{count}` is replaced by a number. Override any of them per element. */
export const HUD_STRINGS = {
  total: 'Points',
  /** A toast's award, in the outbox, online: on its way. */
  sending: 'sending',
  /** In IndexedDB and waiting for the network (offline, or a send failed): it will be delivered. */
  saved: 'saved — will sync',
  /**
   * Waiting, but only in memory (storage denied or unavailable, as in some portals' frames): it is sent if the page
   * stays open, and lost if it is closed first.
   */
  waiting: 'kept until you close this page',
  sent: 'sent',
  confirmed: 'confirmed',
  rejected: 'not accepted',
  online: 'online',
  offline: 'offline',
  /** The client needs a token (auth:required): awards wait until the player signs in. */
  signIn: 'sign in to save points',
  /**
   * The game server's deployment refuses the awards (deployment:refused: an origin it does not allow, a wrong URL, a
   * proxy or firewall in the way): they wait, saved, and are sent once it answers again.
   */
  unreachable: "can't reach the game server",
  history: 'Recent points',
  deadLetters: '{count} award(s) not accepted',
};

/** The words' keys and defaults, as HUD_STRINGS has them: the type `hud.strings` accepts a part of. */
export type HudStrings = typeof HUD_STRINGS;

export const subst = (text: string, count: string) => text.replace('{count}', count);
