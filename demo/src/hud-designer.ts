import { HUD_STRINGS, type HudStrings, type QuestPointsHud } from '../../src/hud/index.js';
import { createPreviewClient } from './hud-preview.js';
import { byId } from './session.js';

// The HUD designer: theme variables and words changed live on a previewed <quest-points-hud>, the contrast of each
// colour on the HUD's background, and the CSS (and words) to paste into a game's page.

type Variable = { name: string; label: string; value: string; unit?: string; min?: number; max?: number; step?: number };

/** The element's light defaults (src/hud/style.ts); a designer's value applies in light and dark alike. */
const VARIABLES: Variable[] = [
  { name: '--qp-hud-bg', label: 'Background', value: '#ffffff' },
  { name: '--qp-hud-fg', label: 'Text', value: '#1d2433' },
  { name: '--qp-hud-muted', label: 'Labels', value: '#4a5468' },
  { name: '--qp-hud-pending', label: 'Sending, saved', value: '#8f4a00' },
  { name: '--qp-hud-sent', label: 'Sent', value: '#1864ab' },
  { name: '--qp-hud-ok', label: 'Confirmed', value: '#237032' },
  { name: '--qp-hud-bad', label: 'Offline, not accepted', value: '#c92a2a' },
  { name: '--qp-hud-radius', label: 'Corner radius (px)', value: '10', unit: 'px', min: 0, max: 24, step: 1 },
  { name: '--qp-hud-inset', label: 'Distance from the edge (px)', value: '12', unit: 'px', min: 0, max: 48, step: 1 },
  { name: '--qp-hud-width', label: 'Width (px)', value: '240', unit: 'px', min: 160, max: 400, step: 10 },
  { name: '--qp-hud-gap', label: 'Gap (px)', value: '6', unit: 'px', min: 0, max: 20, step: 1 },
  { name: '--qp-hud-total-size', label: 'Total size (em)', value: '1.6', unit: 'em', min: 1, max: 3, step: 0.1 },
];
const COLOURS = VARIABLES.filter((v) => !v.unit);

const hud = byId('preview-hud') as QuestPointsHud;
const preview = createPreviewClient();
hud.client = preview.client;
preview.showEveryState();

const changed = new Map<string, string>();
const words: Partial<HudStrings> = {};
const styleTag = byId<HTMLStyleElement>('designer-css');

function field(label: string, input: HTMLInputElement): HTMLLabelElement {
  const wrap = document.createElement('label');
  wrap.append(label, input);
  return wrap;
}

const themeForm = byId<HTMLFormElement>('theme-form');
const inputs = VARIABLES.map((variable) => {
  const input = document.createElement('input');
  input.type = variable.unit ? 'range' : 'color';
  if (variable.unit) Object.assign(input, { min: String(variable.min), max: String(variable.max), step: String(variable.step) });
  input.defaultValue = variable.value;
  input.value = variable.value;
  input.dataset.variable = variable.name;
  input.addEventListener('input', () => {
    changed.set(variable.name, `${input.value}${variable.unit ?? ''}`);
    update();
  });
  themeForm.append(field(variable.label, input));
  return input;
});

const wordsForm = byId<HTMLFormElement>('words-form');
const wordInputs = (Object.keys(HUD_STRINGS) as (keyof HudStrings)[]).map((key) => {
  const input = document.createElement('input');
  input.value = HUD_STRINGS[key];
  input.dataset.word = key;
  input.addEventListener('input', () => {
    if (input.value === HUD_STRINGS[key]) delete words[key];
    else words[key] = input.value;
    update();
  });
  wordsForm.append(field(key, input));
  return input;
});

