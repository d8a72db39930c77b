// A portal's page (served at localhost: another site than the game at 127.0.0.1): it frames the game as Poki,
// itch.io or Discord do. Query: src (the game's URL), sandbox (the iframe's sandbox attribute; absent: none).
const params = new URLSearchParams(location.search);
const frame = document.createElement('iframe');
frame.id = 'game';
const sandbox = params.get('sandbox');
if (sandbox !== null) frame.setAttribute('sandbox', sandbox);
frame.src = params.get('src') ?? 'about:blank';
frame.width = '640';
frame.height = '360';
document.getElementById('root')?.append(frame);
