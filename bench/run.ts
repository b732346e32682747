/**
 * `npm run bench`: every benchmark, each printing its figures and a ratio against a
 * baseline measured in the same run. `npm run bench -- quote` runs one.
 */
const benches: Record<string, () => Promise<{ main: () => Promise<unknown> }>> = {
  quote: () => import('./quote.ts'),
  mcp: () => import('./mcp.ts'),
  'quote-oop': () => import('./quote-oop.ts'),
  'pdf-text': () => import('./pdf-text.ts'),
  proxy: () => import('./proxy.ts'),
  'proxy-oop': () => import('./proxy-oop.ts'),
  'paid-load': () => import('./paid-load.ts'),
  'scale-out': () => import('./scale-out.ts'),
  startup: () => import('./startup.ts'),
  settlement: () => import('./settlement.ts'),
};

const wanted = process.argv.slice(2).filter((a) => !a.startsWith('-'));
for (const name of wanted.length ? wanted : Object.keys(benches)) {
  const load = benches[name];
  if (!load) {
    console.error(`unknown benchmark ${name}; known: ${Object.keys(benches).join(', ')}`);
    process.exit(2);
  }
  console.log(`\n== ${name} ==`);
  await (await load()).main();
}
