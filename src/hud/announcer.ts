// The HUD's one voice: a polite live region (role=status) that speaks QUIET_MS after a first change and then at
// most once per GAP_MS, so a burst of awards (one a frame) is one sentence every two seconds, not an announcement
// each. It keeps only what to say next; the element composes the sentence when it is time. (A closure, not a class:
// its names minify to one letter, bytes of the HUD's 4 KB.)
const QUIET_MS = 500;
const GAP_MS = 2000;

export interface News<T> {
  total?: boolean;
  connection?: boolean;
  toast?: T;
}

/** The live region and its voice: `speak` adds to what is said next (the latest of each kind wins), `hush` forgets it. */
export function announcer<T>(compose: (news: News<T>) => string) {
  const region = document.createElement('p');
  region.className = 'sr';
  region.setAttribute('role', 'status');
  let news: News<T> = {};
  let timer: ReturnType<typeof setTimeout> | undefined;
  let saidAt = 0;
  const hush = () => {
    clearTimeout(timer);
    timer = undefined;
    news = {};
  };
  const say = () => {
    region.textContent = compose(news);
    hush();
    saidAt = Date.now();
  };
  return {
    region,
    hush,
    speak(more: News<T>): void {
      Object.assign(news, more);
      timer ??= setTimeout(say, Math.max(QUIET_MS, saidAt + GAP_MS - Date.now()));
    },
  };
}
