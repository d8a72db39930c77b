// Debian's nginx as a test's own process: its configuration, pid, logs and temp files in a folder of the test's, no
// daemon, listening on a free loopback port. Installs nothing (.ci/run installs nginx when it is missing). And a
// self-signed certificate for 127.0.0.1 and localhost, made with openssl.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { createHash, X509Certificate } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { accepting } from './redis.js';
import { until } from './until.js';

/** Debian's nginx: NGINX_PATH, else the usual places. */
export function nginxPath(): string {
  const candidates = [process.env.NGINX_PATH, '/usr/sbin/nginx', '/usr/bin/nginx', '/usr/local/sbin/nginx'];
  const found = candidates.find((p): p is string => !!p && existsSync(p));
  if (!found) throw new Error('nginx not found: install Debian\'s "nginx" package or set NGINX_PATH');
  return found;
}

/** A certificate and its key, PEM files in `dir`, valid a day for 127.0.0.1 and localhost. */
export function selfSignedCertificate(dir: string): { certificate: string; key: string } {
  const certificate = join(dir, 'cert.pem');
  const key = join(dir, 'key.pem');
  const args = ['req', '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes', '-days', '1'];
  args.push('-subj', '/CN=localhost', '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', key, '-out', certificate);
  execFileSync('openssl', args, { stdio: ['ignore', 'ignore', 'pipe'] });
  return { certificate, key };
}

/**
 * Chromium's switch that trusts `certificate` (a PEM file) as if a real authority had signed it: the SHA-256 of its
 * public key. A page served with it is a secure context without a certificate error, so its service worker registers.
 */
export function trustCertificateSwitch(certificate: string): string {
  const key = new X509Certificate(readFileSync(certificate)).publicKey.export({ type: 'spki', format: 'der' });
  return `--ignore-certificate-errors-spki-list=${createHash('sha256').update(key).digest('base64')}`;
}

export interface RunningNginx {
  /** Its error log so far (warnings, upstream failures): for a failure message. */
  errors(): string;
  /** Its access log so far: one line per request, `status method path upstream`. */
  access(): string[];
  /** SIGQUIT (graceful), then SIGKILL after 5 s; resolves once it exited. */
  stop(): Promise<void>;
}

/**
 * nginx with `site` (upstream and server blocks, as an operator includes them from the http block) in `dir`. Resolves
 * once `port` (where the site listens) accepts connections; rejects with nginx's own words when it exits first.
 */
export async function startNginx(options: { dir: string; site: string; port: number }): Promise<RunningNginx> {
  const { dir, site, port } = options;
  for (const sub of ['temp', 'logs']) mkdirSync(join(dir, sub), { recursive: true });
  writeFileSync(join(dir, 'site.conf'), site);
  const errorLog = join(dir, 'logs', 'error.log');
  const accessLog = join(dir, 'logs', 'access.log');
  const temp = (name: string) => `${name} ${join(dir, 'temp', name.replace(/_temp_path$/, ''))};`;
  writeFileSync(
    join(dir, 'nginx.conf'),
    [
      // Run by root (CI), the workers would switch to `nobody`, which may not enter this folder.
      process.getuid?.() === 0 ? 'user root;' : '',
      'daemon off;',
      'worker_processes 1;',
      `pid ${join(dir, 'nginx.pid')};`,
      `error_log ${errorLog} warn;`,
      'events { worker_connections 1024; }',
      'http {',
      `  log_format rehearsal '$status $request_method $uri $upstream_addr $upstream_status';`,
      `  access_log ${accessLog} rehearsal;`,
      ...['client_body_temp_path', 'proxy_temp_path', 'fastcgi_temp_path', 'uwsgi_temp_path', 'scgi_temp_path'].map((name) => `  ${temp(name)}`),
      `  include ${join(dir, 'site.conf')};`,
      '}',
      '',
    ].join('\n'),
  );
  const read = (file: string) => (existsSync(file) ? readFileSync(file, 'utf8') : '');
  let output = '';
  const child: ChildProcess = spawn(nginxPath(), ['-p', dir, '-c', join(dir, 'nginx.conf'), '-e', errorLog], { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const gone = () => child.exitCode !== null || child.signalCode !== null;
  try {
    await until(async () => gone() || (await accepting(port)), `nginx listening on ${port}`, 10_000, 20);
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
  if (gone()) throw new Error(`nginx exited before listening: ${output}${read(errorLog)}`);
  return {
    errors: () => read(errorLog),
    access: () => read(accessLog).split('\n').filter(Boolean),
    async stop() {
      if (gone()) return;
      child.kill('SIGQUIT');
      const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
      await exited;
      clearTimeout(timer);
    },
  };
}
