// Catch falling coins: a tiny canvas game with no engine. Each catch calls onCatch; the page awards it.

export interface Coin {
  x: number;
  y: number;
  speed: number;
  value: number;
}

export interface CoinGameOptions {
  onCatch(coin: Coin): void;
  autoplay?: boolean;
}

const WIDTH = 480;
const HEIGHT = 640;
const BASKET = { width: 96, height: 18, y: HEIGHT - 48, speed: 520 };
const SPAWN_EVERY_MS = 650;

/** The Phaser scene's sprites (demo/public/sprites), relative to the page so a build under a sub-path finds them. */
const sprite = (name: string) => Object.assign(new Image(), { src: `sprites/${name}.svg` });
const ready = (image: HTMLImageElement) => image.complete && image.naturalWidth > 0;

export function startCoinGame(canvas: HTMLCanvasElement, options: CoinGameOptions) {
  canvas.width = WIDTH;
  canvas.height = HEIGHT;
  const ctx = canvas.getContext('2d');
  if (!ctx) throw new Error('canvas 2d context unavailable');
  const art = { coin: sprite('coin'), gem: sprite('gem'), basket: sprite('basket') };
  const still = matchMedia('(prefers-reduced-motion: reduce)');
  let coins: Coin[] = [];
  let basketX = WIDTH / 2;
  let direction = 0;
  let paused = false;
  let autoplay = options.autoplay ?? false;
  let sinceSpawn = 0;
  let last = performance.now();
  let frame = 0;

  // Keyboard play: ← → or A D (either case: Caps Lock or Shift must not stop the basket) while the canvas has focus.
  const keys = new Set<string>();
  const steer = () => {
    direction = (keys.has('ArrowRight') || keys.has('d') ? 1 : 0) - (keys.has('ArrowLeft') || keys.has('a') ? 1 : 0);
  };
  const onKey = (event: KeyboardEvent) => {
    const key = event.key.length === 1 ? event.key.toLowerCase() : event.key;
    if (!['ArrowLeft', 'ArrowRight', 'a', 'd'].includes(key)) return;
    event.preventDefault();
    if (event.type === 'keydown') keys.add(key);
    else keys.delete(key);
    steer();
  };
  // A key released after focus moved away never reaches the canvas: stop rather than drift forever.
  const onBlur = () => {
    keys.clear();
    steer();
  };
  const onPointer = (event: PointerEvent) => {
    const rect = canvas.getBoundingClientRect();
    basketX = ((event.clientX - rect.left) / rect.width) * WIDTH;
  };
  canvas.addEventListener('keydown', onKey);
  canvas.addEventListener('keyup', onKey);
  canvas.addEventListener('pointermove', onPointer);
  canvas.addEventListener('blur', onBlur);

  const spawn = () => {
    const gem = Math.random() < 0.12;
    coins.push({ x: 24 + Math.random() * (WIDTH - 48), y: -16, speed: 170 + Math.random() * 110, value: gem ? 5 : 1 });
  };

  const step = (dt: number) => {
    sinceSpawn += dt * 1000;
    if (sinceSpawn >= SPAWN_EVERY_MS) {
      sinceSpawn = 0;
      spawn();
    }
    if (autoplay) {
      const target = coins.filter((c) => c.y < BASKET.y).sort((a, b) => b.y - a.y)[0];
      if (target) basketX += Math.sign(target.x - basketX) * Math.min(Math.abs(target.x - basketX), BASKET.speed * 1.6 * dt);
    } else {
      basketX += direction * BASKET.speed * dt;
    }
    basketX = Math.max(BASKET.width / 2, Math.min(WIDTH - BASKET.width / 2, basketX));
    const kept: Coin[] = [];
    for (const coin of coins) {
      const before = coin.y;
      coin.y += coin.speed * dt;
      const crossed = before < BASKET.y && coin.y >= BASKET.y;
      if (crossed && Math.abs(coin.x - basketX) <= BASKET.width / 2 + 10) options.onCatch(coin);
      else if (coin.y < HEIGHT + 20) kept.push(coin);
    }
    coins = kept;
  };

  // A night sky with a few fixed stars and low hills: drawn once, copied each frame.
  const sky = ctx.createLinearGradient(0, 0, 0, HEIGHT);
  sky.addColorStop(0, '#0b1426');
  sky.addColorStop(1, '#1d2f52');
  const stars = Array.from({ length: 40 }, (_, i) => [(i * 97) % WIDTH, (i * 53) % (HEIGHT * 0.6), (i % 3) + 1] as const);
  const draw = () => {
    ctx.fillStyle = sky;
    ctx.fillRect(0, 0, WIDTH, HEIGHT);
    ctx.fillStyle = 'rgba(255,255,255,.55)';
    for (const [x, y, size] of stars) ctx.fillRect(x, y, size, size);
    ctx.fillStyle = '#16324a';
    ctx.beginPath();
    ctx.ellipse(WIDTH * 0.25, HEIGHT + 30, WIDTH * 0.45, 90, 0, 0, Math.PI * 2);
    ctx.ellipse(WIDTH * 0.8, HEIGHT + 40, WIDTH * 0.4, 80, 0, 0, Math.PI * 2);
    ctx.fill();
    const now = performance.now();
    const spin = !still.matches;
    for (const coin of coins) {
      const r = coin.value > 1 ? 15 : 14;
      const image = coin.value > 1 ? art.gem : art.coin;
      if (ready(image)) {
        // A coin spins (its width breathes), a gem sways; both still under prefers-reduced-motion.
        const w = spin && coin.value === 1 ? Math.max(0.2, Math.abs(Math.cos(now / 180 + coin.x))) : 1;
        ctx.save();
        ctx.translate(coin.x, coin.y);
        if (spin && coin.value > 1) ctx.rotate(Math.sin(now / 250 + coin.x) * 0.2);
        ctx.drawImage(image, -r * w, -r, 2 * r * w, 2 * r);
        ctx.restore();
        continue;
      }
      // Until the sprite has loaded: a disc of its colour.
      ctx.beginPath();
      ctx.arc(coin.x, coin.y, r - 2, 0, Math.PI * 2);
      ctx.fillStyle = coin.value > 1 ? '#63e6be' : '#fcc419';
      ctx.fill();
    }
    if (ready(art.basket)) {
      // The sprite's rim is the catch line (BASKET.y).
      ctx.drawImage(art.basket, basketX - 52, BASKET.y - 6, 104, 44);
    } else {
      ctx.fillStyle = '#cd853f';
      ctx.fillRect(basketX - BASKET.width / 2, BASKET.y, BASKET.width, BASKET.height);
    }
    if (paused) {
      ctx.fillStyle = 'rgba(0,0,0,.45)';
      ctx.fillRect(0, 0, WIDTH, HEIGHT);
      ctx.fillStyle = '#fff';
      ctx.font = 'bold 28px system-ui, sans-serif';
      ctx.textAlign = 'center';
      ctx.fillText('Paused', WIDTH / 2, HEIGHT / 2);
    }
  };

  const loop = (now: number) => {
    const dt = Math.min(0.05, (now - last) / 1000);
    last = now;
    if (!paused) step(dt);
    draw();
    frame = requestAnimationFrame(loop);
  };
  frame = requestAnimationFrame(loop);

  return {
    get paused() {
      return paused;
    },
    setPaused(value: boolean) {
      paused = value;
      if (value) coins = [];
    },
    setAutoplay(value: boolean) {
      autoplay = value;
    },
    /** Where the basket and the falling coins are (canvas pixels), for tests and curious designers. */
    state() {
      return { basketX, basketY: BASKET.y, coins: coins.map((coin) => ({ x: coin.x, y: coin.y, value: coin.value })) };
    },
    stop() {
      cancelAnimationFrame(frame);
      canvas.removeEventListener('keydown', onKey);
      canvas.removeEventListener('keyup', onKey);
      canvas.removeEventListener('pointermove', onPointer);
      canvas.removeEventListener('blur', onBlur);
    },
  };
}
