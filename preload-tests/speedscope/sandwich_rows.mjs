// Loads a Trace Event Format file in speedscope (npm) in headless Chromium, as a person would
// open it, and prints, for each profile (thread track) speedscope made of it, the rows of its
// Sandwich view (one per frame name: what the per-site aggregate views list), a line
// "profile NAME" then "row\tNAME" per row. Several timelines are opened one after the other in
// one browser (its start is most of a file's seven seconds), each after a line "timeline\tPATH".
// Usage: node sandwich_rows.mjs SPEEDSCOPE_RELEASE_DIR TIMELINE.json...
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { createRequire } from 'node:module';

const [releaseDir, ...timelines] = process.argv.slice(2);
const require = createRequire(join(process.env.NODE_GLOBAL_ROOT ?? '/usr/lib/node_modules', 'x'));
const { chromium } = require('playwright-core');

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png' };
const server = createServer(async (req, res) => {
  const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
  const asked = path.match(/^\/timeline-(\d+)\.json$/);
  const file = asked ? timelines[Number(asked[1])] : join(releaseDir, path);
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
// Prints the rows of the timeline served as /timeline-INDEX.json, in a page of its own.
async function sandwichRows(index) {
  const page = await browser.newPage({ viewport: { width: 1600, height: 800 } });
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('dialog', (d) => { problems.push(d.message()); d.dismiss(); });
  await page.goto(`http://127.0.0.1:${port}/index.html#profileURL=/timeline-${index}.json`);
  await page.waitForFunction(() => document.body.innerText.includes('Sandwich') ||
    document.body.innerText.includes('format'), null, { timeout: 20000 });
  const text = await page.locator('body').innerText();
  if (!text.includes('Sandwich')) {
    console.log(`refused\t${text.replace(/\s+/g, ' ')}`);
  } else {
    // "(1/N)" in the toolbar when there are several profiles; "n" shows the next one
    const count = Number((text.match(/\(1\/(\d+)\)/) ?? [0, 1])[1]);
    await page.keyboard.press('3'); // the Sandwich view
    // tall enough for every row of its table (it draws only the rows in view), once it is
    // shown: the first view's flame chart drawn that tall took seconds of software rendering
    await page.setViewportSize({ width: 1600, height: 4000 });
    await page.waitForTimeout(300);
    for (let i = 0; i < count; i++) {
      const rows = await page.evaluate(() => {
        // the table's rows: total, self, then the frame's name
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
  await page.close();
}

try {
  for (const [index, timeline] of timelines.entries()) {
    console.log(`timeline\t${timeline}`);
    await sandwichRows(index);
  }
} finally {
  await browser.close();
  server.close();
}
