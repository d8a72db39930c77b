// The HUD's one voice: a polite live region (role=status) that speaks QUIET_MS after a first change and then at
// most once per GAP_MS, so a burst of awards (one a frame) is one sentence every two seconds, not an announcement
// each. It keeps only what to say next; the element composes the sentence when it is time.
const QUIET_MS = 500;
const GAP_MS = 2000;

export interface News<T> {
  total?: boolean;
  connection?: boolean;
  toast?: T;
}

export class Announcer<T> {
  readonly region = document.createElement('p');
  #news: News<T> = {};
  #timer?: ReturnType<typeof setTimeout>;
  #saidAt = 0;

  constructor(private readonly compose: (news: News<T>) => string) {
    this.region.className = 'sr';
    this.region.setAttribute('role', 'status');
  }

  /** Adds to what is said next (the latest of each kind wins). */
  speak(news: News<T>): void {
    Object.assign(this.#news, news);
    this.#timer ??= setTimeout(() => this.#say(), Math.max(QUIET_MS, this.#saidAt + GAP_MS - Date.now()));
  }

  /** Forgets what was not said yet. */
  hush(): void {
    clearTimeout(this.#timer);
    this.#timer = undefined;
    this.#news = {};
  }

  #say(): void {
    this.region.textContent = this.compose(this.#news);
    this.hush();
    this.#saidAt = Date.now();
  }
}
