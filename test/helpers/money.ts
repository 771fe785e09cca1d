/**
 * The tests' money, once: `usd("12.50")` is the amount a user writes as `12.50 USD`, read by
 * doohctl's own parser (src/model/money.ts); `usdParts("12", 500_000_000)` spells the wire
 * form out, for the tests of that parser and of figures exact to the nano.
 */
import { Money } from "../../src/model/money.js";

export const usd = (text: string): Money => Money.parse(`${text} USD`);

export const usdParts = (units: string, nanos = 0): Money => ({ currency_code: "USD", units, nanos });
