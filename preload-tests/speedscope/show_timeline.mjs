// Loads a Trace Event Format file in speedscope (npm) in headless Chromium, as a person would
// open it, and prints the names of the tracks speedscope made of it, one per line; with a
// third argument, saves a screenshot there.
// Usage: node show_timeline.mjs SPEEDSCOPE_RELEASE_DIR TIMELINE.json [SCREENSHOT.png]
import { startSpeedscope } from './speedscope_page.mjs';

const [releaseDir, timeline, screenshot] = process.argv.slice(2);
const speedscope = await startSpeedscope(releaseDir, [timeline]);
try {
  const page = await speedscope.browser.newPage({ viewport: { width: 1400, height: 800 } });
  await page.goto(speedscope.url(0));
  // speedscope makes a profile per thread track; its toolbar names the one shown, and the
  // profile list (opened by clicking the name) names them all.
  await page.waitForFunction(() => document.body.innerText.includes('/'), null, { timeout: 20000 });
  if (screenshot) await page.screenshot({ path: screenshot });
  await page.getByText(/\(1\/\d+\)/).click();
  await page.waitForTimeout(500);
  console.log(await page.locator('body').innerText());
} finally {
  await speedscope.close();
}
