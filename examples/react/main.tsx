// React: the provider makes the client, hooks render the live total, the connection and the history.
// Run it: `npm run example react`.
// #region app
import { StrictMode } from 'react';
import { createRoot } from 'react-dom/client';
import { QuestPointsProvider, useLastRejection, usePoints, useQuestPoints, useQuestPointsStatus } from 'quest-points/react';
import { tokenFrom } from 'quest-points/sw';

function Hud() {
  const view = usePoints(); // the provider's quest and player, live: no read in game code
  const status = useQuestPointsStatus();
  return (
    <aside>
      <p data-part="total">{view.totalPoints}</p>
      <p data-part="connection">{status.online ? 'online' : 'offline'}</p>
      <ol>
        {view.history.slice(0, 5).map((entry, i) => (
          <li key={entry.idempotencyKey ?? `${entry.createdAt}#${i}`} data-state={entry.state}>
            {entry.eventName} +{entry.eventPoints} ({entry.state})
          </li>
        ))}
      </ol>
    </aside>
  );
}

// #region refusal
// The latest award a rule refused, worded by its code (deadLetter.code); `message` is the operator's (logs only).
const WORDS: Record<string, string> = { budget: 'Limit reached for now', once: 'Already earned', cooldown: 'Too soon: try again later' };
function Refusal() {
  const refused = useLastRejection();
  if (!refused) return null;
  return <p role="status">{WORDS[refused.code ?? ''] ?? 'Not accepted'}</p>;
}
// #endregion refusal

function CoinButton() {
  const client = useQuestPoints();
  return (
    <button type="button" onClick={() => client.award({ eventPoints: 1, eventName: 'coin' })}>
      Collect a coin
    </button>
  );
}

const options = { relayUrl: '/api', getToken: tokenFrom('/__dev/token'), questId: 'summer', serviceUserId: 'dev-player' };
const root = document.getElementById('root');
if (root)
  createRoot(root).render(
    <StrictMode>
      <QuestPointsProvider options={options}>
        <Hud />
        <Refusal />
        <CoinButton />
      </QuestPointsProvider>
    </StrictMode>,
  );
// #endregion app
