// Loads a Trace Event Format file in speedscope (npm) in headless Chromium, as a person would
// open it, and prints, for each profile (thread track) speedscope made of it, the rows of its
// Sandwich view (one per frame name: what the per-site aggregate views list), a line
// "profile NAME" then "row\tNAME" per row. Several timelines are opened one after the other in
// one browser (its start is most of a file's seven seconds), each after a line "timeline\tPATH".
// Usage: node sandwich_rows.mjs SPEEDSCOPE_RELEASE_DIR TIMELINE.json...
import { printSandwichRows, profileCount, shownText, startSpeedscope, watchedPage }
  from './speedscope_page.mjs';

const [releaseDir, ...timelines] = process.argv.slice(2);
const speedscope = await startSpeedscope(releaseDir, timelines);

// Prints the rows of timeline INDEX, in a page of its own, first drawn 800 pixels tall: the
// flame chart drawn as tall as the Sandwich table needs took seconds of software rendering.
async function sandwichRows(index) {
  const { page, problems } = await watchedPage(speedscope.browser, { width: 1600, height: 800 });
  await page.goto(speedscope.url(index));
  const text = await shownText(page, { timeout: 20000 });
  if (!text.includes('Sandwich'))
    console.log(`refused\t${text.replace(/\s+/g, ' ')}`);
  else
    await printSandwichRows(page, profileCount(text), 4000);
  for (const p of problems) console.log(`error\t${p}`);
  await page.close();
}

try {
  for (const [index, timeline] of timelines.entries()) {
    console.log(`timeline\t${timeline}`);
    await sandwichRows(index);
  }
} finally {
  await speedscope.close();
}
