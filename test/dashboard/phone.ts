/**
 * Checks for a page at a phone's width (390 x 844): nothing scrolls sideways, the things a user
 * needs are on the screen, and short labels such as status badges stay on one line. Each check
 * polls: the page may still be laying out after the action before it.
 */
import type { Locator, Page } from 'playwright-core';
import { expect } from 'vitest';

export const PHONE = { width: 390, height: 844 };

/** The page is no wider than the screen: no horizontal page scroll. */
export async function expectNoHorizontalScroll(page: Page): Promise<void> {
  await expect.poll(() => page.evaluate(() => document.documentElement.scrollWidth - document.documentElement.clientWidth)).toBeLessThanOrEqual(0);
}

/** The element is laid out entirely between the screen's left and right edges (scrolled to, if below). */
export async function expectWithinWidth(page: Page, locator: Locator): Promise<void> {
  await locator.scrollIntoViewIfNeeded();
  const width = page.viewportSize()!.width;
  await expect
    .poll(async () => {
      const box = await locator.boundingBox();
      return box !== null && box.width > 0 && box.x >= 0 && box.x + box.width <= width;
    })
    .toBe(true);
}

/** The element's text is laid out on a single line (a badge cut mid-word takes two). */
export async function expectOneLine(locator: Locator): Promise<void> {
  await expect
    .poll(() =>
      locator.evaluate((element) => {
        const range = document.createRange();
        range.selectNodeContents(element);
        return new Set([...range.getClientRects()].filter((rect) => rect.width > 0).map((rect) => Math.round(rect.top))).size;
      }),
    )
    .toBe(1);
}

/**
 * No cell of the table's body stands much taller than its content (a row stretched by one tall
 * cell leaves the others with large empty gaps), and the table fits its frame: no column is hidden
 * off the side.
 */
export async function expectCompactRows(table: Locator, maxGapPx = 24): Promise<void> {
  const measure = () =>
    table.evaluate((element) => {
      let gap = 0;
      for (const cell of element.querySelectorAll('tbody td, tbody th')) {
        const range = document.createRange();
        range.selectNodeContents(cell);
        const content = range.getBoundingClientRect();
        if (content.height === 0) continue;
        const style = getComputedStyle(cell);
        const padding = parseFloat(style.paddingTop) + parseFloat(style.paddingBottom);
        gap = Math.max(gap, cell.getBoundingClientRect().height - padding - content.height);
      }
      const frame = element.parentElement!;
      return { gap: Math.round(gap), overflow: frame.scrollWidth - frame.clientWidth };
    });
  await expect.poll(async () => (await measure()).overflow).toBeLessThanOrEqual(0);
  await expect.poll(async () => (await measure()).gap).toBeLessThanOrEqual(maxGapPx);
}
