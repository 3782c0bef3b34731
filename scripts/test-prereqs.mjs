// What `npm test` needs besides node_modules: redis-server on PATH (the Redis, Cluster and fault
// tests start their own servers), Chromium (the explorer and report pages are tested in a real
// browser) and nginx (the sidecar's tests run it as their own process, never the system service).
// Run first by `npm test`: finds them, installs the Debian packages when it can (root
// with apt-get), and otherwise stops with the one command to run, before any test starts.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';

const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const onPath = (cmd) => spawnSync('sh', ['-c', `command -v ${cmd}`], { stdio: 'ignore' }).status === 0;

/** What is missing: [what, Debian package]. */
const missing = [];
if (!onPath('redis-server') && process.env.REDIS_URL === undefined)
  missing.push(['redis-server', 'redis-server']);
if (!existsSync(chromiumPath)) missing.push([`Chromium (${chromiumPath})`, 'chromium']);
if (!onPath('nginx') && !existsSync('/usr/sbin/nginx')) missing.push(['nginx', 'nginx']);

if (missing.length > 0) {
  const packages = missing.map(([, pkg]) => pkg);
  const command = `apt-get install -y ${packages.join(' ')}`;
  const root = typeof process.getuid === 'function' && process.getuid() === 0;
  if (!root || !onPath('apt-get')) {
    console.error(
      `npm test needs ${missing.map(([what]) => what).join(' and ')}. Install with:\n\n  sudo ${command}\n`,
    );
    process.exit(1);
  }
  console.log(
    `npm test needs ${missing.map(([what]) => what).join(' and ')}: installing ${packages.join(' ')}`,
  );
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  execFileSync('apt-get', ['update', '-qq'], { stdio: 'inherit', env });
  execFileSync('apt-get', ['install', '-y', '-qq', ...packages], { stdio: 'inherit', env });
  if (!existsSync(chromiumPath) && packages.includes('chromium'))
    throw new Error(`installed chromium, but ${chromiumPath} is still missing: set CHROMIUM_PATH`);
}
