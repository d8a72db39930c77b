// docs/leaderboard.md, "Show a top 10 and my rank": run by test/client/leaderboard-example.test.ts.
import type { QuestPoints, QuestPointsOptions } from 'quest-points';

/** Renders the top 10 and the player's rank (with their queued points apart) into `list` and `me`; returns stop. */
export async function showTopTen(qp: QuestPoints, options: QuestPointsOptions, list: HTMLElement, me: HTMLElement) {
  // #region top-ten
  // Loaded when the ladder is shown, not with the game: the SDK's up-front script stays as it is.
  const { watchLeaderboard } = await import('quest-points/leaderboard');
  // The options the client was created with: the same relay, getToken and fetch.
  const board = watchLeaderboard(qp, options, { top: 10, around: 2 });
  const stop = board.subscribe((view) => {
    list.replaceChildren(
      ...view.top.map((row) => {
        const li = document.createElement('li');
        li.textContent = `#${row.rank} ${row.name} · ${row.points}`;
        if (row.you) li.setAttribute('aria-current', 'true');
        return li;
      }),
    );
    // The confirmed rank, and this player's queued awards beside it (never added to the ladder's points).
    const rank = view.you ? `#${view.you.rank} · ${view.you.points} pts` : 'not ranked yet';
    me.textContent = view.pending ? `${rank} · +${view.pending} pending` : rank;
  });
  // #endregion top-ten
  return stop;
}
