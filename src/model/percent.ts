/** A percent for people, rounded once for text after the exact verdict (docs/status.md, "Rounding"). */
import { JSON_DECIMALS, Ratio } from "./ratio.js";

/**
 * Signed unless told, half to even to `digits` decimals (a tenth unless told); more where that
 * would read as the threshold itself (-10.03 against 10 is "-10.03%", not "-10.0%").
 */
export function shownPercent(
  value: Ratio,
  options: { threshold?: Ratio; digits?: number; signed?: boolean } = {},
): string {
  const { threshold } = options;
  let digits = options.digits ?? 1;
  const readsAsThreshold = (d: number) =>
    threshold !== undefined &&
    Ratio.compare(Ratio.abs(Ratio.parse(Ratio.toFixed(value, d))), threshold) === 0;
  const isThreshold = threshold !== undefined && Ratio.compare(Ratio.abs(value), threshold) === 0;
  while (digits < JSON_DECIMALS && !isThreshold && readsAsThreshold(digits)) digits += 1;
  const text = Ratio.toFixed(value, digits);
  return `${value.n > 0n && options.signed !== false ? "+" : ""}${text}%`;
}
