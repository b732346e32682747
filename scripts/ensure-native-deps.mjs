// postinstall: npm running on Node < 22 (the bare `node` of our development machines is 20)
// silently skips hardhat's native EDR package, whose engines field asks for Node >= 22, and
// `hardhat node` then fails with HHE200. The project runs on the pinned Node 24 anyway, so
// fetch the package for this platform from the registry with `npm pack` and unpack it.
// Plain JavaScript: this runs on whatever Node npm was started with.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

const root = process.cwd();
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const wanted = Object.entries(pkg.optionalDependencies ?? {}).filter(([name]) => name.startsWith('@nomicfoundation/edr-'));
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
    console.log(`ensure-native-deps: installed ${name}@${version} (npm on Node ${process.versions.node} skipped it)`);
  } finally {
    rmSync(tmp, { recursive: true, force: true });
  }
}
