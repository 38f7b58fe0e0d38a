// Opens a file in speedscope (npm) in headless Chromium, as a person would, and prints how long
// it took to show ("ms\tN": from the page's load until speedscope shows the profile), then, for
// up to MAX_PROFILES profiles (default: all), "profile\tTOOLBAR" and the rows of its Sandwich
// view, "row\tNAME" (one per frame it weighs), then "error\tMESSAGE" for any error it raised.
// Usage: node open_file.mjs SPEEDSCOPE_RELEASE_DIR FILE [MAX_PROFILES]
import { printSandwichRows, profileCount, shownText, startSpeedscope, watchedPage }
  from './speedscope_page.mjs';

const [releaseDir, file, maxProfiles] = process.argv.slice(2);
const speedscope = await startSpeedscope(releaseDir, [file]);
try {
  // drawn 4000 pixels tall from the start: the time to show is the bench's series
  // (contrib/bench/timeline-size), measured so since it began
  const { page, problems } = await watchedPage(speedscope.browser, { width: 1600, height: 4000 });
  const start = Date.now();
  await page.goto(speedscope.url(0));
  const text = await shownText(page, { timeout: 120000, polling: 50 });
  console.log(`ms\t${Date.now() - start}`);
  if (!text.includes('Sandwich')) {
    console.log(`refused\t${text.replace(/\s+/g, ' ')}`);
  } else {
    const count = profileCount(text);
    console.log(`profiles\t${count}`);
    await printSandwichRows(page, Math.min(count, Number(maxProfiles ?? count)), 4000);
  }
  for (const p of problems) console.log(`error\t${p}`);
} finally {
  await speedscope.close();
}