/** WCAG relative luminance of #rrggbb. */
function luminance(hex: string): number {
  const channel = (i: number) => {
    const c = parseInt(hex.slice(i, i + 2), 16) / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * channel(1) + 0.7152 * channel(3) + 0.0722 * channel(5);
}
const contrast = (a: string, b: string) => {
  const [la, lb] = [luminance(a), luminance(b)];
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
};

function update() {
  const css = changed.size
    ? `quest-points-hud {\n${[...changed].map(([name, value]) => `  ${name}: ${value};`).join('\n')}\n}\n`
    : '/* the defaults: nothing to add */\n';
  styleTag.textContent = changed.size ? css : '';
  byId<HTMLTextAreaElement>('css-output').value = css;
  byId<HTMLTextAreaElement>('strings-output').value = Object.keys(words).length
    ? `// hud is the <quest-points-hud> element (or what attachHud() returned)\nhud.strings = ${JSON.stringify(words, null, 2)};\n`
    : '// the default words: nothing to set\n';
  hud.strings = words;
  const colour = (name: string) => {
    const input = inputs.find((candidate) => candidate.dataset.variable === name);
    if (!input) throw new Error(`no input for ${name}`);
    return input.value;
  };
  const bg = colour('--qp-hud-bg');
  byId('contrast').replaceChildren(
    ...COLOURS.filter((v) => v.name !== '--qp-hud-bg').map((v) => {
      const ratio = contrast(colour(v.name), bg);
      const item = document.createElement('li');
      item.dataset.variable = v.name;
      item.dataset.ratio = ratio.toFixed(2);
      item.textContent = `${v.label}: ${ratio.toFixed(1)}:1 ${ratio >= 4.5 ? '— AA' : '— below AA (4.5:1)'}`;
      item.className = ratio >= 4.5 ? '' : 'offline';
      return item;
    }),
  );
}

byId('reset').addEventListener('click', () => {
  changed.clear();
  for (const key of Object.keys(words)) delete words[key as keyof HudStrings];
  for (const input of inputs) input.value = input.defaultValue;
  for (const input of wordInputs) input.value = HUD_STRINGS[input.dataset.word as keyof HudStrings];
  update();
});
byId('every-state').addEventListener('click', () => preview.showEveryState());
byId('award-one').addEventListener('click', () =>
  preview.award(10, 'Quest step', byId<HTMLInputElement>('preview-offline').checked ? 'saved' : 'confirmed'),
);
byId<HTMLInputElement>('preview-offline').addEventListener('change', (event) => preview.setOnline(!(event.target as HTMLInputElement).checked));
byId<HTMLSelectElement>('hud-position').addEventListener('change', (event) =>
  hud.setAttribute('position', (event.target as HTMLSelectElement).value),
);

async function copy(id: string, what: string) {
  const area = byId<HTMLTextAreaElement>(id);
  const result = byId('copy-result');
  try {
    await navigator.clipboard.writeText(area.value);
    result.textContent = `${what} copied to the clipboard.`;
  } catch {
    area.select();
    result.textContent = `${what} selected: press Ctrl+C (⌘C) to copy.`;
  }
}
byId('copy-css').addEventListener('click', () => void copy('css-output', 'CSS'));
byId('copy-strings').addEventListener('click', () => void copy('strings-output', 'Words'));

// A still game scene behind the HUD: the games' sky, coins, gems and basket (demo/public/sprites), drawn once loaded.
const canvas = byId<HTMLCanvasElement>('preview-canvas');
canvas.width = 480;
canvas.height = 640;
const ctx = canvas.getContext('2d');
if (!ctx) throw new Error('no 2D context for the preview canvas');
const sprite = (name: string) =>
  new Promise<HTMLImageElement>((resolve, reject) => {
    const image = new Image();
    image.onload = () => resolve(image);
    image.onerror = () => reject(new Error(`sprites/${name}.svg did not load`));
    image.src = `sprites/${name}.svg`;
  });
void Promise.all([sprite('sky'), sprite('coin'), sprite('gem'), sprite('basket')]).then(([sky, coin, gem, basket]) => {
  ctx.drawImage(sky, 0, 0, 480, 640);
  for (let i = 0; i < 40; i++) ctx.drawImage(i % 5 ? coin : gem, ((i * 97) % 460) - 4, ((i * 151) % 600) + 6, 28, 28);
  ctx.drawImage(basket, 188, 584, 104, 44);
});

update();
Object.assign(window, { questPointsDemo: { hud, preview } });
