// Loads a Trace Event Format file in speedscope (npm) in headless Chromium, as a person would
// open it, and prints the names of the tracks speedscope made of it, one per line; with a
// third argument, saves a screenshot there.
// Usage: node show_timeline.mjs SPEEDSCOPE_RELEASE_DIR TIMELINE.json [SCREENSHOT.png]
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { createRequire } from 'node:module';

const [releaseDir, timeline, screenshot] = process.argv.slice(2);
const require = createRequire(join(process.env.NODE_GLOBAL_ROOT ?? '/usr/lib/node_modules', 'x'));
const { chromium } = require('playwright-core');

// speedscope fetches the profile by URL: both are served from loopback.
const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png' };
const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  const file = path === '/timeline.json' ? timeline : join(releaseDir, path);
  try {
    const body = await readFile(file);
    res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream' });
    res.end(body);
  } catch {
    res.writeHead(404).end();
  }
});
await new Promise((ok) => server.listen(0, '127.0.0.1', ok));
const port = server.address().port;

const browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu'] });
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 800 } });
  await page.goto(`http://127.0.0.1:${port}/index.html#profileURL=/timeline.json`);
  // speedscope makes a profile per thread track; its toolbar names the one shown, and the
  // profile list (opened by clicking the name) names them all.
  await page.waitForFunction(() => document.body.innerText.includes('/'), null, { timeout: 20000 });
  if (screenshot) await page.screenshot({ path: screenshot });
  await page.getByText(/\(1\/\d+\)/).click();
  await page.waitForTimeout(500);
  console.log(await page.locator('body').innerText());
} finally {
  await browser.close();
  server.close();
}
