/**
 * A percent for people: verdicts compare the exact value with their threshold, and this
 * rounds it once, for text only (docs/status.md, "Rounding").
 */

/**
 * Signed, to a tenth; with more decimals where a tenth would read as the threshold itself
 * (-10.03 against 10 shows "-10.03%", not "-10.0%", so the words match the verdict).
 */
export function shownPercent(value: number, threshold?: number): string {
  let digits = 1;
  while (
    digits < 4 &&
    threshold !== undefined &&
    Math.abs(Number(value.toFixed(digits))) === threshold &&
    Math.abs(value) !== threshold
  ) {
    digits += 1;
  }
  return `${value > 0 ? "+" : ""}${value.toFixed(digits)}%`;
}
