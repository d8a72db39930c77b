// What documentation snippets use without defining it: the game around them. Declared once, here.
declare const player: { serviceUserId: string };
declare const hud: { setScore(total: number): void };
