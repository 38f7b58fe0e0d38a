// speedscope (npm) in headless Chromium, opened as a person opens a file in it: what the scripts
// beside this one share. speedscope fetches a profile by URL, so the release's files and the
// files to open are served from loopback: file INDEX of `files` as /file-INDEX.json.
import { createServer } from 'node:http';
import { readFile } from 'node:fs/promises';
import { extname, join } from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(join(process.env.NODE_GLOBAL_ROOT ?? '/usr/lib/node_modules', 'x'));
const { chromium } = require('playwright-core');

const types = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css',
  '.json': 'application/json', '.wasm': 'application/wasm', '.png': 'image/png' };

// The server and the browser: { browser, url(index): the page that opens file INDEX, close() }.
export async function startSpeedscope(releaseDir, files) {
  const server = createServer(async (req, res) => {
    const path = decodeURIComponent(new URL(req.url, 'http://x').pathname);
    const asked = path.match(/^\/file-(\d+)\.json$/);
    const file = asked ? files[Number(asked[1])] : join(releaseDir, path);
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
  let browser;
  try {
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu'] });
  } catch (e) {
    server.close();
    throw e;
  }
  return {
    browser,
    url: (index) => `http://127.0.0.1:${port}/index.html#profileURL=/file-${index}.json`,
    close: async () => { await browser.close(); server.close(); },
  };
}

// Waits until speedscope shows the profile (its view names "Sandwich") or refuses the file (its
// message names the format); then its text: it refused when that has no "Sandwich".
export async function shownText(page, options) {
  await page.waitForFunction(() => document.body.innerText.includes('Sandwich') ||
    document.body.innerText.includes('format'), null, options);
  return page.locator('body').innerText();
}

// The profiles (thread tracks) speedscope made: "(1/N)" in its toolbar when there are several.
export function profileCount(text) {
  return Number((text.match(/\(1\/(\d+)\)/) ?? [0, 1])[1]);
}

// Prints, for the first `count` profiles, "profile\tTOOLBAR" and the rows of its Sandwich view,
// "row\tNAME" (one per frame name it weighs: what the per-site aggregate views list). The
// Sandwich view is drawn `height` pixels tall, enough for every row of its table (it draws only
// the rows in view).
export async function printSandwichRows(page, count, height) {
  await page.keyboard.press('3'); // the Sandwich view
  await page.setViewportSize({ width: 1600, height });
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
    await page.keyboard.press('n'); // the next profile
    await page.waitForTimeout(200);
  }
}

// A page whose errors (thrown, or said in a dialog, dismissed) are kept in `problems`.
export async function watchedPage(browser, viewport) {
  const page = await browser.newPage({ viewport });
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('dialog', (d) => { problems.push(d.message()); d.dismiss(); });
  return { page, problems };
}
