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
  /** Refused for good; a rule's refusal has its own words below, any other code (or none) these. */
  rejected: 'not accepted',
  // A rule of the operator's economy refused it (the dead letter's `code`, protocol/refusal.ts), worded for the player:
  // honest and generic, with no window, amount or rule that would tell a cheater how to get round it.
  /** `budget`: the player's points budget for this event or quest is spent for now. */
  budget: 'limit reached',
  /** `once`: a once-only achievement already earned. */
  once: 'already earned',
  /** `cooldown`: the same event again too soon. */
  cooldown: 'try again later',
  /** `campaign`: the quest's campaign has not started or has ended. */
  campaign: 'not running',
  /** `banned`: the player may not earn points here; said as any refusal (nothing to tell a banned bot). */
  banned: 'not accepted',
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
