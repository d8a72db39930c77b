// Reward feel for the demo games: a burst of sparks from the HUD's corner when the service acknowledges an award
// (award:sent), and a short chime if the player turned sound on. Sound is off by default (a page must not start
// making noise), and under prefers-reduced-motion there are no sparks: the HUD's toast already says it.
import type { QuestPoints } from '../../src/client/index.js';

const reducedMotion = () => matchMedia('(prefers-reduced-motion: reduce)').matches;

/** A chime: two short sine notes, quiet. One AudioContext, made on the first chime after the player allowed sound. */
function chimer() {
  let audio: AudioContext | undefined;
  return (big: boolean) => {
    audio ??= new AudioContext();
    const start = audio.currentTime;
    for (const [i, frequency] of (big ? [660, 990] : [880, 1320]).entries()) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = frequency;
      gain.gain.setValueAtTime(0.0001, start + i * 0.08);
      gain.gain.exponentialRampToValueAtTime(0.08, start + i * 0.08 + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, start + i * 0.08 + 0.25);
      osc.connect(gain).connect(audio.destination);
      osc.start(start + i * 0.08);
      osc.stop(start + i * 0.08 + 0.3);
    }
  };
}

/** Sparks flying out of the top-right corner of `stage` (the HUD's corner), removed when done. */
function burst(stage: HTMLElement, count: number, color: string) {
  for (let i = 0; i < count; i++) {
    const spark = document.createElement('span');
    spark.className = 'spark';
    spark.style.background = color;
    stage.append(spark);
    const angle = Math.PI * (0.5 + Math.random() * 0.9);
    const distance = 40 + Math.random() * 70;
    const x = Math.cos(angle) * distance;
    const y = Math.sin(angle) * distance;
    spark
      .animate(
        [
          { transform: 'translate(0, 0) scale(1)', opacity: 1 },
          { transform: `translate(${x}px, ${y}px) scale(0.3)`, opacity: 0 },
        ],
        { duration: 600 + Math.random() * 300, easing: 'cubic-bezier(.2,.7,.3,1)' },
      )
      .finished.finally(() => spark.remove());
  }
}

/** Wires the feel to a client; `sound` is the page's sound switch (unchecked: silent). Returns the stop function. */
export function rewardFeel(client: QuestPoints, stage: HTMLElement, sound: HTMLInputElement): () => void {
  const chime = chimer();
  const onSent = ({ award }: { award: { eventPoints: number } }) => {
    const big = award.eventPoints > 1;
    if (!reducedMotion()) burst(stage, big ? 18 : 10, big ? '#63e6be' : '#fcc419');
    if (sound.checked) chime(big);
  };
  client.on('award:sent', onSent);
  return () => client.off('award:sent', onSent);
}
