// Opens a file in speedscope (npm) in headless Chromium, as a person would, and prints how long
// it took to show ("ms\tN": from the page's load until speedscope shows the profile), then, for
// up to MAX_PROFILES profiles (default: all), "profile\tTOOLBAR" and the rows of its Sandwich
// view, "row\tNAME" (one per frame it weighs), then "error\tMESSAGE" for any error it raised.
// Usage: node open_file.mjs SPEEDSCOPE_RELEASE_DIR FILE [MAX_PROFILES]
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { createRequire } from 'node:module';

const [releaseDir, file, maxProfiles] = process.argv.slice(2);
const require = createRequire(join(process.env.NODE_GLOBAL_ROOT ?? '/usr/lib/node_modules', 'x'));
const { chromium } = require('playwright-core');

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png' };
const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  const served = path === '/profile.json' ? file : join(releaseDir, path);
  try {
    const body = await readFile(served);
    res.writeHead(200, { 'content-type': types[extname(served)] ?? 'application/octet-stream' });
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
  const page = await browser.newPage({ viewport: { width: 1600, height: 4000 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('dialog', (d) => { problems.push(d.message()); d.dismiss(); });
  const start = Date.now();
  await page.goto(`http://127.0.0.1:${port}/index.html#profileURL=/profile.json`);
  await page.waitForFunction(() => document.body.innerText.includes('Sandwich') ||
    document.body.innerText.includes('format'), null, { timeout: 120000, polling: 50 });
  console.log(`ms\t${Date.now() - start}`);
  const text = await page.locator('body').innerText();
  if (!text.includes('Sandwich')) {
    console.log(`refused\t${text.replace(/\s+/g, ' ')}`);
  } else {
    const count = Number((text.match(/\(1\/(\d+)\)/) ?? [0, 1])[1]);
    console.log(`profiles\t${count}`);
    await page.keyboard.press('3'); // the Sandwich view
    await page.waitForTimeout(300);
    const shown = Math.min(count, Number(maxProfiles ?? count));
    for (let i = 0; i < shown; i++) {
      const rows = await page.evaluate(() => {
        const out = [];
        for (const row of document.querySelectorAll('tr')) {
          const cells = [...row.querySelectorAll('td')].map((c) => c.innerText.trim());
          if (cells.length === 3 && /%\)$/.test(cells[0])) out.push(cells[2]);
        }
        return out;
      });
      const toolbar = await page.evaluate(() => document.body.innerText.split('\n')
        .find((l) => /\(\d+\/\d+\)|pid/.test(l)) ?? '');
      console.log(`profile\t${toolbar}`);
      for (const r of rows) console.log(`row\t${r}`);
      await page.keyboard.press('n');
      await page.waitForTimeout(200);
    }
  }
  for (const p of problems) console.log(`error\t${p}`);
} finally {
  await browser.close();
  server.close();
}
