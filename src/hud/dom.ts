// The few DOM helpers the element draws with. Writes happen only when a value changed: an unchanged HUD costs the
// page no style or layout work.

export function make<K extends keyof HTMLElementTagNameMap>(tag: K, part?: string, text?: string): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (part) el.setAttribute('part', part);
  if (text !== undefined) el.textContent = text;
  return el;
}

export function text(el: Element, value: string): void {
  if (el.textContent !== value) el.textContent = value;
}
export function attr(el: Element, name: string, value: string): void {
  if (el.getAttribute(name) !== value) el.setAttribute(name, value);
}

/** A toast or history row: points, event, state. */
export function row(): HTMLLIElement {
  const li = make('li');
  li.append(make('span', 'points'), make('span', 'event'), make('span', 'state'));
  return li;
}

export function fill(li: Element, part: string, state: string, ...texts: string[]): void {
  attr(li, 'part', part);
  attr(li, 'data-state', state);
  // A row() always has its three cells.
  texts.forEach((value, i) => {
    text(li.children[i] as Element, value);
  });
}
