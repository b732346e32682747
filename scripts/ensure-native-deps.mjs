// postinstall of a checkout (package.json): the native package hardhat needs, then the PGlite
// template (scripts/pglite-template.ts). Both are for developing and running the service here;
// an install of the `paycall` command from a tarball or `npm install -g` has no devDependencies
// (no hardhat, no tsx-run scripts to prepare) and is left as npm made it.
//
// npm running on Node < 22 (the bare `node` of our development machines is 20)
// silently skips hardhat's native EDR package, whose engines field asks for Node >= 22, and
// `hardhat node` then fails with HHE200. The project runs on the pinned Node 24 anyway, so
// fetch the package for this platform from the registry with `npm pack` and unpack it.
// Plain JavaScript. npm puts node_modules/.bin first on PATH for scripts, so once the pinned
// `node` package is installed this runs on Node 24 while npm itself ran on another Node: the
// Node that npm ran on (the one whose engines check skipped the package) is read from npm's
// user agent ("npm/11.19.1 node/v20.20.2 linux x64 ..."), not from process.versions.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = process.cwd();
const npmNode = /\bnode\/v?(\S+)/.exec(process.env.npm_config_user_agent ?? '')?.[1];
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const wanted = Object.entries(pkg.optionalDependencies ?? {}).filter(([name]) => name.startsWith('@nomicfoundation/edr-'));
if (!existsSync(join(root, 'node_modules', 'hardhat', 'package.json'))) process.exit(0);
const isGlibcLinuxX64 = process.platform === 'linux' && process.arch === 'x64' && !!process.report?.getReport().header.glibcVersionRuntime;

for (const [name, version] of wanted) {
  if (!name.endsWith('linux-x64-gnu') || !isGlibcLinuxX64) continue;
  const dir = join(root, 'node_modules', name);
  if (existsSync(join(dir, 'package.json'))) continue;
  const tmp = mkdtempSync(join(tmpdir(), 'paycall-native-'));
  try {
    const file = execFileSync('npm', ['pack', `${name}@${version}`, '--silent', '--pack-destination', tmp], { encoding: 'utf8' }).trim().split('\n').pop();
    mkdirSync(dir, { recursive: true });
    execFileSync('tar', ['xzf', join(tmp, file), '-C', dir, '--strip-components=1']);
    const why = npmNode ? `npm ran on Node ${npmNode} and skipped it: the package asks for Node >= 22` : 'npm did not install it';
    console.log(`ensure-native-deps: installed ${name}@${version} for hardhat (${why})`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}

// The template makes the first `npm start` faster; without it the service runs initdb itself.
const template = spawnSync(process.execPath, ['--import', 'tsx', join('scripts', 'pglite-template.ts')], { stdio: 'inherit' });
if (template.status !== 0) console.log('pglite-template: skipped (npm start creates the database itself)');
